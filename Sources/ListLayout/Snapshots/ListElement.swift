/// One entry of a list's vertical layout: a section's header, an item's row, or a section's footer.
///
/// ```swift
/// switch list.element(atOffset: y) {
/// case .header(let section)?: print("header of section \(section)")
/// case .item(let path)?:      print("row \(path)")
/// case .footer(let section)?: print("footer of section \(section)")
/// case nil:                   print("outside the content")
/// }
/// ```
///
/// A plain value: `Sendable`.
public enum ListElement: Hashable, Sendable {
    /// The header of the section at this index.
    case header(section: Int)
    /// The row of the item at this path.
    case item(ItemPath)
    /// The footer of the section at this index.
    case footer(section: Int)
}
