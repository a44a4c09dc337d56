import ArgumentParser
import TextMeasure
import TextMeasureBatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Measure JSON Lines from standard input, one result line per input line.",
        discussion: """
            Each input line is {"text": String, "width": Number, "size"?: Number, "maxLines"?: Int}; \
            "size" and "maxLines" override the options. Each output line is \
            {"lineCount": Int, "height": Number, "truncated": Bool} followed by the input's other fields \
            (an "id", say), or {"error": "<why>"} for a line that cannot be measured. Output order is \
            input order; the exit status is 0 whatever the lines held.
            """)

    @OptionGroup var style: StyleOptions

    @Flag(help: "Print cache statistics to standard error at the end.")
    var stats = false

    @Option(help: "Lines measured together; each chunk is spread over all cores, then written in order.")
    var chunk = 4096

    @Option(help: """
        Prepared texts kept for reuse: a text seen again (at another width, say) is laid out from its \
        prepared form instead of being shaped again. Each takes a few kilobytes.
        """)
    var cachedTexts = 256

    func run() throws {
        // The first lines are read before waiting for the fonts, which may still be loading.
        var input = LineReader(descriptor: STDIN_FILENO)
        let output = OutputWriter.standardOutput
        let first = Result { () throws(IOFailure) -> Lines? in try input.next(maxLines: max(1, chunk)) }
        let measurer = try style.makeMeasurer()
        do throws(IOFailure) {
            var lines = try first.get()
            let processor = BatchProcessor(measurer: measurer, style: style.style, preparedTexts: max(1, cachedTexts))
            while let chunk = lines {
                try output.write(processor.process(chunk))
                lines = try input.next(maxLines: max(1, self.chunk))
            }
            if stats {
                let t = processor.texts.statistics
                let shaping = measurer.shapingStatistics
                try OutputWriter.standardError.write("""
                    prepared texts: \(t.hits) reused, \(t.misses) shaped, \(t.entries) held
                    shaped pieces: \(shaping.pieceHits) reused, \(shaping.pieceMisses) shaped, \(shaping.runsShapedWhole) runs shaped whole

                    """)
            }
        } catch {
            // Input that cannot be read or output that cannot be written: the batch is incomplete.
            throw CLIError(message: error.description)
        }
    }
}
