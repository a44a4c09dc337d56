import ArgumentParser
import TextMeasure
import TextMeasureBatch

struct BatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Measure JSON Lines from standard input, one result line per input line.",
        discussion: """
            Each input line is \(BatchOptions.itemFormat); "size", "maxLines" and "breaking" override \
            the options, and \(BatchOptions.spansMeaning). Each output line is \
            {"lineCount": Int, "height": Number, "truncated": Bool} followed by the input's other fields \
            (an "id", say), or {"error": "<why>"} for a line that cannot be measured. Output order is \
            input order; the exit status is 0 whatever the lines held.
            """)

    @OptionGroup var style: StyleOptions

    @Flag(help: "Print cache statistics to standard error at the end.")
    var stats = false

    @Option(help: ArgumentHelp("""
        A height store, a SQLite file (created if missing) or postgres://USER@HOST:PORT/DATABASE shared \
        by many machines (default: $TEXTMEASURE_STORE): results found there are not measured, and what \
        is measured is saved there for the next run. An unusable store is skipped with a warning.
        """, valueName: "path|url"))
    var store: String?

    @Option(help: "Lines measured together (and at most 16 MiB of them; the first chunk at most 1,024 lines); each chunk is spread over all cores, then written in order.")
    var chunk = 4096

    @Option(help: """
        Prepared texts kept for reuse (1 to \(PreparedTextCache.maximumCapacity)): a text seen again (at \
        another width, say) is laid out from its prepared form instead of being shaped again. Each takes \
        a few kilobytes (25 to 45 times its text's UTF-8 bytes); --cached-megabytes bounds them all.
        """)
    var cachedTexts = 256

    @Option(help: """
        Megabytes (MiB) the prepared texts kept may take together, least recently used dropped first. \
        A text whose prepared form alone is larger is measured but not kept; 0 keeps none.
        """)
    var cachedMegabytes = PreparedTextCache.defaultMaximumBytes >> 20

    func validate() throws {
        try BatchOptions.validateCachedTexts(cachedTexts)
    }

    /// The most bytes of input lines measured together, whatever `--chunk` says: a chunk of 4,096
    /// lines of a megabyte each would otherwise hold 4 GB of input (and their outputs) at once.
    static let chunkBytes = 16 << 20

    func run() throws {
        try BatchRun(fonts: style.faceFonts, style: style.style, stats: stats,
                     store: HeightStoreAccess.location(option: store), chunk: chunk,
                     cachedTexts: cachedTexts, cachedMegabytes: cachedMegabytes).run()
    }
}

/// What `batch` and `textmeasure serve` share: the fields of an item, and the checks of the options
/// of the prepared-text cache.
package enum BatchOptions {
    /// A batch line's (and a `textmeasure serve` item's) fields, as the help gives them.
    package static let itemFormat = """
        {"text": String, "width": Number, "size"?: Number, "maxLines"?: Int, \
        "breaking"?: "pango" | "browser" | "browser-strict", "spans"?: [{"start": Int, "end": Int, \
        "bold"?: Bool, "italic"?: Bool, "mono"?: Bool, "size"?: Number}]}
        """

    /// What an item's `"spans"` are, as the help says it.
    package static let spansMeaning = """
        "spans" are bold, italic, monospaced or resized stretches of the text (start and end count its \
        Unicode scalars, end exclusive)
        """

    /// Checks a `--cached-texts` value (of `batch` and `textmeasure serve`): 1 to
    /// `PreparedTextCache.maximumCapacity`.
    ///
    /// - Parameter value: The option's value.
    /// - Throws: `ValidationError` naming the option, the value and the range.
    package static func validateCachedTexts(_ value: Int) throws {
        let range = 1...PreparedTextCache.maximumCapacity
        guard range.contains(value) else {
            throw ValidationError("--cached-texts \(value) is out of range: must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
    }
}
