import Testing
@testable import TextMeasure

/// One set of rules for every number a measurement takes, used by every entry point alike.
@Suite("Measurement limits")
struct MeasurementLimitsTests {
    let measurer = Fixtures.measurer

    static let badWidths: [Double] = [0, -0.0, -3, 0.000_9, 1e9.nextUp, 1e12, 1e20, 1e300, 1e-300,
                                      .infinity, -.infinity, .nan, .leastNonzeroMagnitude]

    /// Every width outside the range is refused with the same error by every entry point, before
    /// any work; none traps.
    @Test(arguments: badWidths)
    func everyEntryPointRefusesTheSameWidths(width: Double) throws {
        #expect(!MeasurementLimits.isValid(width: width))
        func refused(_ body: () throws -> Void) {
            do {
                try body()
                Issue.record("width \(width) was accepted")
            } catch {
                guard case .invalidWidth(let refused) = error as? TextMeasureError else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(refused.bitPattern == width.bitPattern)
            }
        }
        let style = TextStyle(size: 17)
        let prepared = try measurer.prepare("Hello, world", style: style)
        refused { try MeasurementLimits.check(width: width) }
        refused { _ = try measurer.measure("Hello", style: style, width: width) }
        refused { _ = try measurer.estimate("Hello", style: style, width: width) }
        refused { _ = try prepared.layout(width: width) }
        refused { _ = try prepared.layout(width: width, withLines: false) }
        refused { _ = try prepared.layout(width: width, maxLines: 2) }
        refused { _ = try PreparedTextCache(measurer: measurer).measure("Hello", style: style, width: width) }
        let batch = measurer.measure([MeasureRequest(text: "Hello", style: style, width: width)])
        #expect(batch.count == 1)
        if case .success = batch[0] { Issue.record("batch accepted width \(width)") }
    }

    @Test(arguments: [0.001, 1.0 / 1024, 0.5, 320, 1e9] as [Double])
    func widthsInRangeMeasure(width: Double) throws {
        #expect(MeasurementLimits.isValid(width: width) == (width >= 0.001))
        guard width >= 0.001 else { return }
        let m = try measurer.measure("Hello, world", style: TextStyle(size: 17), width: width)
        #expect(m.lineCount >= 1)
        #expect(m.validWidths.contains(width))
    }

    @Test func stylesOutsideTheirRangesAreRefused() {
        let cases: [(TextStyle, TextMeasureError)] = [
            (TextStyle(size: 0), .invalidSize(0)),
            (TextStyle(size: 0.009), .invalidSize(0.009)),
            (TextStyle(size: 10_000.5), .invalidSize(10_000.5)),
            (TextStyle(size: 1e19), .invalidSize(1e19)),
            (TextStyle(lineHeight: .fixed(-1)), .invalidLineHeight(-1)),
            (TextStyle(lineHeight: .fixed(1e19)), .invalidLineHeight(1e19)),
            (TextStyle(lineHeight: .fixed(.infinity)), .invalidLineHeight(.infinity)),
            (TextStyle(lineHeight: .multiple(1_001)), .invalidLineHeightMultiple(1_001)),
            (TextStyle(lineHeight: .multiple(-0.5)), .invalidLineHeightMultiple(-0.5)),
            (TextStyle(maxLines: -1), .invalidMaxLines(-1)),
            (TextStyle(maxLines: Int.max), .invalidMaxLines(Int.max)),
        ]
        for (style, error) in cases {
            #expect(throws: error) { try MeasurementLimits.check(style) }
            #expect(throws: error) { try measurer.prepare("x", style: style) }
            #expect(throws: error) { try measurer.lineHeight(for: style) }
            #expect(throws: error) { try measurer.estimate("x", style: style, width: 100) }
        }
        // NaN is never equal to itself, so the case is matched rather than compared.
        #expect {
            try MeasurementLimits.check(TextStyle(size: .nan))
        } throws: { error in
            if case .invalidSize(let size) = error as? TextMeasureError { size.isNaN } else { false }
        }
    }

    /// The largest values allowed go through the whole pipeline with finite results.
    @Test func extremesInRangeGiveFiniteResults() throws {
        let style = TextStyle(size: 10_000, lineHeight: .fixed(100_000), maxLines: Int(Int32.max))
        let m = try measurer.measure("word word 😀 مرحبا", style: style, width: 1e9)
        #expect(m.height.isFinite && m.height == 100_000)
        let tiny = try measurer.measure("word word", style: TextStyle(size: 0.01), width: 0.001)
        #expect(tiny.height.isFinite)
        let multiple = try measurer.measure("a", style: TextStyle(size: 10_000, lineHeight: .multiple(1_000)), width: 5)
        #expect(multiple.height == 10_000_000)
    }

    /// Messages name the field, the value and the range; callers choose how the field is spelled.
    @Test func messagesNameFieldValueAndRange() {
        #expect(TextMeasureError.invalidWidth(1e12).description
                == "width 1000000000000 is out of range: must be a finite number from 0.001 to 1000000000")
        #expect(TextMeasureError.invalidSize(-2).message(naming: { "--\($0)" })
                == "--size -2 is out of range: must be a finite number from 0.01 to 10000")
        #expect(TextMeasureError.invalidMaxLines(-1).description
                == "maxLines -1 is out of range: must be an integer from 0 (unlimited) to 2147483647")
        #expect(TextMeasureError.invalidLineHeightMultiple(.nan).description.hasPrefix("lineHeightMultiple nan is out of range"))
    }

    /// The expected estimate never exceeds its own upper bound, at any width down to the smallest
    /// allowed (it once did at tiny widths), and tiny widths do not trap converting to integers.
    @Test func expectedEstimateStaysWithinItsBound() throws {
        for text in Fixtures.corpus.prefix(60) {
            for width in [0.001, 0.01, 0.3, 2, 9] {
                for size in [0.01, 17, 10_000] {
                    let e = try measurer.estimate(text, style: TextStyle(size: size), width: width)
                    #expect(e.lineCount <= e.maximumLineCount, "\(e.lineCount) > \(e.maximumLineCount) at \(width)/\(size)")
                }
            }
        }
    }
}
