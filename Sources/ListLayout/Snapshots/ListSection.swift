/// One section of a ``ListSnapshot``: an identifier and the items shown under it, in order.
///
/// ```swift
/// let today = ListSection(id: "today", items: todaysMessages)
/// ```
///
/// A section's identity is its ``id``: two snapshots holding a section with the same identifier hold
/// the same section, wherever it is and whatever it contains.
///
/// `Sendable`, since its identifier and items are.
public struct ListSection<ID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable>: Identifiable,
    Hashable, Sendable where Item.ID: Sendable
{
    /// The section's identifier, unique within a snapshot.
    public var id: ID
    /// The section's items, in the order the list shows them.
    public var items: [Item]

    /// Creates a section.
    ///
    /// - Parameters:
    ///   - id: The section's identifier, unique within a snapshot.
    ///   - items: The section's items, in order. Item identifiers must be unique across the whole
    ///     snapshot; ``ListSnapshot/init(sections:)`` checks.
    @inlinable
    public init(id: ID, items: [Item] = []) {
        self.id = id
        self.items = items
    }
}
