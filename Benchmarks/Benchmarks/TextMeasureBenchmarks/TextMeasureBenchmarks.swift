import Benchmark
import Foundation
import ListLayout
import TextRows
import TextMeasure

/// The multilingual corpus from the package's tests, read by the tests' own loader (`Corpus.swift`
/// here is a link to Tests/TestSupport/Corpus.swift).
let corpus: [String] = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return Corpus.load(from: url.appendingPathComponent("Tests/Corpus/multilingual.txt").path) ?? []
}()

let measurer = try! TextMeasurer()
private let style = TextStyle(size: 17)
/// A typical list row: about 150 characters of English.
private let row = "Reminder: the team meeting has moved to Thursday at 3 pm. Please bring your quarterly numbers and any questions about the roadmap."

/// Typical short messages, 40 to 80 characters: 1 to 3 lines at 17 px and widths 200–400.
private let shortMessages = [
    "Running ten minutes late, start without me.",
    "Can you send me the slides from this morning's meeting?",
    "Sounds good! See you at the station at half past six.",
    "The build is green again, thanks for fixing the flaky test so fast.",
    "Don't forget: dinner at Marco's on Friday, table booked for eight.",
    "I pushed the fix to the branch; could you take a look before lunch?",
    "Happy birthday!! Hope you have a wonderful day with the family.",
    "Reminder: the parking garage closes at 10 pm tonight, move your car.",
]

/// Short messages that mix scripts and so fonts (Thai with a Latin word, Arabic with digits, Hindi,
/// emoji, CJK with Latin, Hebrew with Latin): 1 to 3 lines at 17 px and widths 200–400, whose lines
/// are not all equally tall (each line's natural height comes from the fonts on it).
private let multilingualMessages = [
    "พรุ่งนี้ประชุมทีมตอนบ่ายสามโมง อย่าลืมเอา laptop มาด้วยนะครับ",
    "سأصل إلى المحطة في الساعة 6:30 مساءً، انتظرني عند البوابة رقم 12",
    "कल सुबह की मीटिंग दस बजे है, कृपया समय पर पहुँचें और नोट्स लाएँ।",
    "Happy birthday!! 🎉🎂 Have a wonderful day with the family 😊",
    "明天下午三点开会，请带上你的 MacBook 和第三季度的报告，谢谢！",
    "今日の会議は Zoom で行います。リンクは後で Slack に送ります。",
    "오늘 저녁 7시에 강남역 2번 출구에서 만나요! 늦으면 꼭 연락 주세요.",
    "The café on Rue Saint-Honoré said «ok» to 8 people — ทุกคนมาได้ไหม?",
]

/// `text` with three spans, as a chat row has them: its first word bold, a middle word monospaced,
/// its last word italic at 22 px (a text of fewer than three words: bold throughout).
private func threeSpans(_ text: String) -> StyledText {
    var words: [Range<Int>] = []
    var start: Int?
    for (index, scalar) in text.unicodeScalars.enumerated() {
        if scalar == " " || scalar == "\n" {
            if let first = start { words.append(first..<index) }
            start = nil
        } else if start == nil {
            start = index
        }
    }
    let count = text.unicodeScalars.count
    if let first = start { words.append(first..<count) }
    guard words.count >= 3 else { return StyledText(text, spans: [TextSpan(0..<count, bold: true)]) }
    return StyledText(text, spans: [TextSpan(words[0], bold: true), TextSpan(words[words.count / 2], monospace: true),
                                    TextSpan(words[words.count - 1], italic: true, size: 22)])
}

/// A list of messages: the rows of the width-drag benchmarks.
struct Message: Identifiable, Hashable, Sendable {
    let id: Int
    let text: String
}

/// `count` messages of 20 to 150 characters made of common words, the same on every run.
private func messages(_ count: Int) -> [Message] {
    let words = ("the a to and of in is it you that for on are with as this be at have or we can not but "
        + "meeting tomorrow morning evening lunch dinner train station office project review slides build "
        + "test branch fix release please thanks sorry late soon today tonight weekend Friday Monday call "
        + "message photo video link document budget numbers question answer team family birthday coffee").split(separator: " ")
    var random = SplitMix64(seed: 0x7E57_AB1E)
    return (0..<count).map { id in
        var text = ""
        let length = Int.random(in: 20...150, using: &random)
        while text.count < length {
            if !text.isEmpty { text += " " }
            text += words.randomElement(using: &random)!
        }
        return Message(id: id, text: text + ".")
    }
}

/// A message row: the text at 17 px with 16 px on each side and 10 px above and below.
private let messageRow = RowLayout<Message>(
    insets: RowInsets(top: 10, leading: 16, bottom: 10, trailing: 16),
    elements: [.text(\.text, style: style)])

