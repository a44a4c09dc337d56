import ArgumentParser
import CThreadAffinity

/// The `textmeasure` command line, run by both `textmeasure` and `textmeasure-store` (the same
/// commands with the height store linked in; see ``HeightStoreLink``).
package struct TextMeasureCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "textmeasure",
        abstract: "Measure how tall text will be at a width, without rendering it.",
        discussion: """
            Uses the bundled fonts unless --font is given (first = primary, rest = fallbacks in order; \
            PATH#N picks face N of a .ttc collection). Sizes and widths are pixels.
            """,
        subcommands: [MeasureCommand.self, BatchCommand.self, ServeCommand.self, StoreCommand.self,
                      RenderCommand.self]
    )

    package init() {}

    /// Runs the command line of this process.
    package static func main() {
        csched_remember_affinity()   // before any thread is pinned (see CPUSpread)
        // The bundled fonts load while the arguments are parsed (see BundledMeasurer).
        BundledMeasurer.preload()
        // A bare `textmeasure batch`, as scripts and pipelines call it: nothing to parse, so
        // ArgumentParser is not set up at all (it was half of the process's start-up instructions).
        // Its options are the parsed command's defaults, and the store is what `--store` would
        // default to: $TEXTMEASURE_STORE (`BatchCommand.run`). Errors are reported as ArgumentParser
        // reports them.
        if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "batch" {
            do {
                try BatchRun(store: HeightStoreAccess.location(option: nil)).run()
                return
            } catch {
                exit(withError: error)
            }
        }
        main(nil)
    }
}
