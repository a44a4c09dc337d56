import Testing
import TextMeasureSupport
@testable import ListLayout

/// Records every measurement, from any thread.
final class MeasureLog: Sendable {
    private let ids = Locked([Int]())
    func record(_ id: Int) { ids.withLock { $0.append(id) } }
    var count: Int { ids.withLock { $0.count } }
    var measured: [Int] { ids.withLock { $0.sorted() } }
    func reset() { ids.withLock { $0.removeAll() } }
}

typealias PostList = ListHeights<String, Post>

/// Heights and layouts shared by the list tests. Heights are whole pixels, so units compare exactly.
enum ListFixture {
    static func height(_ post: Post, width: Double) -> Double {
        Double(20 + (post.id * 7) % 31) + Double(post.text.count) * 4 + (width < 300 ? 16 : 0)
    }

    static func headerHeight(_ section: String, width: Double) -> Double { Double(section.count * 3) }
    static func footerHeight(_ section: String, width: Double) -> Double { section.hasSuffix("1") ? 0 : 5 }

    static func cache(_ log: MeasureLog, capacity: Int = 10_000) -> HeightCache<Post> {
        HeightCache<Post>(capacity: capacity, measure: { post, width in
            log.record(post.id)
            return height(post, width: width)
        })
    }

    static func list(_ log: MeasureLog, width: Double = 390, measuring: PostList.Measuring = .eager,
                     capacity: Int = 10_000) -> PostList {
        PostList(cache: cache(log, capacity: capacity), width: width, measuring: measuring,
                 sectionHeaderHeight: headerHeight, sectionFooterHeight: footerHeight)
    }

    /// The entries a fresh, fully measured layout of `snapshot` has.
    static func entries(_ snapshot: PostSnapshot, width: Double = 390) -> [OffsetTree.Entry] {
        var entries: [OffsetTree.Entry] = []
        for section in snapshot.sections {
            entries.append(.init(height: OffsetTree.units(headerHeight(section.id, width: width)), kind: .header))
            for post in section.items {
                entries.append(.init(height: OffsetTree.units(height(post, width: width)), kind: .item))
            }
            entries.append(.init(height: OffsetTree.units(footerHeight(section.id, width: width)), kind: .footer))
        }
        return entries
    }

    /// Offsets of the entries of a fresh layout (one more than the entries: the total last).
    static func offsets(_ entries: [OffsetTree.Entry]) -> [Double] {
        var offsets = [0.0]
        for entry in entries { offsets.append(offsets.last! + OffsetTree.pixels(entry.height)) }
        return offsets
    }

    /// Posts with ids in `ids`, text "t".
    static func posts(_ ids: some Sequence<Int>, text: String = "t") -> [Post] { ids.map { Post($0, text) } }
}
