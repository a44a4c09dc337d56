import TextMeasureSupport
import Dispatch

/// The heights and offsets of a list's rows, following the list through its snapshots: apply a new
/// ``ListSnapshot`` and get the batch update for the view, with only the new and changed rows
/// measured; ask where a row is, which row is at an offset, how tall the content is.
///
/// ```swift
/// let cache = try HeightCache(layout: messageRow, measurer: TextMeasurer())
/// let list = ListHeights<String, Message>(cache: cache, width: 390)
///
/// let changes = list.apply(snapshot)               // first apply: everything inserted
/// list.totalHeight                                 // the content height
/// list.offset(of: ItemPath(section: 0, item: 3))   // y of the row's top
/// list.itemPath(atOffset: contentOffset)           // the row at the top of the viewport
///
/// // Older messages arrive while the user reads: the row they read stays where it is.
/// let (batch, offset) = list.apply(withOlder, anchor: contentOffset)
/// ```
///
/// **Layout.** Each section is a header, its items' rows, then a footer, stacked with no gaps. Header
/// and footer heights come from the closures given at creation (0 by default). Heights are kept in
/// integer units of 1/1024 px, so an offset is exactly the sum of the heights above it, however many
/// edits came before; the heights this type reports are those units in pixels.
///
/// **Measuring.** ``Measuring/eager`` measures every row of a snapshot when it is applied (new rows
/// on all cores, through ``HeightCache/prefetch(_:width:)``); ``Measuring/lazy(overscan:)`` gives
/// rows an estimate (``HeightCache/estimatedHeight(for:width:conservative:)``) until they come near
/// the viewport (``prepareRows(in:)``) or are prefetched (``prefetch(_:)``), for lists of millions
/// of rows. Either way a row whose contents did not change is never measured again: moved rows and
/// rows that kept their contents keep their heights.
///
/// **Large lazy lists.** When a lazy list's first apply brings 65,536 rows or more and the cache
/// estimates each row from its contents (a row layout, or an `estimate` closure), every row first
/// counts with one provisional height, the mean estimate of 1,024 rows spread over the list, so the
/// apply costs no more than building the offsets; each row's own estimate is then written in the
/// background, in list order. Rows above the viewport that change move the content: the next
/// ``prepareRows(in:)`` (or anchored apply or width change) returns that movement in its correction,
/// so the row the reader sees stays where it is.
///
/// **Cost.** Applying a snapshot costs its diff (``ListSnapshot/changes(from:)``, O(n)), the new
/// rows' measurements, and O(k log n) for k changed rows; the first apply builds the offsets in
/// O(n), with no per-row look-up. ``offset(of:)-(ItemPath)``, ``itemPath(atOffset:)`` and ``height(of:)-(ItemPath)`` take
/// O(log n). A width change re-lays out every row: O(n) look-ups, with heights whose valid width range
/// still holds reused.
///
/// **Thread safety.** Every method may be called from any thread at any time. The offsets and the
/// current snapshot live behind one lock, held only for O(k log n) work, never while measuring:
/// readers (the view asking for offsets while scrolling) never wait for a measurement. Edits that
/// measure (``apply(_:reconfiguring:)``, ``setWidth(_:)``) are serialized with each other by a second
/// lock held while they measure. While a ``ListUpdater`` drives a list, change the list's snapshot
/// only through the updater, so that what it delivers matches what the view shows.
///
/// **Sendable**: all mutable state is inside `Locked` values of `Sendable` state; the closures are
/// `@Sendable`.
public final class ListHeights<SectionID: Hashable & Sendable, Item: Identifiable & Hashable & Sendable>: Sendable
where Item.ID: Sendable {
    /// The snapshots this list lays out.
    public typealias Snapshot = ListSnapshot<SectionID, Item>

    /// When rows are measured.
    public enum Measuring: Hashable, Sendable {
        /// Every row is measured when its snapshot is applied (or the width changes).
        case eager
        /// Rows count with an estimate until they come within `overscan` pixels of the viewport
        /// (``ListHeights/prepareRows(in:)``) or are prefetched (``ListHeights/prefetch(_:)``).
        case lazy(overscan: Double)
    }

    /// Everything the lock guards.
    struct State: Sendable {
        var snapshot: Snapshot
        var tree: OffsetTree
        var width: Double
        /// Bumped by every change of the list's structure or width (not by a height turning exact),
        /// so that work prepared outside the lock can tell it is stale.
        var version: Int
        /// Eager mode: the rows' valid widths from the last width change, while they still hold.
        var rowRanges: RowRanges? = nil
        /// Lazy mode: rows still counting with a provisional estimate, refined in the background.
        var refinement: Refinement? = nil
        /// The top of the viewport last given to ``prepareRows(in:)``, in units of today's offsets
        /// (moved along when background refinement changes rows above it).
        var viewportTop: Int64 = 0
        /// How far background refinement moved the content above ``viewportTop`` since the view was
        /// last told (by ``prepareRows(in:)`` or an anchored apply or width change), in units.
        var pendingCorrection: Int64 = 0
    }

    /// Every row's valid width range from the last width change, in list order, for as long as the
    /// list (`version`) and the cache (its `generation`) stay as they were then: the next width asks
    /// the cache only for the rows whose range does not hold it, so a drag step costs a range check
    /// per row plus the rows whose lines change.
    struct RowRanges: Sendable {
        var ranges: [Range<Double>]
        /// The rows' `hashValue`s, so that the rows asked for again are not hashed again.
        var modelHashes: [Int]
        var version: Int
        var cacheGeneration: Int
    }

    /// The cache rows are measured through.
    public let cache: HeightCache<Item>
    /// When rows are measured.
    public let measuring: Measuring
    let headerHeight: @Sendable (SectionID, Double) -> Double
    let footerHeight: @Sendable (SectionID, Double) -> Double
    let state: Locked<State>
    /// Serializes the edits that measure; held while they measure, never by readers.
    let edits = Locked(())
    /// `new.changes(from: old)`, compiled where the list was made, for its item type: a generic class's
    /// methods are compiled once for every type, and the diff run as generic code took three times as
    /// long (on a million rows).
    @usableFromInline let diff: @Sendable (_ new: Snapshot, _ old: Snapshot) -> ListChanges
    /// `snapshot.items(at: paths)`, compiled where the list was made, for the same reason: the rows an
    /// apply measures are gathered through it.
    @usableFromInline let items: @Sendable (_ snapshot: Snapshot, _ paths: [ItemPath]) -> [Item]
    /// Bumped by ``cancelPrefetch()``: prefetch work started under an older value stops.
    let prefetchGeneration = Locked(0)
    /// Prefetch work under way (tests wait on it).
    let prefetchGroup = DispatchGroup()
    /// Background refinement under way (tests wait on it).
    let refinementGroup = DispatchGroup()
    /// When set (tests), a refinement is started but its steps are left to the caller (``refineStep(token:)``).
    let refinesByHand = Locked(false)

    /// A list with no sections yet, laid out at `width`.
    ///
    /// ```swift
    /// let list = ListHeights<String, Message>(cache: cache, width: 390)
    /// let huge = ListHeights<Int, Row>(cache: rows, width: 390, measuring: .lazy(overscan: 800))
    /// let grouped = ListHeights<String, Contact>(cache: contacts, width: 390,
    ///                                            sectionHeaderHeight: { _, _ in 28 })
    /// ```
    ///
    /// - Parameters:
    ///   - cache: Measures rows and keeps their heights (and their valid width ranges).
    ///   - width: The width rows are laid out at: a finite number greater than 0 (a precondition).
    ///   - measuring: ``Measuring/eager`` (the default) or ``Measuring/lazy(overscan:)``.
    ///   - sectionHeaderHeight: The height of a section's header at a width (finite, not negative);
    ///     asked when the section first appears and when the width changes. No header by default.
    ///   - sectionFooterHeight: The same for footers.
    @inlinable
    public convenience init(
        cache: HeightCache<Item>, width: Double, measuring: Measuring = .eager,
        sectionHeaderHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double = { _, _ in 0 },
        sectionFooterHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double = { _, _ in 0 }
    ) {
        self.init(cache: cache, width: width, measuring: measuring, sectionHeaderHeight: sectionHeaderHeight,
                  sectionFooterHeight: sectionFooterHeight, diff: { new, old in new.changes(from: old) },
                  items: { snapshot, paths in snapshot.items(at: paths) })
    }

    /// A list with no sections yet, laid out at `width`, whose rows are as tall as `height` says: an
    /// app's own sizing, or the answers of a service. Heights are cached by width and item (a
    /// ``HeightCache`` around `height`), so each row is asked once per width.
    ///
    /// ```swift
    /// let list = ListHeights<String, Message>(width: 390) { message, width in
    ///     message.hasImage ? 240 : 56
    /// }
    /// let changes = list.apply(snapshot)
    /// ```
    ///
    /// - Parameters:
    ///   - width: The width rows are laid out at: a finite number from 0.001 to 1,000,000,000 (a
    ///     precondition).
    ///   - measuring: ``Measuring/eager`` (the default) or ``Measuring/lazy(overscan:)``.
    ///   - capacity: The most row heights cached: at least 1 (a precondition); more than
    ///     ``HeightCache/maximumCapacity`` counts as that.
    ///   - sectionHeaderHeight: The height of a section's header at a width (finite, not negative).
    ///   - sectionFooterHeight: The same for footers.
    ///   - height: A row's height at a width: finite, not negative. Called from any thread, outside the
    ///     list's locks; callers asking for the same row and width at once share one call.
    ///   - estimate: A cheap estimate of a row's height before it is asked for (lazy mode), or nil to
    ///     estimate from the heights seen so far.
    /// - Complexity: O(1); the cache reserves storage for `min(capacity, 100_000)` heights (address
    ///   space, mapped as heights fill it).
    @inlinable
    public convenience init(
        width: Double, measuring: Measuring = .eager, capacity: Int = 10_000,
        sectionHeaderHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double = { _, _ in 0 },
        sectionFooterHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double = { _, _ in 0 },
        estimate: (@Sendable (_ item: Item, _ width: Double) -> HeightEstimate)? = nil,
        height: @escaping @Sendable (_ item: Item, _ width: Double) -> Double
    ) {
        self.init(cache: HeightCache(capacity: capacity, measure: height, estimate: estimate), width: width,
                  measuring: measuring, sectionHeaderHeight: sectionHeaderHeight,
                  sectionFooterHeight: sectionFooterHeight)
    }

    @usableFromInline
    init(
        cache: HeightCache<Item>, width: Double, measuring: Measuring,
        sectionHeaderHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double,
        sectionFooterHeight: @escaping @Sendable (_ section: SectionID, _ width: Double) -> Double,
        diff: @escaping @Sendable (_ new: Snapshot, _ old: Snapshot) -> ListChanges,
        items: @escaping @Sendable (_ snapshot: Snapshot, _ paths: [ItemPath]) -> [Item]
    ) {
        self.diff = diff
        self.items = items
        precondition(WidthLimits.isValid(width),
                     "ListHeights: \(WidthLimits.outOfRange(width))")
        if case .lazy(let overscan) = measuring {
            precondition(overscan.isFinite && overscan >= 0, "ListHeights: overscan must be finite and not negative")
        }
        self.cache = cache
        self.measuring = measuring
        headerHeight = sectionHeaderHeight
        footerHeight = sectionFooterHeight
        state = Locked(State(snapshot: Snapshot(), tree: OffsetTree(), width: width, version: 0))
    }

    // MARK: Reading

    /// The snapshot last applied (empty before the first).
    public var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// The width rows are laid out at.
    public var width: Double { state.withLock { $0.width } }

    /// The content height: every header, row and footer.
    /// - Complexity: O(1).
    public var totalHeight: Double { state.withLock { OffsetTree.pixels($0.tree.total) } }

    /// The height of an item's row.
    ///
    /// - Parameter path: A path in the current snapshot.
    /// - Returns: The row's height (an estimate for a row not measured yet in lazy mode), or `nil` when
    ///   `path` is out of range.
    /// - Complexity: O(log n).
    public func height(of path: ItemPath) -> Double? {
        height(of: .item(path))
    }

    /// The offset of an item's row: the y of its top, the sum of everything above it.
    ///
    /// - Parameter path: A path in the current snapshot.
    /// - Returns: The offset, or `nil` when `path` is out of range.
    /// - Complexity: O(log n).
    public func offset(of path: ItemPath) -> Double? {
        offset(of: .item(path))
    }

    /// The height of a header, a row or a footer.
    ///
    /// - Parameter element: An element of the current snapshot.
    /// - Returns: Its height, or `nil` when its section or item is out of range.
    /// - Complexity: O(log n).
    public func height(of element: ListElement) -> Double? {
        state.withLock { state in
            Self.index(of: element, in: state).map { OffsetTree.pixels(state.tree.entry(at: $0).height) }
        }
    }

    /// The offset of a header, a row or a footer.
    ///
    /// - Parameter element: An element of the current snapshot.
    /// - Returns: The y of its top, or `nil` when its section or item is out of range.
    /// - Complexity: O(log n).
    public func offset(of element: ListElement) -> Double? {
        state.withLock { state in
            Self.index(of: element, in: state).map { OffsetTree.pixels(state.tree.offset(of: $0)) }
        }
    }

    /// The header, row or footer whose span holds `offset`. Elements of height 0 hold no offset.
    ///
    /// - Parameter offset: A y in the content.
    /// - Returns: The element, or `nil` when `offset` is outside `0..<totalHeight`.
    /// - Complexity: O(log n).
    public func element(atOffset offset: Double) -> ListElement? {
        guard offset.isFinite else { return nil }
        return state.withLock { state in
            state.tree.index(containing: Self.units(atOffset: offset)).map { Self.element(at: $0, in: state) }
        }
    }

    /// The item whose row holds `offset`: the row at the top of a viewport scrolled to `offset`.
    ///
    /// An offset on a section's header or footer gives the first item below it; past the last item,
    /// the last item above it.
    ///
    /// - Parameter offset: A y in the content.
    /// - Returns: The item's path, or `nil` when `offset` is outside `0..<totalHeight` or the list has no
    ///   items.
    /// - Complexity: O(log n), plus the empty sections skipped.
    public func itemPath(atOffset offset: Double) -> ItemPath? {
        guard offset.isFinite else { return nil }
        return state.withLock { state -> ItemPath? in
            guard let index = state.tree.index(containing: Self.units(atOffset: offset)) else { return nil }
            let sections = state.snapshot.sections
            switch Self.element(at: index, in: state) {
            case .item(let path):
                return path
            case .header(let section):
                return Self.firstItem(from: section, in: sections) ?? Self.lastItem(through: section - 1, in: sections)
            case .footer(let section):
                return Self.firstItem(from: section + 1, in: sections) ?? Self.lastItem(through: section, in: sections)
            }
        }
    }

    // MARK: Internals shared by the extensions

    /// An offset in pixels as units, rounded down so that it falls inside the entry that holds it.
    static func units(atOffset offset: Double) -> Int64 {
        let scaled = (offset * OffsetTree.unitsPerPixel).rounded(.down)
        if scaled >= Double(Int64.max) { return .max }
        if scaled <= Double(Int64.min) { return .min }
        return Int64(scaled)
    }

    /// The entry index of an element, or `nil` when it is out of range in the state's snapshot.
    static func index(of element: ListElement, in state: State) -> Int? {
        index(of: element, tree: state.tree, snapshot: state.snapshot)
    }

    static func index(of element: ListElement, tree: OffsetTree, snapshot: Snapshot) -> Int? {
        let sections = snapshot.sections
        switch element {
        case .header(let section):
            guard sections.indices.contains(section) else { return nil }
            return tree.indexOfMark(section)
        case .footer(let section):
            guard sections.indices.contains(section) else { return nil }
            return tree.indexOfMark(section + 1) - 1
        case .item(let path):
            guard sections.indices.contains(path.section),
                  sections[path.section].items.indices.contains(path.item) else { return nil }
            return tree.indexOfMark(path.section) + 1 + path.item
        }
    }

    /// The element at an entry index.
    static func element(at index: Int, in state: State) -> ListElement {
        element(at: index, tree: state.tree, snapshot: state.snapshot)
    }

    static func element(at index: Int, tree: OffsetTree, snapshot: Snapshot) -> ListElement {
        let section = tree.markCount(before: index + 1) - 1
        let item = index - tree.indexOfMark(section) - 1
        if item < 0 { return .header(section: section) }
        if item == snapshot.sections[section].items.count { return .footer(section: section) }
        return .item(ItemPath(section: section, item: item))
    }

    static func firstItem(from section: Int, in sections: [Snapshot.Section]) -> ItemPath? {
        guard section < sections.count else { return nil }
        for s in max(0, section)..<sections.count where !sections[s].items.isEmpty {
            return ItemPath(section: s, item: 0)
        }
        return nil
    }

    static func lastItem(through section: Int, in sections: [Snapshot.Section]) -> ItemPath? {
        guard section >= 0 else { return nil }
        for s in stride(from: min(section, sections.count - 1), through: 0, by: -1) where !sections[s].items.isEmpty {
            return ItemPath(section: s, item: sections[s].items.count - 1)
        }
        return nil
    }

    /// The header and footer entries of a section at a width.
    func supplements(of section: SectionID, width: Double) -> (header: OffsetTree.Entry, footer: OffsetTree.Entry) {
        (OffsetTree.Entry(height: OffsetTree.units(headerHeight(section, width)), kind: .header),
         OffsetTree.Entry(height: OffsetTree.units(footerHeight(section, width)), kind: .footer))
    }

    /// Every entry of the tree, for tests.
    var entries: [OffsetTree.Entry] { state.withLock { $0.tree.entries } }
}
