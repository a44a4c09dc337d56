import ArgumentParser
import TextMeasure
import TextMeasureBatch
import TextMeasureStore

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
            Each input line is {"text": String, "width": Number, "size"?: Number, "maxLines"?: Int, \
            "breaking"?: "pango" | "browser" | "browser-strict"}; "size", "maxLines" and "breaking" override \
            the options. Each output line is \
            {"lineCount": Int, "height": Number, "truncated": Bool} followed by the input's other fields \
            (an "id", say), or {"error": "<why>"} for a line that cannot be measured. Output order is \
            input order; the exit status is 0 whatever the lines held.
            """)

    @OptionGroup var style: StyleOptions

    @Flag(help: "Print cache statistics to standard error at the end.")
    var stats = false

    @Option(help: ArgumentHelp("""
        A height store (SQLite file, created if missing): results found there are not measured, and \
        what is measured is saved there for the next run. An unusable file is skipped with a warning.
        """, valueName: "path"))
    var store: String?

    @Option(help: "Lines measured together (and at most 16 MiB of them); each chunk is spread over all cores, then written in order.")
    var chunk = 4096

    @Option(help: """
        Prepared texts kept for reuse: a text seen again (at another width, say) is laid out from its \
        prepared form instead of being shaped again. Each takes a few kilobytes (25 to 45 times its \
        text's UTF-8 bytes); --cached-megabytes bounds them all.
        """)
    var cachedTexts = 256

    @Option(help: """
        Megabytes (MiB) the prepared texts kept may take together, least recently used dropped first. \
        A text whose prepared form alone is larger is measured but not kept; 0 keeps none.
        """)
    var cachedMegabytes = PreparedTextCache.defaultMaximumBytes >> 20

    /// The most bytes of input lines measured together, whatever `--chunk` says: a chunk of 4,096
    /// lines of a megabyte each would otherwise hold 4 GB of input (and their outputs) at once.
    static let chunkBytes = 16 << 20

    func run() throws {
        // The first lines are read before waiting for the fonts, which may still be loading.
        var input = LineReader(descriptor: STDIN_FILENO)
        let output = OutputWriter.standardOutput
        let first = Result { () throws(IOFailure) -> Lines? in
            try input.next(maxLines: max(1, chunk), maxBytes: Self.chunkBytes)
        }
        let measurer = try style.makeMeasurer()
        do throws(IOFailure) {
            var lines = try first.get()
            let bytes = cachedMegabytes > Int.max >> 20 ? Int.max : max(0, cachedMegabytes) << 20
            let heightStore = store.flatMap { HeightStore.openOrWarn(path: $0) }
            let processor = BatchProcessor(measurer: measurer, style: style.style, preparedTexts: max(1, cachedTexts),
                                           preparedTextBytes: bytes, store: heightStore)
            while let chunk = lines {
                try output.write(processor.process(chunk))
                lines = try input.next(maxLines: max(1, self.chunk), maxBytes: Self.chunkBytes)
            }
            heightStore?.flush()
            if stats, store != nil {
                let written = heightStore?.statistics.written ?? 0
                let t = processor.texts.statistics
                try OutputWriter.standardError.write("""
                    height store: \(t.storeHits) hits, \(t.storeMisses) misses, \(written) written\(heightStore == nil ? " (skipped)" : "")

                    """)
            }
            if stats {
                let t = processor.texts.statistics
                let shaping = measurer.shapingStatistics
                try OutputWriter.standardError.write("""
                    prepared texts: \(t.hits) reused, \(t.misses) shaped, \(t.entries) held (\(t.bytes >> 10) KiB), \(t.oversized) too large to keep
                    shaped pieces: \(shaping.pieceHits) reused, \(shaping.pieceMisses) shaped, \(shaping.runsShapedWhole) runs shaped whole

                    """)
            }
        } catch {
            // Input that cannot be read or output that cannot be written: the batch is incomplete.
            throw CLIError(message: error.description)
        }
    }
}
