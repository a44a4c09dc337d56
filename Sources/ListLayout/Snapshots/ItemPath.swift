/// The position of an item in a ``ListSnapshot``: its section's index, then its index inside that
/// section.
///
/// Paths order by section first, then by item, the way a list shows them:
///
/// ```swift
/// ItemPath(section: 0, item: 9) < ItemPath(section: 1, item: 0)   // true
/// ```
///
/// A plain value: `Sendable`, and safe to share between threads.
public struct ItemPath: Hashable, Comparable, Sendable {
    /// The index of the section.
    public var section: Int
    /// The index of the item inside its section.
    public var item: Int

    /// Creates a path from a section index and an item index.
    ///
    /// - Parameters:
    ///   - section: The index of the section.
    ///   - item: The index of the item inside that section.
    @inlinable
    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    /// Whether `lhs` comes before `rhs` in the list: an earlier section, or the same section and an
    /// earlier item.
    ///
    /// - Parameters:
    ///   - lhs: A path.
    ///   - rhs: Another path.
    /// - Returns: `true` when `lhs` comes first.
    @inlinable
    public static func < (lhs: ItemPath, rhs: ItemPath) -> Bool {
        lhs.section != rhs.section ? lhs.section < rhs.section : lhs.item < rhs.item
    }
}

extension ItemPath: CustomStringConvertible {
    /// The path as `[section, item]`, like `IndexPath`.
    public var description: String { "[\(section), \(item)]" }
}
