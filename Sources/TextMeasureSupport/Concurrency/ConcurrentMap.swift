import Dispatch

/// Work spread over every core, results in order.
@usableFromInline
package enum ConcurrentMap {
    /// `transform` applied to every element on all cores, results in order.
    ///
    /// Elements are handed out a few at a time as cores become free (Dispatch's `concurrentPerform`),
    /// so a slow element holds up only its own small block. Blocks stay small because the elements
    /// here are measured texts (tens of microseconds each): with large blocks, one core can be left
    /// finishing a block of milliseconds while the others wait.
    @usableFromInline package static func map<Element: Sendable, Result: Sendable>(
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
@usableFromInline
package struct SendableBuffer<Element>: @unchecked Sendable {
    @usableFromInline package let base: UnsafeMutablePointer<Element>
    @inlinable package init(_ base: UnsafeMutablePointer<Element>) { self.base = base }
}
