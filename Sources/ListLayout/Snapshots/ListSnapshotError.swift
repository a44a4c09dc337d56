/// Why a ``ListSnapshot`` could not be made: an identifier that appears twice.
///
/// ```swift
/// do {
///     let snapshot = try ListSnapshot(sections: sections)
/// } catch {
///     switch error {   // typed throws: `error` is a ListSnapshotError
///     case .duplicateSection(let id): print("section \(id) appears twice")
///     case .duplicateItem(let id): print("item \(id) appears twice")
///     }
/// }
/// ```
///
/// `Sendable`, since both identifier types are.
public enum ListSnapshotError<SectionID: Hashable & Sendable, ItemID: Hashable & Sendable>: Error, Hashable {
    /// Two sections share this identifier.
    case duplicateSection(SectionID)
    /// Two items share this identifier, in one section or in two.
    case duplicateItem(ItemID)
}

extension ListSnapshotError: CustomStringConvertible {
    /// A sentence naming the repeated identifier.
    public var description: String {
        switch self {
        case .duplicateSection(let id): "Duplicate section identifier \(id) in a list snapshot"
        case .duplicateItem(let id): "Duplicate item identifier \(id) in a list snapshot"
        }
    }
}