/// A window resize drag: 1 px per step, from 300 to 400 px and back (200 steps, each a new width).
private func dragWidth(_ step: Int) -> Double {
    let phase = step % 200
    return 300 + Double(phase < 100 ? phase : 200 - phase)
}

/// Ten thousand rows, every one measured and its text prepared, after one whole drag cycle (so the
/// cache holds what a drag in progress holds). Built once per benchmark process.
private func draggedList() -> ListHeights<Int, Message> {
    // The cache's defaults (10,000 heights), and every row's prepared text kept (`preparedTexts`):
    // a width change re-lays text out, it never reshapes.
    let cache = try! HeightCache(layout: messageRow, measurer: measurer, preparedTexts: dragRows)
    let list = ListHeights<Int, Message>(cache: cache, width: dragWidth(0))
    list.apply(try! ListSnapshot(items: messages(dragRows), inSection: 0))
    for step in 1...200 { list.setWidth(dragWidth(step)) }
    return list
}

private let dragRows = 10_000

/// Built once per benchmark process (each benchmark runs in a process of its own), not per sample.
nonisolated(unsafe) private var draggedListOnce: ListHeights<Int, Message>?
nonisolated(unsafe) private var step = 0
private func sharedDraggedList() -> ListHeights<Int, Message> {
    if let draggedListOnce { return draggedListOnce }
    let list = draggedList()
    draggedListOnce = list
    return list
}

