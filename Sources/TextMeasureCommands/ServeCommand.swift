import ArgumentParser

/// `textmeasure serve`: runs the `textmeasure-serve` executable found beside this one, with the same
/// arguments.
///
/// The HTTP server is a product of its own (`swift build -c release --product textmeasure-serve`)
/// so that building `textmeasure` never builds Hummingbird and SwiftNIO; this command only hands
/// over to it (the process is replaced: signals and the exit status are the server's).
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Measure over HTTP (runs textmeasure-serve; `textmeasure serve --help` lists its options).",
        // The server's options, listed by hand: this command only hands them over (the server's
        // parser is in textmeasure-serve). ServeProcessTests checks the list against the server's help.
        discussion: """
            Options: --host (127.0.0.1), --port (8080), --font \
            (and --bold-font, --italic-font, --bold-italic-font, --mono-font, --mono-bold-font), --size, \
            --max-lines, --line-height, --line-height-multiple, --breaking, --cached-texts, \
            --cached-megabytes, --store, --max-body-bytes, --max-items, --max-text-bytes, \
            --max-connections, --idle-timeout, --shutdown-timeout, --demo, --no-demo. Build the server with \
            `swift build -c release --product textmeasure-serve`.
            """)

    @Argument(parsing: .captureForPassthrough, help: "Options for textmeasure-serve.")
    var arguments: [String] = []

    /// The server's executable, beside this one.
    static let server = SiblingExecutable(name: "textmeasure-serve", product: "textmeasure-serve",
                                          purpose: "The HTTP server")

    func run() throws {
        try Self.server.exec(arguments: arguments)
    }
}
