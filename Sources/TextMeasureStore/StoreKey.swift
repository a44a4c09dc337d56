import TextMeasure

/// The key under which a height is stored: a SHA-256 over everything a measurement depends on except
/// the width, which is stored beside it as a range of layout units (see ``Context`` for the layout).
///
/// Covered: the fonts' content digests (``FontDigests``), the layout version
/// (``TextMeasure/TextMeasurer/layoutVersion``), the style (size, line height mode and value,
/// `maxLines`, break rules: ``breakRules(_:)``), the text's UTF-8 bytes and a styled text's spans
/// (after the text; a plain text's key is the same as before styled text existed). Stable across
/// processes and machines: no paths, no addresses, integers little-endian, doubles by their IEEE bits.
enum StoreKey {
    /// Tag of this encoding; a change of encoding changes every key.
    private static let encoding = "textmeasure-height-key-2"
    /// The break rules (``TextMeasure/TextStyle/breaking``), one number each, so that heights
    /// measured with one set are never answered for another: 0 is ``TextMeasure/LineBreaking/pango``
    /// (the one set before the style had the option), 1
    /// ``TextMeasure/LineBreaking/browser``, 2 ``TextMeasure/LineBreaking/browserStrict``.
    static func breakRules(_ breaking: LineBreaking) -> UInt8 {
        switch breaking {
        case .pango: 0
        case .browser: 1
        case .browserStrict: 2
        }
    }

    /// The key of `query`'s text and style with fonts of digest `fonts`.
    ///
    /// - Parameters:
    ///   - query: The text and style (its width is not part of the key).
    ///   - fonts: The cascade's digest (``FontDigests/digest(of:)``).
    ///   - layoutVersion: The layout version the result is (or would be) made with.
    /// - Returns: 32 bytes.
    /// - Complexity: O(*n*) in the text's UTF-8 length, plus hashing the style; for many texts of
    ///   one style, make one ``Context`` and ask it.
    static func key(for query: MeasureRequest, fonts: [UInt8],
                    layoutVersion: UInt32 = TextMeasurer.layoutVersion) -> [UInt8] {
        Context(style: query.style, fonts: fonts, layoutVersion: layoutVersion).key(forText: query.text, spans: query.spans)
    }

    /// The keys of `queries`, one ``Context`` per run of queries in one style.
    ///
    /// - Complexity: O(total UTF-8 length) plus one context per change of style.
    static func keys(for queries: [MeasureRequest], fonts: [UInt8]) -> [[UInt8]] {
        var context: Context?
        return queries.map { query in
            if context?.style != query.style { context = Context(style: query.style, fonts: fonts) }
            return context!.key(forText: query.text, spans: query.spans)
        }
    }

    /// What every key of one style and font cascade shares, hashed once.
    ///
    /// A key is SHA-256(context digest ‖ 32 zero bytes ‖ text length ‖ text [‖ span count ‖ spans]),
    /// the spans only for a styled text (each: start, end, a byte of flags, the size's bits or 0 for
    /// none), where the context digest
    /// is SHA-256 over the encoding tag, the layout version, the fonts' digest and the style. The
    /// first 64 bytes are the same for every text, so the hasher that has taken them (one compressed
    /// block) is kept and copied: a text costs only its own blocks.
    struct Context {
        /// The style it was made for.
        let style: TextStyle
        /// A hasher that has taken exactly the first block.
        private let prefix: SHA256

        init(style: TextStyle, fonts: [UInt8], layoutVersion: UInt32 = TextMeasurer.layoutVersion) {
            self.style = style
            var hasher = SHA256()
            hasher.update(encoding.utf8)
            hasher.update(integer: layoutVersion)
            hasher.update(fonts)
            hasher.update(integer: style.size.bitPattern)
            switch style.lineHeight {
            case .natural:
                hasher.update(integer: UInt8(0))
                hasher.update(integer: UInt64(0))
            case .fixed(let pixels):
                hasher.update(integer: UInt8(1))
                hasher.update(integer: pixels.bitPattern)
            case .multiple(let multiple):
                hasher.update(integer: UInt8(2))
                hasher.update(integer: multiple.bitPattern)
            }
            hasher.update(integer: Int64(style.maxLines))
            hasher.update(integer: breakRules(style.breaking))
            var prefix = SHA256()
            prefix.update(hasher.finalize())
            prefix.update([UInt8](repeating: 0, count: 32))
            self.prefix = prefix
        }

        /// The key of `text` in this context.
        ///
        /// - Complexity: O(*n*) in the text's UTF-8 length: ⌈(*n* + 17) / 64⌉ compressed blocks.
        func key(forText text: String, spans: [TextSpan] = []) -> [UInt8] {
            var hasher = prefix
            var text = text
            text.withUTF8 { bytes in
                hasher.update(integer: Int64(bytes.count))
                hasher.update(UnsafeRawBufferPointer(bytes))
            }
            if !spans.isEmpty {
                hasher.update(integer: Int64(spans.count))
                for span in spans {
                    hasher.update(integer: Int64(span.start))
                    hasher.update(integer: Int64(span.end))
                    hasher.update(integer: UInt8((span.bold ? 1 : 0) | (span.italic ? 2 : 0) | (span.monospace ? 4 : 0)
                                                 | (span.size == nil ? 0 : 8)))
                    hasher.update(integer: span.size?.bitPattern ?? 0)
                }
            }
            return hasher.finalize()
        }
    }

    /// A check value over a stored row, so that a row damaged on disk (or written by something else)
    /// reads as a miss, never as a height. FNV-1a, 64 bits.
    static func check(key: [UInt8], _ value: StoredMeasurement) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        func mix(_ integer: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: integer >> UInt64(shift))) }
        }
        for byte in key { mix(byte) }
        mix(UInt64(bitPattern: Int64(value.validWidthUnits.lowerBound)))
        mix(UInt64(bitPattern: Int64(value.validWidthUnits.upperBound)))
        mix(value.height.bitPattern)
        mix(UInt64(bitPattern: Int64(value.lineCount)))
        mix(value.isTruncated ? UInt64(1) : 0)
        mix(value.lineHeight.bitPattern)
        mix(value.widestLineWidth.bitPattern)
        return Int64(bitPattern: hash)
    }
}
