import TextMeasure
import TextMeasureBatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `textmeasure batch` does once its options are known: read JSON lines, measure them in chunks
/// over all cores, write one result line each. Kept apart from ``BatchCommand`` so that a bare
/// `textmeasure batch` (the common, scripted use) runs without parsing arguments at all (see
/// ``TextMeasureCommand/main()``): ArgumentParser's set-up was half of the process's start-up.
struct BatchRun {
    var fonts = FaceFonts()
    var style = TextStyle(size: 17)
    var stats = false
    var store: String?
    var chunk = 4096
    var cachedTexts = 256
    var cachedMegabytes = PreparedTextCache.defaultMaximumBytes >> 20

    func run() throws {
        // Before any input is read: without the store linked in, this hands the process over to
        // textmeasure-store (see HeightStoreLink).
        let link = try store.map { _ in try HeightStoreAccess.current() }
        // The first lines are read before waiting for the fonts, which may still be loading; each
        // chunk after them is read while the one before it is measured. The first chunk is small:
        // reading 4,096 lines took as long as loading the fonts, and measuring waited for both. The
        // second is not read until the fonts are loaded: it would be read on their thread's CPU.
        let input = ChunkReader(LineReader(descriptor: STDIN_FILENO), maxLines: max(1, chunk),
                                maxBytes: BatchCommand.chunkBytes, firstLines: 1_024)
        let output = ChunkWriter(.standardOutput)
        let first = Result { () throws(IOFailure) -> Lines? in try input.next(readingAhead: false) }
        // Before waiting for the measurer (the bundled fonts load on another thread meanwhile; fonts
        // given with --font load after this): the line-break dictionaries for the scripts that need
        // them, which the first text of each would otherwise load while other threads wait. Those of
        // the default mode, and of every mode if the input names modes of its own.
        if case .success(let lines?) = first {
            lines.bytes.withUnsafeBufferPointer { bytes in
                let modes: Set<LineBreaking> = Self.namesModes(bytes) ? Set(LineBreaking.allCases) : [style.breaking]
                TextMeasurer.prepareLineBreakDictionaries(for: bytes, modes: modes)
            }
        }
        let measurer = try StyleOptions.makeMeasurer(fonts: fonts)
        input.readAhead()
        do throws(IOFailure) {
            var lines = try first.get()
            let bytes = cachedMegabytes > Int.max >> 20 ? Int.max : max(0, cachedMegabytes) << 20
            let heightStore = store.flatMap { link?.open(path: $0) }
            let processor = BatchProcessor(measurer: measurer, style: style, preparedTexts: max(1, cachedTexts),
                                           preparedTextBytes: bytes, store: heightStore)
            // Each chunk's output is written while the next one is measured.
            while let chunk = lines {
                try output.write(processor.outputBlocks(chunk))
                lines = try input.next()
            }
            try output.finish()
            heightStore?.flush()
            if stats, store != nil {
                let written = heightStore?.writtenCount ?? 0
                let t = processor.texts.statistics
                try OutputWriter.standardError.write("""
                    height store: \(t.storeHits) hits, \(t.storeMisses) misses, \(written) written\(heightStore == nil ? " (skipped)" : "")

                    """)
            }
            if stats {
                let t = processor.texts.statistics
                let shaping = measurer.shapingStatistics
                try OutputWriter.standardError.write("""
                    prepared texts: \(t.hits) reused, \(t.misses) shaped, \(t.entries) held (\(t.bytes >> 10) KiB), \(t.oversized) too large to keep
                    shaped pieces: \(shaping.pieceHits) reused, \(shaping.pieceMisses) shaped, \(shaping.runsShapedWhole) runs shaped whole, \(shaping.stretchesWidened) stretches widened, \(shaping.spanHits) spans reused, \(shaping.piecesResized) resized

                    """)
            }
        } catch {
            // Input that cannot be read or output that cannot be written: the batch is incomplete. The
            // lines before a read failure are written all the same.
            _ = try? output.finish()
            throw CLIError(message: error.description)
        }
    }

    /// Whether JSON lines name a `"breaking"` field (a mode of the item's own) in their first 64 KiB,
    /// the bytes whose dictionaries are prepared (see `TextMeasurer.prepareLineBreakDictionaries`).
    ///
    /// - Complexity: O(*n*) in the bytes, at most 64 Ki.
    static func namesModes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let key: StaticString = #""breaking""#
        let end = base + min(bytes.count, 1 << 16)
        var at = base
        // From quote to quote with memchr.
        while end - at >= key.utf8CodeUnitCount, let quote = memchr(at, 0x22, end - at) {
            let found = UnsafePointer(quote.assumingMemoryBound(to: UInt8.self))
            if end - found >= key.utf8CodeUnitCount && memcmp(found, key.utf8Start, key.utf8CodeUnitCount) == 0 {
                return true
            }
            at = found + 1
        }
        return false
    }
}
