extension ListSnapshot {
    /// The batch update that turns `old` into this snapshot.
    ///
    /// ```swift
    /// let changes = new.changes(from: old)
    /// if !changes.isEmpty { apply(changes) }
    /// ```
    ///
    /// Sections and items are matched by identifier, Heckel's way: through the index each snapshot
    /// keeps, with one hash look-up at the start of each run of items kept in order (the next items of
    /// a run are matched by comparing identifiers). Of the sections, and of each section's items, that
    /// stay, the longest run kept in order (a longest increasing subsequence, by patience sorting) is
    /// left alone and the rest move, so the batch has as few moves as possible; items that change
    /// section always move. See ``ListChanges`` for the rules the batch keeps; UIKit accepts it as it
    /// is, with no reload.
    ///
    /// The `ListBenchmarks` target in `Benchmarks/` compares it with the standard library's
    /// `difference(from:).inferringMoves()` on large lists.
    ///
    /// - Parameter old: The snapshot the list shows now.
    /// - Returns: The deletions (old indexes), insertions (new indexes), moves and updates (new indexes)
    ///   that turn `old` into `self`.
    /// - Complexity: O(*n* + *m* log *m*) expected, where *n* is the number of items and sections in
    ///   both snapshots and *m* the number of items of a section that changed place within it; O(*n*)
    ///   identifier and content comparisons and no hashing when the identifiers are the same in the
    ///   same order; O(number of sections) for sections whose item arrays share storage.
    @inlinable
    public func changes(from old: ListSnapshot) -> ListChanges {
        var differ = ListDiffer(old: old, new: self)
        return differ.run()
    }
}
