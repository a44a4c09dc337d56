extension ListSnapshot {
    /// The batch update that turns `old` into this snapshot.
    ///
    /// ```swift
    /// let changes = new.changes(from: old)
    /// if !changes.isEmpty { apply(changes) }
    /// ```
    ///
    /// Sections and items are matched by identifier (Heckel's method: one hash look-up per element,
    /// using the index each snapshot keeps); of the sections, and of each section's items, that stay in
    /// place, the longest run kept in order is left alone and the rest move, so the batch has as few
    /// moves as possible. Items that change section always move. See ``ListChanges`` for the rules the
    /// batch keeps; UIKit accepts it as it is, with no reload.
    ///
    /// - Parameter old: The snapshot the list shows now.
    /// - Returns: The deletions (old indexes), insertions (new indexes), moves and updates (new indexes)
    ///   that turn `old` into `self`.
    /// - Complexity: O(*n* + *m* log *m*) expected, where *n* is the number of items and sections in
    ///   both snapshots and *m* the number of items whose relative order changed; O(*n*) comparisons
    ///   with no hashing when the identifiers are the same in the same order.
    public func changes(from old: ListSnapshot) -> ListChanges {
        var differ = ListDiffer(old: old, new: self)
        return differ.run()
    }
}
