import Synchronization

/// A reference made on first use and read without a lock from then on: what the lazily loaded parts
/// of fonts are kept in (a face's character map, a size's font of each face).
///
/// The first read that finds nothing makes the object and publishes it with one compare-and-exchange;
/// if several threads get there at once, each makes one, the first to publish wins, and the others
/// free theirs and return the winner. Every later read is one acquiring load (a plain load on x86-64,
/// `ldar` on arm64) and no reference counting: ``withObject(orMake:_:)`` lends the object to its body.
/// So the object must be cheap enough to make twice now and then, and its making must have no effect
/// that a second copy would repeat wrongly.
///
/// Thread safety: any number of threads at once; the object is published with release ordering and
/// read with acquire ordering, so whatever its initializer wrote is visible to every thread that
/// gets it. The object itself must be `Sendable` (immutable, here). Non-copyable and address-bound
/// (it holds an `Atomic`): store it in a class's `let`, or in memory that does not move.
@usableFromInline
package struct LazyReference<Object: AnyObject & Sendable>: ~Copyable, Sendable {
    @usableFromInline let storage = Atomic<Unmanaged<Object>?>(nil)

    /// A reference with nothing made yet.
    @inlinable
    package init() {}

    deinit {
        storage.load(ordering: .acquiring)?.release()
    }

    /// The object, if it has been made; nil before.
    @inlinable
    package var madeObject: Object? {
        storage.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    /// Lends the object to `body`, making it with `make` first if no thread has yet.
    ///
    /// - Parameters:
    ///   - make: Makes the object; called at most once per thread that finds none, outside any lock.
    ///   - body: Uses the object, which stays alive for the call (it is owned by this reference).
    /// - Returns: What `body` returns.
    /// - Complexity: O(1) once made: one atomic load.
    @inlinable @inline(__always)
    package func withObject<R>(orMake make: () -> Object, _ body: (Object) -> R) -> R {
        if let made = storage.load(ordering: .acquiring) { return made._withUnsafeGuaranteedRef(body) }
        return publish(make())._withUnsafeGuaranteedRef(body)
    }

    /// Stores `made` unless another thread stored first; returns what is stored.
    @usableFromInline @inline(never)
    func publish(_ made: Object) -> Unmanaged<Object> {
        let retained = Unmanaged.passRetained(made)
        let (exchanged, stored) = storage.compareExchange(expected: nil, desired: retained,
                                                          ordering: .acquiringAndReleasing)
        if exchanged { return retained }
        retained.release()   // another thread won: its object is the one everyone uses
        return stored!
    }
}
