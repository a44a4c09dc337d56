import TextMeasure
import TextMeasureBatch

/// `POST /v1/measure` without HTTP: a request body in, a status and a JSON body out.
///
/// The body is one batch item (`{"text": String, "width": Number, "size"?: Number, "maxLines"?: Int}`,
/// other fields echoed byte for byte) or an array of them. Each item's bytes are measured by the same
/// ``BatchProcessor`` that `textmeasure batch` uses, as a batch line, so results, echoed fields and
/// error objects are the batch protocol's, in the same order:
///
/// | body | status | response |
/// |---|---|---|
/// | one object | 200, or 422 when it cannot be measured | its result object, or its error object |
/// | an array | 200 (items that cannot be measured get error objects in their places) | an array of results |
/// | not JSON, empty, neither an object nor an array | 400 | `{"error": "<why>"}` |
/// | more than ``ServerLimits/maximumItems`` items, a text longer than ``ServerLimits/maximumTextBytes`` | 413 | `{"error": "<why>"}` |
///
/// Thread safety: `Sendable`; ``respond(to:)`` and ``quickReply(to:)`` may run on any number of
/// threads at once (the processor's caches are locked).
package struct MeasureEndpoint: Sendable {
    /// A response: the HTTP status code, the JSON body and how many items it measured.
    package struct Reply: Sendable, Equatable {
        /// The HTTP status code.
        package var status: Int
        /// The body's JSON, as UTF-8: handed to the HTTP layer as it is, never made a `String`.
        package var bytes: [UInt8]
        /// The body's JSON text.
        package var body: String { String(decoding: bytes, as: UTF8.self) }
        /// Items measured successfully.
        package var measured: Int
        /// Items answered with an error object.
        package var failed: Int
    }

    /// The processor each item goes through.
    package let processor: BatchProcessor
    /// What one request may ask for.
    package let limits: ServerLimits

    /// An endpoint measuring with `processor` within `limits`.
    ///
    /// - Parameters:
    ///   - processor: measures each item (its style is the default for items without `"size"` or `"maxLines"`).
    ///   - limits: items per request and text length.
    package init(processor: BatchProcessor, limits: ServerLimits) {
        self.processor = processor
        self.limits = limits
    }

    /// Measures a request body.
    ///
    /// - Parameter body: the body's bytes (the body size limit is the HTTP layer's to enforce).
    /// - Returns: the status, the JSON body and the counts of measured and failed items.
    /// - Complexity: O(body size) to parse, then one measurement per item, on the calling thread.
    package func respond(to body: [UInt8]) -> Reply {
        body.withUnsafeBufferPointer { body in respond(to: body) }
    }

    /// ``respond(to:)`` on the body's bytes where they are.
    private func respond(to body: UnsafeBufferPointer<UInt8>) -> Reply {
        respond(to: body) { lines, isSingle in
            // All items at once: one look-up in the height store (if any) for what memory lacks.
            let outcomes = processor.process(lines)
            var out = Self.replyBuffer(items: outcomes.count, isSingle: isSingle)
            var measured = 0
            var failed = 0
            for (index, outcome) in outcomes.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if case .measured = outcome { measured += 1 } else { failed += 1 }
                outcome.write(to: &out)
            }
            if !isSingle { out.append(UInt8(ascii: "]")) }
            return Self.reply(out, isSingle: isSingle, measured: measured, failed: failed)
        }!   // `answer` always answers
    }

    /// ``respond(to:)`` when answering is quick: the body is refused (400, 413), or every item that
    /// can be measured has its text prepared and held in memory, so that measuring is layout alone
    /// (see ``BatchProcessor/writeIfHeld(_:separator:to:)``). Nil otherwise, with nothing shaped,
    /// looked up in the height store or counted as a hit (the items before the first text not held
    /// may have been laid out, and are dropped): the reply would need a measuring thread.
    ///
    /// An array's items are read once, each laid out and written as the body's check reaches it
    /// (``JSONScanner/scan(itemsOf:each:)``); the reply is the one ``respond(to:)`` gives, refusals
    /// included, in the same order.
    ///
    /// - Parameter body: the body's bytes.
    /// - Returns: the reply, or nil.
    /// - Complexity: O(body size) to parse, one look-up (a lock) and one layout per item.
    package func quickReply(to body: [UInt8]) -> Reply? {
        body.withUnsafeBufferPointer { quickReply(to: $0) }
    }

    /// ``quickReply(to:)-([UInt8])`` on a body's bytes where the caller holds them (a network buffer,
    /// not copied).
    ///
    /// - Parameter body: the body's bytes.
    /// - Returns: the reply, or nil.
    /// - Complexity: as ``quickReply(to:)-([UInt8])``.
    package func quickReply(to body: UnsafeBufferPointer<UInt8>) -> Reply? {
        // An array is read once: each item is written as the scan reads it, and the output is dropped if
        // the body turns out to be refused, or a text not held, further on.
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 2)   // one allocation unless the outputs outgrow the items
        out.append(UInt8(ascii: "["))
        var counts = BatchProcessor.HeldCounts()
        var items = 0
        var allHeld = true
        var tooLong: Reply?
        let kind: JSONScanner.TopLevel
        do {
            kind = try JSONScanner.scan(itemsOf: body) { range, item in
                defer { items += 1 }
                if tooLong == nil { tooLong = textRefusal(item, range, of: body, index: items, isSingle: false) }
                guard allHeld, tooLong == nil, items < limits.maximumItems else { return }
                if items > 0 { out.append(UInt8(ascii: ",")) }
                allHeld = processor.writeIfHeld(item, line: UnsafeBufferPointer(rebasing: body[range]), to: &out,
                                                counts: &counts)
            }
        } catch {
            return Self.unreadable(body)
        }
        guard kind == .array else {
            // One object (anything else is refused): checked as the route checks it, then written as a line.
            return respond(to: body) { lines, isSingle in
                var out: [UInt8] = []
                guard let counts = processor.writeIfHeld(lines, separator: UInt8(ascii: ","), to: &out) else { return nil }
                return Self.reply(out, isSingle: isSingle, measured: counts.measured, failed: counts.failed)
            }
        }
        // The refusals in the order `respond(to:answer:)` checks them, then the texts not held.
        if items > limits.maximumItems { return Self.tooManyItems(items, limits: limits) }
        if let tooLong { return tooLong }
        guard allHeld else { return nil }
        processor.countHits(of: counts)
        out.append(UInt8(ascii: "]"))
        return Self.reply(out, isSingle: false, measured: counts.measured, failed: counts.failed)
    }

    /// The reply to `body`, its items' outputs written by `answer` (nil from it: nil) once the body
    /// is checked: each item's bytes, and whether the body is one item rather than an array.
    private func respond(to body: UnsafeBufferPointer<UInt8>,
                         answer: ([UnsafeBufferPointer<UInt8>], Bool) -> Reply?) -> Reply? {
        // The body is checked and split into items without being made into values: each item is parsed
        // once, by the batch, from its bytes (so that its other fields are echoed as sent).
        let kind: JSONScanner.TopLevel, elements: [Range<Int>]
        do {
            (kind, elements) = try JSONScanner.scan(elementsOf: body)
        } catch {
            return Self.unreadable(body)
        }
        let ranges: [Range<Int>]
        let isSingle: Bool
        switch kind {
        case .object: ranges = [body.indices]; isSingle = true
        case .array: ranges = elements; isSingle = false
        case .other: return Self.error(400, "the body must be a JSON object or an array of JSON objects")
        }
        guard ranges.count <= limits.maximumItems else { return Self.tooManyItems(ranges.count, limits: limits) }
        for (index, range) in ranges.enumerated() {
            if let refusal = textRefusal(nil, range, of: body, index: index, isSingle: isSingle) { return refusal }
        }

        // Each item is read again from its bytes, as a batch line, so that its other fields are echoed as sent.
        return answer(ranges.map { UnsafeBufferPointer(rebasing: body[$0]) }, isSingle)
    }

    /// The 400 for a body that is not JSON.
    private static func unreadable(_ body: UnsafeBufferPointer<UInt8>) -> Reply {
        let isBlank = body.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return error(400, isBlank ? "empty body: send a JSON object or an array of them" : "invalid JSON")
    }

    /// The 413 for a body of `count` items, more than `limits` allow.
    private static func tooManyItems(_ count: Int, limits: ServerLimits) -> Reply {
        error(413, "\(count) items: at most \(limits.maximumItems) per request")
    }

    /// The 413 for the item at `range` of `body` (the `index`-th) when its text is longer than the limit,
    /// else nil. `item`: its fields, if the scanner read them.
    private func textRefusal(_ item: JSONScanner.ItemFields?, _ range: Range<Int>, of body: UnsafeBufferPointer<UInt8>,
                             index: Int, isSingle: Bool) -> Reply? {
        // A decoded string is at most 3 times as long as its token (an escape is at least as long as what
        // it stands for; a byte of invalid UTF-8 becomes U+FFFD, 3 bytes), so only an item longer than a
        // third of the limit can hold a text over it.
        guard range.count * 3 > limits.maximumTextBytes else { return nil }
        let length: Int
        if let item {
            length = item.text.utf8.count
        } else {
            let value = try? JSONScanner.parse(UnsafeBufferPointer(rebasing: body[range]))
            guard case .object(let fields) = value,
                  let text = fields.first(where: { $0.0 == "text" }), case .string(let string) = text.1 else { return nil }
            length = string.utf8.count
        }
        guard length > limits.maximumTextBytes else { return nil }
        let which = isSingle ? "" : "item \(index): "
        return Self.error(413, "\(which)\"text\" is \(length) bytes long: at most \(limits.maximumTextBytes)")
    }

    /// An empty reply body for `items` results, with its `[` if it is an array. The body is UTF-8 bytes
    /// (see `JSONValue.write(to:)`); a result is about 50 bytes and its echoed fields, so the array
    /// grows at most once.
    private static func replyBuffer(items: Int, isSingle: Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 * items + 2)
        if !isSingle { out.append(UInt8(ascii: "[")) }
        return out
    }

    /// The reply of a body whose items' outputs are `out`: 422 for a single item that failed.
    private static func reply(_ out: [UInt8], isSingle: Bool, measured: Int, failed: Int) -> Reply {
        Reply(status: isSingle && failed > 0 ? 422 : 200, bytes: out, measured: measured, failed: failed)
    }

    /// A reply that measured nothing: `{"error": message}`.
    static func error(_ status: Int, _ message: String) -> Reply {
        Reply(status: status, bytes: Array(JSONValue.object([("error", .string(message))]).serialized.utf8), measured: 0, failed: 0)
    }
}
