import ArgumentParser
import Dispatch
import Logging
import NIOCore
import NIOPosix
import TextMeasure
import TextMeasureBatch
import TextMeasureCommands
import TextMeasureHTTP
import TextMeasureStore

#if canImport(Glibc)
import Glibc
#endif

/// `textmeasure-serve` (also run as `textmeasure serve`): heights over HTTP until SIGTERM or SIGINT.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "textmeasure serve",
        abstract: "Measure text over HTTP: POST /v1/measure, GET /healthz, GET /metrics, the web demo at /demo/.",
        discussion: """
            POST /v1/measure takes one batch line object (\(BatchOptions.itemFormat), other fields \
            echoed) or an array of them, and answers with the batch protocol's result or error objects, \
            in order; \(BatchOptions.spansMeaning). SIGTERM or SIGINT stops accepting connections, \
            lets requests in flight finish for up to --shutdown-timeout seconds and closes the connections \
            left (a second signal closes them at once); what was measured is then written to the height \
            store (--store) before the process exits. --size, --max-lines and --breaking are the style of \
            items without "size", "maxLines" and "breaking".

            GET /demo/ is the web demo (Examples/web: a virtualized chat whose rows are placed with the \
            heights this server gives) and GET /fonts/NAME.ttf the bundled font files it draws with, with \
            ETag, Last-Modified and Cache-Control; --no-demo serves neither.
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (printed on standard output).")
    var port = 8080

    @OptionGroup var styleOptions: StyleOptions

    @Option(help: "Prepared texts kept for reuse, 1 to \(PreparedTextCache.maximumCapacity) (see `textmeasure batch --help`).")
    var cachedTexts = 1_000

    @Option(help: "Megabytes (MiB) the prepared texts kept may take together.")
    var cachedMegabytes = PreparedTextCache.defaultMaximumBytes >> 20

    @Option(help: ArgumentHelp("""
        A height store, a SQLite file (created if missing) or postgres://USER@HOST:PORT/DATABASE \
        (default: $TEXTMEASURE_STORE), shared with `textmeasure batch --store` and other processes and \
        machines: results found there are not measured, and what is measured is saved there. An \
        unusable store is skipped with a warning.
        """, valueName: "path|url"))
    var store: String?

    @Option(help: "The largest request body, in bytes (413 beyond).")
    var maxBodyBytes = ServerLimits().maximumBodyBytes

    @Option(help: "The most items in one request (413 beyond).")
    var maxItems = ServerLimits().maximumItems

    @Option(help: "The longest \"text\" of an item, in UTF-8 bytes (413 beyond).")
    var maxTextBytes = ServerLimits().maximumTextBytes

    @Option(help: "The most connections held at once; one past them is closed as soon as it is accepted.")
    var maxConnections = ServerLimits().maximumConnections

    @Option(help: """
        Seconds a connection is kept with nothing read from it (no complete request head, no piece of \
        body) while none of its requests is being answered, or while its client reads none of the \
        answers written; then it is closed.
        """)
    var idleTimeout: Double = 60

    // 10 s: a measure request is answered in well under a second, so every client that reads its
    // answer gets it; and of the 30 s a container's orchestrator allows after SIGTERM before it kills
    // the process (Kubernetes' default terminationGracePeriodSeconds), the rest is enough for the
    // store's close (a PostgreSQL store's pending writes wait at most 10 s) and the exit.
    @Option(help: """
        Seconds that the requests in flight at SIGTERM or SIGINT have to be answered; then the \
        connections left are closed, whether their clients have read their answers or not, and the \
        height store is closed. A second signal closes them at once.
        """)
    var shutdownTimeout: Double = 10

    @Option(help: ArgumentHelp("""
        The web demo's folder, served at /demo/ (default: Examples/web beside the executable or in a \
        folder above it, else the package's own).
        """, valueName: "folder"))
    var demo: String?

    @Flag(help: "Serve neither the web demo (/demo/) nor the bundled fonts (/fonts/).")
    var noDemo = false

    func validate() throws {
        // The style options validate themselves (`StyleOptions.validate`).
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port \(port) is out of range: must be from 0 to 65535")
        }
        for (option, value) in [("--max-body-bytes", maxBodyBytes), ("--max-items", maxItems),
                                ("--max-text-bytes", maxTextBytes), ("--max-connections", maxConnections)] where value < 1 {
            throw ValidationError("\(option) \(value) is out of range: must be an integer of at least 1")
        }
        try BatchOptions.validateCachedTexts(cachedTexts)
        guard idleTimeout > 0, idleTimeout <= 86_400 else {
            throw ValidationError("--idle-timeout \(idleTimeout) is out of range: must be more than 0 and at most 86400 seconds")
        }
        guard shutdownTimeout >= 0, shutdownTimeout <= 3_600 else {
            throw ValidationError("--shutdown-timeout \(shutdownTimeout) is out of range: must be from 0 to 3600 seconds")
        }
    }

    func run() async throws {
        let measurer: TextMeasurer
        do {
            measurer = try StyleOptions.makeMeasurer(fonts: styleOptions.faceFonts)
        } catch {
            throw ValidationError("\(error)")
        }
        let bytes = cachedMegabytes > Int.max >> 20 ? Int.max : max(0, cachedMegabytes) << 20
        let folders = noDemo ? [] : try DemoFolders.folders(demo: demo)
        // Opened last, after everything that may throw: it is closed at the end of the service.
        let heightStore = HeightStoreAccess.location(option: store).flatMap { HeightStore.openOrWarn(path: $0) }
        let processor = BatchProcessor(measurer: measurer, style: styleOptions.style, preparedTexts: max(1, cachedTexts),
                                       preparedTextBytes: bytes, store: heightStore)
        let server = MeasureServer(processor: processor, limits: ServerLimits(
            maximumBodyBytes: maxBodyBytes, maximumItems: maxItems, maximumTextBytes: maxTextBytes,
            maximumConnections: maxConnections), staticFolders: folders)
        var logger = Logger(label: "textmeasure-serve")
        logger.logLevel = .notice
        let host = self.host
        // The tasks that answer requests run on the event loops that read them, not on Swift's
        // cooperative pool: a request whose texts are held is then read, laid out and answered on one
        // thread, without two hops between threads (to the pool and back) on a machine of few cores.
        // Nothing the tasks run blocks: shaping and the store wait on Dispatch workers.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        let service = server.application(host: host, port: port, idleTimeout: .seconds(idleTimeout), logger: logger) { port in
            // One line on standard output, flushed: scripts and tests read the port from it.
            print("textmeasure-serve: listening on http://\(host):\(port)")
            if let demo = folders.first(where: { $0.prefix == DemoFolders.demoPrefix }) {
                print("textmeasure-serve: the web demo (\(demo.root)) is at http://\(host):\(port)\(demo.prefix)")
            }
            fflush(nil)
        }
        let result: Result<Void, any Error>
        do {
            try await BoundedShutdown(gracePeriod: .seconds(shutdownTimeout)).run(service, logger: logger)
            result = .success(())
        } catch {
            result = .failure(error)
        }
        // Whatever ends the service (a signal, an error), what was measured reaches the file, and the
        // file alone: closing folds the write-ahead log in, so that copying the .sqlite loses nothing.
        // On a Dispatch thread: closing waits for the store's writes, which a PostgreSQL store makes
        // on the event loops this task now runs on.
        if let heightStore {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    heightStore.close()
                    done.resume()
                }
            }
        }
        try result.get()
    }

}
