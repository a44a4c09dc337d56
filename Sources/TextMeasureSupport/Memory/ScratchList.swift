/// A list of plain values (no references inside) in memory that a ``PrepareScratch`` owns and frees:
/// appending checks only the capacity, and emptying the list sets its count to 0. No uniqueness check
/// or reference count per append, which an `Array` kept in the scratch pays, nor the
/// `removeAll(keepingCapacity:)` that hands it back.
///
/// A copy shares the memory: use one copy at a time, and store it back in the scratch when done (it
/// may have grown into new memory). Elements are set in place through any copy.
@usableFromInline
package struct ScratchList<Element>: RandomAccessCollection {
    @usableFromInline var base: UnsafeMutablePointer<Element>?
    @usableFromInline package internal(set) var count = 0
    @usableFromInline package internal(set) var capacity = 0

    @inlinable
    package init() {
        assert(_isPOD(Element.self), "ScratchList holds plain values only")
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { count }

    /// Addressors, not a getter and setter: reading a field of an element reads it in place instead of
    /// copying the whole element out first (the shaped-word cache's lists hold elements of 70 to 230
    /// bytes, and check one field of them per piece).
    @inlinable
    package subscript(index: Int) -> Element {
        unsafeAddress {
            assert(index >= 0 && index < count)
            return UnsafePointer(base.unsafelyUnwrapped + index)
        }
        nonmutating unsafeMutableAddress {
            assert(index >= 0 && index < count)
            return base.unsafelyUnwrapped + index
        }
    }

    @inlinable @inline(__always)
    package mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// Empties the list, keeping its memory.
    @inlinable
    package mutating func removeAll() {
        count = 0
    }

    /// Removes the elements `shouldRemove` picks, keeping the others in order, in one pass.
    ///
    /// - Parameter shouldRemove: Called once per element, in order.
    /// - Complexity: O(*n*).
    @inlinable
    package mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = 0
        for index in 0..<count where !shouldRemove(self[index]) {
            if kept != index { self[kept] = self[index] }
            kept += 1
        }
        count = kept
    }

    /// Frees the memory (the list is empty afterwards).
    @inlinable
    package mutating func deallocate() {
        base?.deallocate()
        base = nil
        count = 0
        capacity = 0
    }

    @usableFromInline @inline(never)
    mutating func grow() {
        let newCapacity = Swift.max(16, 2 * capacity)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }
}
