import Dispatch

/// One text to measure in a batch.
public struct MeasureRequest: Hashable, Sendable {
    /// The text to measure.
    public var text: String
    /// Size, line height and line limit.
    public var style: TextStyle
    /// The width to wrap at, in pixels.
    public var width: Double

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - text: The text to measure.
    ///   - style: Size, line height and line limit.
    ///   - width: The width to wrap at, in pixels.
    public init(text: String, style: TextStyle, width: Double) {
        self.text = text
        self.style = style
        self.width = width
    }
}

extension TextMeasurer {
    /// Measures many texts at once on all cores (for prefetching the rows just below the visible
    /// ones, or a server building a feed). Results come back in the order of `requests`; a request
    /// that cannot be measured gets its error in its slot and the others go on.
    ///
    /// - Parameter requests: The texts to measure, each with its style and width.
    /// - Returns: One result per request, in order: the measurement, or the ``TextMeasureError`` that
    ///   ``measure(_:style:width:)`` throws for it.
    /// - Complexity: The requests' measurements, spread over every core a few requests at a time.
    public func measure(_ requests: [MeasureRequest]) -> [Result<TextMeasurement, TextMeasureError>] {
        Self.concurrentMap(requests) { request in
            Result { () throws(TextMeasureError) -> TextMeasurement in
                try measure(request.text, style: request.style, width: request.width)
            }
        }
    }

    /// `transform` applied to every element on all cores, results in order.
    ///
    /// Elements are handed out a few at a time as cores become free (Dispatch's `concurrentPerform`),
    /// so a slow element holds up only its own small block. Blocks stay small because the elements
    /// here are measured texts (tens of microseconds each): with large blocks, one core can be left
    /// finishing a block of milliseconds while the others wait.
    @usableFromInline package static func concurrentMap<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        guard elements.count > 1 else { return elements.map(transform) }
        let blockSize = max(1, min(8, elements.count / 256))
        let blocks = (elements.count + blockSize - 1) / blockSize
        return [Result](unsafeUninitializedCapacity: elements.count) { buffer, initialized in
            let slots = SendableBuffer(buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: blocks) { block in
                for index in (block * blockSize)..<min(elements.count, (block + 1) * blockSize) {
                    // Each index is written by exactly one block.
                    (slots.base + index).initialize(to: transform(elements[index]))
                }
            }
            initialized = elements.count
        }
    }
}

/// A buffer's base address handed to concurrent closures that write disjoint elements.
package struct SendableBuffer<Element>: @unchecked Sendable {
    package let base: UnsafeMutablePointer<Element>
    package init(_ base: UnsafeMutablePointer<Element>) { self.base = base }
}
