import Testing
import TextMeasureSupport
@testable import ListLayout

/// The list layer with heights from a closure alone, as an app that sizes rows its own way (or takes
/// them from `textmeasure serve`) uses it: this target links no text engine and no C library.
@Suite("A list driven by a closure")
struct ClosureListTests {
    /// A row's height: an app's own rule (an image makes a row taller, a narrow width wraps more).
    static func height(_ post: Post, width: Double) -> Double {
        (post.text.hasPrefix("img") ? 240 : 44) + (width < 320 ? 20 : 0)
    }

    static func posts(_ ids: Range<Int>) -> [Post] { ids.map { Post($0, $0 % 5 == 0 ? "img \($0)" : "text \($0)") } }

    @Test func appliesSnapshotsAndAnswersOffsets() throws {
        let asked = MeasureLog()
        let list = ListHeights<String, Post>(width: 390, sectionHeaderHeight: { _, _ in 28 }) { post, width in
            asked.record(post.id)
            return Self.height(post, width: width)
        }
        let first = try PostSnapshot(sections: [ListSection(id: "today", items: Self.posts(0..<100))])
        let changes = list.apply(first)
        #expect(changes == ListChanges(insertedSections: [0]))
        #expect(asked.count == 100)
        let expected = 28 + Self.posts(0..<100).map { Self.height($0, width: 390) }.reduce(0, +)
        #expect(list.totalHeight == expected)
        #expect(list.offset(of: ItemPath(section: 0, item: 3)) == Double(28 + 240 + 44 + 44))
        #expect(list.itemPath(atOffset: Double(28 + 240 + 1)) == ItemPath(section: 0, item: 1))

        // Ten rows arrive at the top: only they are asked for; every other row keeps its height.
        asked.reset()
        let second = try PostSnapshot(sections: [ListSection(id: "today", items: Self.posts(-10..<100))])
        let (batch, offset) = list.apply(second, anchor: 28 + 240 + 1)
        #expect(batch.insertedItems.count == 10)
        #expect(asked.measured == Array(-10..<0))
        let added = Self.posts(-10..<0).map { Self.height($0, width: 390) }.reduce(0, +)
        #expect(offset == 28 + 240 + 1 + added)   // the row read stays where it was on screen

        // A narrower width: every row asked again at the new width.
        asked.reset()
        list.setWidth(300)
        #expect(asked.count == 110)
        #expect(list.height(of: ItemPath(section: 0, item: 0)) == Self.height(Post(-10, "img -10"), width: 300))
    }

    @Test func lazyListsAskOnlyNearTheViewport() throws {
        let asked = MeasureLog()
        let list = ListHeights<String, Post>(width: 390, measuring: .lazy(overscan: 100),
                                             estimate: { _, _ in HeightEstimate(expected: 50, maximum: 240) }) { post, width in
            asked.record(post.id)
            return Self.height(post, width: width)
        }
        list.apply(try PostSnapshot(sections: [ListSection(id: "all", items: Self.posts(0..<10_000))]))
        #expect(asked.count == 0)
        #expect(list.totalHeight == 50 * 10_000)
        list.prepareRows(in: 0..<800)
        #expect(asked.count > 0 && asked.count < 40)
        #expect(asked.measured.allSatisfy { $0 < 40 })
    }
}
