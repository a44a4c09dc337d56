import Foundation
import GRDB
import Testing
import TextRows
import ListLayout
import TextMeasure
@testable import TextMeasureStore

@Suite("HeightStore: round trip, ranges, keys")
struct HeightStoreTests {
    let measurer = StoreFixtures.measurer

    @Test func roundTripAcrossStoreObjects() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let queries = try StoreFixtures.fill(path, count: 40)
        let reopened = try HeightStore(path: path)
        let stored = reopened.measurements(for: queries, fonts: measurer.cascade)
        for (query, stored) in zip(queries, stored) {
            let fresh = try measurer.prepare(query.text, style: query.style).layout(width: query.width, withLines: false)
            #expect(stored?.measurement == fresh)
        }
        #expect(reopened.statistics.hits == queries.count)
    }

    @Test func reusedInsideTheValidRangeNeverOutside() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let store = try HeightStore(path: path)
        let text = "The quick brown fox jumps over the lazy dog, again and again and again."
        let style = TextStyle(size: 17)
        let prepared = try measurer.prepare(text, style: style)
        let measured = try prepared.layout(width: 200, withLines: false)
        let saved = StoredMeasurement(measured)
        store.save([saved], for: [MeasureRequest(text: text, style: style, width: 200)], fonts: measurer.cascade)
        store.flush()
        let units = saved.validWidthUnits
        #expect(units.upperBound != Int.max)
        func lookUp(units: Int) -> StoredMeasurement? {
            store.measurements(for: [MeasureRequest(text: text, style: style, width: Double(units) / 1024)],
                               fonts: measurer.cascade)[0]
        }
        for inside in [units.lowerBound, (units.lowerBound + units.upperBound) / 2, units.upperBound - 1] {
            let hit = lookUp(units: inside)
            #expect(hit == saved)
            let fresh = try prepared.layout(width: Double(inside) / 1024, withLines: false)
            #expect(hit?.measurement.height == fresh.height && hit?.measurement.lineCount == fresh.lineCount)
        }
        #expect(lookUp(units: units.lowerBound - 1) == nil)
        #expect(lookUp(units: units.upperBound) == nil)
        #expect(lookUp(units: units.upperBound + 5_000) == nil)
    }

    @Test func keySensitivity() throws {
        let folder = StoreFixtures.folder()
        let path = folder + "/heights.sqlite"
        let store = try HeightStore(path: path)
        let fonts = StoreFixtures.root + "/Fonts/"
        // The same content at another path is the same font; other content is another font.
        try FileManager.default.copyItem(atPath: fonts + "NotoSans-Regular.ttf", toPath: folder + "/Copy.ttf")
        let original = try TextMeasurer(fontFiles: [fonts + "NotoSans-Regular.ttf"])
        let copy = try TextMeasurer(fontFiles: [folder + "/Copy.ttf"])
        let other = try TextMeasurer(fontFiles: [fonts + "NotoSansMath-Regular.ttf"])
        let query = MeasureRequest(text: "Hello, world", style: TextStyle(size: 15), width: 300)
        let measured = try original.prepare("Hello, world", style: query.style).layout(width: 300, withLines: false)
        store.save([StoredMeasurement(measured)], for: [query], fonts: original.cascade)
        store.flush()
        #expect(store.measurements(for: [query], fonts: original.cascade)[0] != nil)
        #expect(store.measurements(for: [query], fonts: copy.cascade)[0] != nil)
        #expect(store.measurements(for: [query], fonts: other.cascade)[0] == nil)
        var variants: [MeasureRequest] = []
        for style in [TextStyle(size: 15.5), TextStyle(size: 15, maxLines: 1), TextStyle(size: 15, lineHeight: .fixed(20)),
                      TextStyle(size: 15, lineHeight: .multiple(1.2)), TextStyle(size: 15, breaking: .browser),
                      TextStyle(size: 15, breaking: .browserStrict)] {
            variants.append(MeasureRequest(text: query.text, style: style, width: 300))
        }
        variants.append(MeasureRequest(text: "Hello, world!", style: query.style, width: 300))
        #expect(store.measurements(for: variants, fonts: original.cascade).allSatisfy { $0 == nil })
        // Another layout version is another key.
        let digest = try FontDigests.digest(of: original.cascade)
        // Each break-rule mode has its own number; `.pango` keeps 0, the number of every key made
        // before the style had the option (so stored heights stay valid).
        #expect(LineBreaking.allCases.map(StoreKey.breakRules) == [0, 1, 2])
        let keys = Set(LineBreaking.allCases.map { breaking in
            var style = query.style
            style.breaking = breaking
            return StoreKey.key(for: MeasureRequest(text: query.text, style: style, width: 300), fonts: digest)
        })
        #expect(keys.count == 3)
        #expect(StoreKey.key(for: query, fonts: digest) != StoreKey.key(for: query, fonts: digest,
                                                                           layoutVersion: TextMeasurer.layoutVersion + 1))
        // Keys made in bulk (one context per run of one style) are the keys made one by one.
        let mixed = variants + [query] + variants.reversed()
        #expect(StoreKey.keys(for: mixed, fonts: digest) == mixed.map { StoreKey.key(for: $0, fonts: digest) })
        #expect(Set(StoreKey.keys(for: variants + [query], fonts: digest)).count == variants.count + 1)
    }

    /// A styled text's spans are part of its key, and its fonts are every face it may be drawn with:
    /// stored styled heights are found again, never given for the plain text or other spans.
    @Test func styledTextsAreKeyedByTheirSpans() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let text = "Anna: see parse_header() in main.c, it breaks on CRLF input"
        let spanSets: [[TextSpan]] = [[], [TextSpan(0..<5, bold: true)], [TextSpan(0..<5, italic: true)],
                                      [TextSpan(0..<5, bold: true, size: 22)], [TextSpan(0..<6, bold: true)],
                                      [TextSpan(10..<24, monospace: true)]]
        let queries = spanSets.map { MeasureRequest(text: text, spans: $0, style: TextStyle(size: 15), width: 150) }
        let digest = try FontDigests.digest(of: measurer.cascade)
        #expect(Set(queries.map { StoreKey.key(for: $0, fonts: digest) }).count == spanSets.count)
        // A plain text's key is what it was before styled text.
        #expect(StoreKey.key(for: queries[0], fonts: digest) == StoreKey.Context(style: queries[0].style, fonts: digest)
            .key(forText: text))
        do {
            let store = try HeightStore(path: path)
            #expect(store.keysSpans)
            let cache = PreparedTextCache(measurer: measurer, store: store)
            for query in queries { _ = try cache.measure(query.styledText, style: query.style, width: query.width, withLines: false) }
            store.flush()
        }
        let reopened = try HeightStore(path: path)
        let cache = PreparedTextCache(measurer: measurer, store: reopened)
        let results = cache.measurements(for: queries)
        #expect(cache.statistics.storeHits == queries.count && cache.statistics.misses == 0)
        for (query, result) in zip(queries, results) {
            let fresh = try measurer.prepare(query.styledText, style: query.style).layout(width: query.width, withLines: false)
            #expect(try result.get() == fresh)
        }
        #expect(Set(try results.map { try $0.get().height }).count > 1)
    }

    @Test func aColumnOfTheWrongTypeReadsAsAMiss() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let queries = try StoreFixtures.fill(path, count: 6)
        let queue = try StoreFixtures.openDirectly(path)
        // Three rows damaged: text and a fraction where SQLite's INTEGER and REAL belong.
        try queue.write { db in
            try db.execute(sql: "UPDATE heights SET height = 'tall' WHERE key IN (SELECT key FROM heights ORDER BY key LIMIT 2)")
            try db.execute(sql: "UPDATE heights SET line_count = 2.5 WHERE key IN (SELECT key FROM heights ORDER BY key DESC LIMIT 1)")
        }
        try queue.close()
        let store = try HeightStore(path: path)
        let found = store.measurements(for: queries, fonts: measurer.cascade)
        #expect(found.filter { $0 == nil }.count == 3)
        #expect(store.statistics.damaged == 3)
        #expect(store.statistics.hits == queries.count - 3)
    }

    @Test func anotherLayoutVersionIsEmptiedOnOpen() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let queries = try StoreFixtures.fill(path, count: 10)
        let queue = try StoreFixtures.openDirectly(path)
        try queue.write { db in try db.execute(sql: "UPDATE store_info SET value = 9999 WHERE name = 'layout_version'") }
        try queue.close()
        let store = try HeightStore(path: path)
        #expect(try store.fileStatistics().entries == 0)
        #expect(try store.fileStatistics().layoutVersion == Int(TextMeasurer.layoutVersion))
        #expect(store.measurements(for: queries, fonts: measurer.cascade).allSatisfy { $0 == nil })
    }

    @Test func aDamagedRowReadsAsAMiss() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let queries = try StoreFixtures.fill(path, count: 5)
        let queue = try StoreFixtures.openDirectly(path)
        try queue.write { db in
            try db.execute(sql: "UPDATE heights SET height = height + 1")
        }
        try queue.close()
        let store = try HeightStore(path: path)
        #expect(store.measurements(for: queries, fonts: measurer.cascade).allSatisfy { $0 == nil })
        #expect(store.statistics.damaged == queries.count)
    }

    @Test func heightCacheUsesTheStore() throws {
        let path = StoreFixtures.folder() + "/heights.sqlite"
        let layout = RowLayout<String>(insets: RowInsets(top: 4, leading: 8, bottom: 4, trailing: 8),
                                       elements: [.text(\.self, style: TextStyle(size: 17))])
        let texts = StoreFixtures.texts(20)
        let first: [Double]
        do {
            let store = try HeightStore(path: path)
            let cache = try HeightCache(layout: layout, measurer: measurer, store: store)
            first = texts.map { cache.height(for: $0, width: 320) }
            store.flush()
        }
        let store = try HeightStore(path: path)
        let cache = try HeightCache(layout: layout, measurer: measurer, store: store)
        #expect(texts.map { cache.height(for: $0, width: 320) } == first)
        #expect(store.statistics.hits == texts.count)
    }
}
