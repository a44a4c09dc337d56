/// A section or an item that moves in a batch update: its index in the old snapshot and its index in
/// the new one.
///
/// ``ListChanges`` uses `ListMove<Int>` for sections and `ListMove<ItemPath>` for items.
///
/// `Sendable` when its index type is, which both of those are.
public struct ListMove<Index: Hashable & Sendable>: Hashable, Sendable {
    /// Where the moving element is in the old snapshot.
    public var from: Index
    /// Where the moving element is in the new snapshot.
    public var to: Index

    /// Creates a move.
    ///
    /// - Parameters:
    ///   - from: The element's index in the old snapshot.
    ///   - to: The element's index in the new snapshot.
    @inlinable
    public init(from: Index, to: Index) {
        self.from = from
        self.to = to
    }
}

extension ListMove: CustomStringConvertible {
    /// The move as `from → to`.
    public var description: String { "\(from) → \(to)" }
}
