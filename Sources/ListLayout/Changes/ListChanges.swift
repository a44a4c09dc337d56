/// The batch update that turns one ``ListSnapshot`` into another, by index, in the shape UIKit's
/// `performBatchUpdates(_:)` and AppKit's table and collection views accept.
///
/// Get one from ``ListSnapshot/changes(from:)``, and hand it to the list in one batch:
///
/// ```swift
/// extension IndexPath {
///     init(_ path: ItemPath) { self.init(item: path.item, section: path.section) }
/// }
///
/// let changes = new.changes(from: old)
/// collectionView.performBatchUpdates {
///     dataSource.snapshot = new
///     collectionView.deleteSections(IndexSet(changes.deletedSections))
///     collectionView.insertSections(IndexSet(changes.insertedSections))
///     for move in changes.movedSections { collectionView.moveSection(move.from, toSection: move.to) }
///     collectionView.deleteItems(at: changes.deletedItems.map(IndexPath.init))
///     collectionView.insertItems(at: changes.insertedItems.map(IndexPath.init))
///     for move in changes.movedItems {
///         collectionView.moveItem(at: IndexPath(move.from), to: IndexPath(move.to))
///     }
/// }
/// collectionView.reconfigureItems(at: changes.updatedItems.map(IndexPath.init))   // after the batch
/// ```
///
/// **Which snapshot an index refers to.** Deletions and every move's `from` are indexes in the old
/// snapshot; insertions, every move's `to` and ``updatedItems`` are indexes in the new one.
///
/// **The rules a batch from ``ListSnapshot/changes(from:)`` keeps** (UIKit rejects a batch that
/// breaks them):
/// - Items come and go with their section: no item change points into a deleted section (old side) or
///   an inserted section (new side).
/// - No index appears twice in one list; an item is never both deleted and moved.
/// - A section or an item present in both snapshots is moved or left alone, never deleted and inserted
///   again — except an item whose section goes away while the item lives on in another section (an
///   insertion there), or an item that moves into a new section (a deletion where it was).
/// - Moves are as few as possible: items outside a longest increasing subsequence of each section's
///   staying items move, and so does every item that changes section; sections likewise.
/// - Replaying the batch on the old snapshot gives the new one, and every surviving section's count
///   adds up (new = old − deleted − moved out + inserted + moved in).
///
/// Every list is sorted ascending (moves by their `to`).
///
/// A value type of integer arrays: `Sendable`.
public struct ListChanges: Hashable, Sendable {
    /// Indexes in the old snapshot of the sections removed, ascending.
    public var deletedSections: [Int]
    /// Indexes in the new snapshot of the sections added, ascending. An inserted section arrives with
    /// all its items; none of them appears in ``insertedItems``.
    public var insertedSections: [Int]
    /// Sections present in both snapshots whose position changed beyond what deletions and insertions
    /// explain, from old index to new index, ascending by new index.
    public var movedSections: [ListMove<Int>]
    /// Paths in the old snapshot of the items removed from sections that stay, ascending.
    public var deletedItems: [ItemPath]
    /// Paths in the new snapshot of the items added to sections that were already there, ascending.
    public var insertedItems: [ItemPath]
    /// Items present in both snapshots, in sections present in both, that moved: to another section,
    /// or out of their section's longest run of items kept in order. Old path to new path, ascending by
    /// new path.
    public var movedItems: [ListMove<ItemPath>]
    /// Paths in the new snapshot of items present in both snapshots (moved or not, and neither inserted
    /// nor deleted) whose contents differ (`!=`), ascending: the cells to reconfigure after the batch.
    public var updatedItems: [ItemPath]

    /// Creates a batch from its lists; ``ListSnapshot/changes(from:)`` is the usual way to get one.
    ///
    /// - Parameters:
    ///   - deletedSections: Old indexes of removed sections.
    ///   - insertedSections: New indexes of added sections.
    ///   - movedSections: Moved sections, old index to new index.
    ///   - deletedItems: Old paths of removed items.
    ///   - insertedItems: New paths of added items.
    ///   - movedItems: Moved items, old path to new path.
    ///   - updatedItems: New paths of items whose contents changed.
    public init(
        deletedSections: [Int] = [], insertedSections: [Int] = [], movedSections: [ListMove<Int>] = [],
        deletedItems: [ItemPath] = [], insertedItems: [ItemPath] = [], movedItems: [ListMove<ItemPath>] = [],
        updatedItems: [ItemPath] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.movedSections = movedSections
        self.deletedItems = deletedItems
        self.insertedItems = insertedItems
        self.movedItems = movedItems
        self.updatedItems = updatedItems
    }

    /// Whether the batch changes nothing: all seven lists are empty.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty
            && deletedItems.isEmpty && insertedItems.isEmpty && movedItems.isEmpty && updatedItems.isEmpty
    }
}

extension ListChanges: CustomStringConvertible {
    /// The non-empty lists, for logs and test failures.
    public var description: String {
        var parts: [String] = []
        func add<T>(_ name: String, _ list: [T]) {
            if !list.isEmpty { parts.append("\(name): \(list.map { "\($0)" }.joined(separator: ", "))") }
        }
        add("deletedSections", deletedSections)
        add("insertedSections", insertedSections)
        add("movedSections", movedSections)
        add("deletedItems", deletedItems)
        add("insertedItems", insertedItems)
        add("movedItems", movedItems)
        add("updatedItems", updatedItems)
        return parts.isEmpty ? "ListChanges(no changes)" : "ListChanges(\(parts.joined(separator: "; ")))"
    }
}