/// The allocation count per benchmark iteration as a committed threshold. `Thresholds/` holds the
/// counts (`mallocCountTotal` at p90, one file per benchmark); `tolerance` is how far a run may be
/// from its count (0: exactly). Check with
///
///     swift package benchmark thresholds check --target TextMeasureBenchmarks --metric mallocCountTotal
///
/// and update with `./update-thresholds.sh` after a deliberate change (see the README, "Performance").
/// `--metric mallocCountTotal` matters: the sampler behind `.peakMemoryResident` allocates on its
/// own thread, adding 15–20 allocations to every iteration. Counts above 2,048 are kept by the
/// histogram to 3 significant digits (in steps of 2 up to 4,096, …, 32 up to 65,536).
func allocations(tolerance: Int = 0) -> [BenchmarkMetric: BenchmarkThresholds] {
    [.mallocCountTotal: BenchmarkThresholds(absolute: [.p90: tolerance])]
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(2), maxIterations: 1_000_000)

    // Allocation counts are thresholds (see `allocations(tolerance:)`). A count is per benchmark
    // iteration: for a `.kilo` benchmark that of 1,000 calls, for the corpus benchmarks that of every
    // corpus text measured once (the count per text times the corpus's size), for the drag that of
    // one step over all rows.

    // Shaping every run afresh: the cost of a text never seen, with no word seen before either.
    Benchmark("Cold measurement per corpus text (no shaped-word cache)",
              configuration: .init(scalingFactor: .one, thresholds: allocations())) { benchmark in
        let uncached = TextMeasurer(cascade: measurer.cascade, shapeCacheCapacity: 0)
        benchmark.startMeasurement()
        for text in corpus {
            blackHole(try uncached.measure(text, style: style, width: 320))
        }
    }

    // Styled text: the corpus with three spans per text, shaped afresh; beside it the same texts
    // plain (issue 32: at most 1.3 times the plain time), and a styled text laid out again.
    Benchmark("Cold preparation per corpus text with three spans",
              configuration: .init(scalingFactor: .one, thresholds: allocations())) { benchmark in
        let uncached = TextMeasurer(cascades: try FontCascades.bundled(), shapeCacheCapacity: 0)
        let styled = corpus.map(threeSpans)
        _ = try uncached.prepare(styled[0], style: style)   // opens the styled faces
        benchmark.startMeasurement()
        for text in styled {
            blackHole(try uncached.prepare(text, style: style))
        }
    }

    Benchmark("Cold preparation per corpus text, the same texts plain",
              configuration: .init(scalingFactor: .one, thresholds: allocations())) { benchmark in
        let uncached = TextMeasurer(cascades: try FontCascades.bundled(), shapeCacheCapacity: 0)
        benchmark.startMeasurement()
        for text in corpus {
            blackHole(try uncached.prepare(text, style: style))
        }
    }

    Benchmark("Layout of a prepared 1–3 line text with three spans at a new width",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let prepared = try shortMessages.map { try measurer.prepare(threeSpans($0), style: style) }
        let widths = (0..<64).map { 200 + Double($0) * 3.125 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared[i & 7].layout(width: widths[(i >> 3) & 63]))
        }
    }

    Benchmark("Measurement per corpus text (warm shaped-word cache)",
              configuration: .init(thresholds: allocations())) { benchmark in
        for text in corpus { _ = try measurer.measure(text, style: style, width: 320) }
        benchmark.startMeasurement()
        for text in corpus {
            blackHole(try measurer.measure(text, style: style, width: 320))
        }
    }

    Benchmark("Relayout of a prepared 150-character text at a new width",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let prepared = try measurer.prepare(row, style: style)
        let widths = (0..<64).map { 200 + Double($0) * 3.5 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared.layout(width: widths[i & 63], withLines: false))
        }
    }

    // Issue 13's target: `PreparedText.layout(width:)` of a typical 1–3 line text at most 100 ns.
    // With its lines (the array of lines: about 3 allocations per call), then the height alone (what
    // a height cache asks for, no allocation). The messages are 43–68 characters, 1–3 lines here.
    Benchmark("Layout of a prepared 1–3 line text at a new width",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let prepared = try shortMessages.map { try measurer.prepare($0, style: style) }
        let widths = (0..<64).map { 200 + Double($0) * 3.125 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared[i & 7].layout(width: widths[(i >> 3) & 63]))
        }
    }

    Benchmark("Layout of a prepared 1–3 line text at a new width, height only",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let prepared = try shortMessages.map { try measurer.prepare($0, style: style) }
        let widths = (0..<64).map { 200 + Double($0) * 3.125 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared[i & 7].layout(width: widths[(i >> 3) & 63], withLines: false))
        }
    }

    // The same with texts that mix fonts, so that lines differ in height: the per-line height path
    // (the cursor over the prepared text's extent runs). Also allocation-free.
    Benchmark("Layout of a prepared 1–3 line multilingual text at a new width",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let prepared = try multilingualMessages.map { try measurer.prepare($0, style: style) }
        let widths = (0..<64).map { 200 + Double($0) * 3.125 }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(try prepared[i & 7].layout(width: widths[(i >> 3) & 63]))
        }
    }

    Benchmark("HeightCache hit",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        let cache = HeightCache<Int>(measure: { model, width in Double(model % 7) * 20 + width / 100 })
        for model in 0..<1_000 { _ = cache.height(for: model, width: 390) }
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations {
            blackHole(cache.height(for: i % 1_000, width: 390))
        }
    }

    // A window resize drag over a list of 10,000 message rows, all measured and prepared: each
    // iteration is one drag step (a new width, 1 px from the last) re-answering every row's height,
    // as a list does when its width changes. Rows whose valid width range holds the new width cost
    // a range check; the others are laid out again from their prepared texts. The same 200 steps
    // every run (one whole drag cycle), so that the allocation count's p90 is the same every run.
    // Tolerance: Dispatch's own allocations for the rows laid out on all cores vary by a few
    // (one histogram step of 32 either way at this count); one allocation more per row is 10,000.
    let dragStep = Benchmark.Configuration(maxDuration: .seconds(60), maxIterations: 200,
                                           thresholds: allocations(tolerance: 64))
    Benchmark("Width drag over 10,000 cached rows: ListHeights.setWidth, per step",
              configuration: dragStep) { benchmark in
        let list = sharedDraggedList()
        step += 1
        let width = dragWidth(step)
        benchmark.startMeasurement()
        list.setWidth(width)
        benchmark.stopMeasurement()
        blackHole(list.totalHeight)
    }

    // The same drag, the cache's part alone: every row's height at the new width, in one call.
    Benchmark("Width drag over 10,000 cached rows: HeightCache.prefetch, per step",
              configuration: dragStep) { benchmark in
        let list = sharedDraggedList()
        let rows = list.snapshot.sections[0].items
        step += 1
        let width = dragWidth(step)
        benchmark.startMeasurement()
        blackHole(list.cache.prefetch(rows, width: width))
    }

    Benchmark("Estimate of a 150-character row",
              configuration: .init(scalingFactor: .kilo, thresholds: allocations())) { benchmark in
        _ = try measurer.estimate(row, style: style, width: 320)   // builds the advance profile
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try measurer.estimate(row, style: style, width: 320))
        }
    }

    // Tolerance: Dispatch's own allocations on the worker threads vary by a few from run to run.
    Benchmark("Batch throughput: corpus x 8 widths on all cores",
              configuration: .init(thresholds: allocations(tolerance: 16))) { benchmark in
        let requests = corpus.flatMap { text in
            [180.0, 240, 300, 343, 390, 414, 600, 716].map { MeasureRequest(text: text, style: style, width: $0) }
        }
        benchmark.startMeasurement()
        blackHole(measurer.measure(requests))
    }

    // Memory per entry = (peak at 100,000 − peak at 10,000) / 90,000.
    for count in [10_000, 100_000] {
        Benchmark("\(count) cached heights (resident memory)",
                  configuration: .init(metrics: [.peakMemoryResident, .mallocCountTotal], maxIterations: 3,
                                       thresholds: allocations())) { _ in
            let cache = HeightCache<Int>(capacity: count, measure: { model, _ in Double(model) })
            for model in 0..<count { _ = cache.height(for: model, width: 390) }
            blackHole(cache.statistics.entries)
        }
    }

    millionRowBenchmarks()
}
