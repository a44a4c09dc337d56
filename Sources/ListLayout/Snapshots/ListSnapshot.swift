/// The sections and items a list shows at one moment, identified for diffing: compare two snapshots
/// with ``changes(from:)`` to get the batch update between them.
///
/// ```swift
/// struct Message: Identifiable, Hashable, Sendable { let id: Int; var text: String }
///
/// let old = try ListSnapshot<String, Message>(sections: [ListSection(id: "today", items: messages)])
/// let new = try ListSnapshot<String, Message>(sections: [ListSection(id: "today", items: edited)])
/// let changes = new.changes(from: old)     // a ListChanges, indexes only
/// ```
///
/// **Identity and contents.** A section is identified by its ``ListSection/id``, an item by its
/// `id`: an item with the same identifier in two snapshots is the same item, moved or not. Its
/// contents are compared with `==`; an item whose contents changed is *updated*. Section identifiers
/// are unique in a snapshot, and item identifiers are unique across all its sections; the initializer
/// checks both, and throws rather than traps.
///
/// **Look-ups.** The snapshot keeps an index from item identifiers to positions (built by the
/// initializer, which has to hash every identifier anyway to find duplicates) and one from section
/// identifiers to indexes, so ``indexPath(of:)`` and ``sectionIndex(of:)`` are hash look-ups, and
/// diffing two snapshots hashes neither again. The item index costs about 20 bytes per item plus one
/// more copy of each identifier (open addressing, at most half full).
///
/// **Sendable.** An immutable value whose parts (arrays and a dictionary of `Sendable` identifiers
/// and items) are `Sendable`: make it on one thread, diff it on another.
public struct ListSnapshot<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable>: Sendable
where Item.ID: Sendable {
    /// A section of this snapshot.
    public typealias Section = ListSection<SectionID, Item>

    /// The snapshot's sections, in order.
    public let sections: [Section]
    /// The total number of items in all sections.
    public let numberOfItems: Int
    /// Where each item is, by flat position.
    @usableFromInline let itemIndex: ItemIndex<Item.ID>
    /// Where each section is.
    @usableFromInline let sectionIndexes: [SectionID: Int]
    /// For each section, the flat index of its first item (the number of items before it).
    @usableFromInline let sectionStarts: [Int]

    /// Creates an empty snapshot: no sections, no items.
    @inlinable
    public init() {
        sections = []
        numberOfItems = 0
        itemIndex = ItemIndex()
        sectionIndexes = [:]
        sectionStarts = []
    }

    /// An empty snapshot: no sections, no items.
    public static var empty: ListSnapshot { ListSnapshot() }

    /// Creates a snapshot of sections, checking that identifiers are unique.
    ///
    /// ```swift
    /// let snapshot = try ListSnapshot(sections: [
    ///     ListSection(id: "pinned", items: pinned),
    ///     ListSection(id: "recent", items: recent),
    /// ])
    /// ```
    ///
    /// - Parameter sections: The sections, in order. Empty sections are allowed.
    /// - Throws: ``ListSnapshotError/duplicateSection(_:)`` naming the first section identifier seen
    ///   twice, or ``ListSnapshotError/duplicateItem(_:)`` naming the first item identifier seen twice
    ///   (within a section or across two).
    /// - Complexity: O(*n*) expected, where *n* is the number of items and sections.
    @inlinable
    public init(sections: [Section]) throws(ListSnapshotError<SectionID, Item.ID>) {
        var total = 0
        var sectionStarts: [Int] = []
        sectionStarts.reserveCapacity(sections.count)
        for section in sections {
            sectionStarts.append(total)
            total += section.items.count
        }
        var sectionIndexes = [SectionID: Int](minimumCapacity: sections.count)
        var itemIndex = ItemIndex<Item.ID>(capacity: total)
        for (s, section) in sections.enumerated() {
            if sectionIndexes.updateValue(s, forKey: section.id) != nil {
                throw .duplicateSection(section.id)
            }
            for item in section.items where !itemIndex.append(item.id) {
                throw .duplicateItem(item.id)
            }
        }
        self.sections = sections
        self.numberOfItems = total
        self.itemIndex = itemIndex
        self.sectionIndexes = sectionIndexes
        self.sectionStarts = sectionStarts
    }

    /// Creates a snapshot of one section.
    ///
    /// - Parameters:
    ///   - items: The section's items, in order.
    ///   - sectionID: The section's identifier.
    /// - Throws: ``ListSnapshotError/duplicateItem(_:)`` naming the first item identifier seen twice.
    /// - Complexity: O(*n*) expected, where *n* is the number of items.
    @inlinable
    public init(items: [Item], inSection sectionID: SectionID) throws(ListSnapshotError<SectionID, Item.ID>) {
        try self.init(sections: [ListSection(id: sectionID, items: items)])
    }

    /// The number of sections.
    @inlinable
    public var numberOfSections: Int { sections.count }

    /// Whether the snapshot has no items (it may still have empty sections).
    @inlinable
    public var isEmpty: Bool { numberOfItems == 0 }

    /// The item at a path.
    ///
    /// - Parameter path: A valid path: `path.section` in `0..<numberOfSections` and `path.item` in that
    ///   section's items' indexes. A path out of range is a programming error and traps, as an array
    ///   subscript does.
    /// - Returns: The item.
    /// - Complexity: O(1).
    @inlinable
    public func item(at path: ItemPath) -> Item {
        sections[path.section].items[path.item]
    }

    /// The items at `paths`, in the same order.
    ///
    /// Inlinable so that the caller's item type specializes it: ``ListHeights`` gathers the rows to
    /// measure through it, and as generic code each item read copied its whole section through
    /// witness tables.
    ///
    /// - Parameter paths: Paths of items of this snapshot.
    /// - Returns: The items.
    /// - Complexity: O(*k*) for *k* paths.
    @inlinable
    func items(at paths: [ItemPath]) -> [Item] {
        var result: [Item] = []
        result.reserveCapacity(paths.count)
        sections.withUnsafeBufferPointer { sections in
            for path in paths {
                precondition(sections.indices.contains(path.section), "ListSnapshot: no section \(path.section)")
                result.append(sections[path.section].items[path.item])
            }
        }
        return result
    }

    /// The item with an identifier, if the snapshot holds it.
    ///
    /// - Parameter id: An item identifier.
    /// - Returns: The item, or `nil` when no item has that identifier.
    /// - Complexity: O(log *s*) expected for *s* sections; O(1) for one section.
    @inlinable
    public func item(withID id: Item.ID) -> Item? {
        itemIndex.position(of: id).map { item(at: indexPath(forFlatIndex: $0)) }
    }

    /// Where the item with an identifier is.
    ///
    /// - Parameter id: An item identifier.
    /// - Returns: The item's path, or `nil` when no item has that identifier.
    /// - Complexity: O(log *s*) expected for *s* sections; O(1) for one section.
    @inlinable
    public func indexPath(of id: Item.ID) -> ItemPath? {
        itemIndex.position(of: id).map(indexPath(forFlatIndex:))
    }

    /// Where the section with an identifier is.
    ///
    /// - Parameter id: A section identifier.
    /// - Returns: The section's index, or `nil` when no section has that identifier.
    /// - Complexity: O(1) expected.
    @inlinable
    public func sectionIndex(of id: SectionID) -> Int? {
        sectionIndexes[id]
    }

    /// The position of the item at a path when all sections' items are counted in one run, first
    /// section first: the row index for a flat row store such as ``RowOffsetIndex``.
    ///
    /// - Parameter path: A valid path, as for ``item(at:)``; `path.item` may also equal its section's
    ///   item count (the position after the section's last item). A path out of range is a programming
    ///   error and traps.
    /// - Returns: The number of items before `path`.
    /// - Complexity: O(1).
    @inlinable
    public func flatIndex(of path: ItemPath) -> Int {
        precondition(path.item >= 0 && path.item <= sections[path.section].items.count,
                     "item \(path.item) out of range for section \(path.section)")
        return sectionStarts[path.section] + path.item
    }

    /// The path of the item at a position when all sections' items are counted in one run.
    ///
    /// - Parameter flatIndex: A position in `0..<numberOfItems`. A position out of range is a
    ///   programming error and traps.
    /// - Returns: The path of the item at that position (never in an empty section).
    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable
    public func indexPath(forFlatIndex flatIndex: Int) -> ItemPath {
        precondition(flatIndex >= 0 && flatIndex < numberOfItems, "flat index \(flatIndex) out of 0..<\(numberOfItems)")
        // The last section starting at or before `flatIndex`: empty sections share their start with the
        // next one, and the last of them is the one holding the item.
        var low = 0
        var high = sectionStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if sectionStarts[mid] <= flatIndex { low = mid } else { high = mid - 1 }
        }
        return ItemPath(section: low, item: flatIndex - sectionStarts[low])
    }

    /// Whether the snapshot holds an item with this identifier.
    ///
    /// - Parameter id: An item identifier.
    /// - Returns: `true` when some section holds an item with that identifier.
    /// - Complexity: O(1) expected.
    @inlinable
    public func contains(_ id: Item.ID) -> Bool {
        itemIndex.position(of: id) != nil
    }
}

extension ListSnapshot: Equatable {
    /// Whether two snapshots hold the same sections with the same items (identifiers and contents) in
    /// the same order.
    ///
    /// - Parameters:
    ///   - lhs: A snapshot.
    ///   - rhs: Another snapshot.
    /// - Returns: `true` when the snapshots hold the same sections and items.
    /// - Complexity: O(*n*) where *n* is the number of items; O(1) for copies of one snapshot.
    public static func == (lhs: ListSnapshot, rhs: ListSnapshot) -> Bool {
        lhs.sections == rhs.sections
    }
}
