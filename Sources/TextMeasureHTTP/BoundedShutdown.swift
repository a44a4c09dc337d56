import Logging
import ServiceLifecycle
import UnixSignals

/// Runs a service (the server's Hummingbird application) until SIGTERM or SIGINT, then shuts it down
/// gracefully for at most a grace period: the service returns within about that long after the signal,
/// however its clients behave, so that what follows it (closing the height store) gets done before a
/// container's orchestrator gives up on the process.
///
/// - The first signal starts graceful shutdown (swift-service-lifecycle's): the server stops
///   accepting connections, closes the idle ones, and answers the requests in flight.
/// - Once ``gracePeriod`` has passed, the `ServiceGroup` running the service
///   (`maximumGracefulShutdownDuration`) cancels it; the server then closes every connection left,
///   answers unwritten or unread included (``MeasureHTTP1Channel``), and returns.
/// - A second signal, SIGTERM or SIGINT, during the grace period cancels the service at once, as the
///   end of the grace period would.
///
/// `Application.runService()` does only the first: its `ServiceGroup` takes one signal and leaves the
/// signals ignored afterwards (swift-service-lifecycle's `UnixSignalsSequence` sets `SIG_IGN`), so a
/// second SIGTERM does nothing, and a client that never reads its answer holds the process until its
/// connection's idle timeout. One `ServiceGroup` cannot have a signal start graceful shutdown and then
/// cancel (its graceful-shutdown and cancellation signals must differ), so the signals are watched
/// here and handed to the group, as `triggerGracefulShutdown()` and then as cancellation of its task.
///
/// The group sets no `maximumCancellationDuration`: its escalation is a `fatalError`, which would end
/// the process without closing the store. Cancellation closes the connections at once; what may go on
/// is a measurement under way on a worker thread, which ends by itself (a height store's look-ups
/// are bounded too).
///
/// ```swift
/// try await BoundedShutdown(gracePeriod: .seconds(10)).run(server.application(host: "127.0.0.1", port: 8080))
/// ```
///
/// Thread safety: `Sendable`, a value.
package struct BoundedShutdown: Sendable {
    /// How long requests in flight at the first signal have to be answered before the service is
    /// cancelled.
    package var gracePeriod: Duration

    /// The signals that start graceful shutdown, the second of which cuts it short.
    package static let signals: [UnixSignal] = [.sigterm, .sigint]

    /// A shutdown that gives requests in flight `gracePeriod`.
    ///
    /// - Parameter gracePeriod: How long after the first signal the service is cancelled (zero or
    ///   more; zero cancels it at once).
    package init(gracePeriod: Duration) {
        self.gracePeriod = gracePeriod
    }

    /// Runs `service` until it returns, shutting it down on the process's SIGTERM and SIGINT.
    ///
    /// The signals are trapped before the service starts (from then on their default action, ending
    /// the process, no longer applies) and stay trapped when it returns.
    ///
    /// - Parameters:
    ///   - service: the service to run, typically the server's Hummingbird application.
    ///   - logger: the logger of the group that runs it; each signal is logged at `notice`.
    /// - Throws: what the service throws.
    package func run(_ service: some Service, logger: Logger) async throws {
        let signals = await UnixSignalsSequence(trapping: Self.signals)
        try await run(service, signals: signals, logger: logger)
    }

    /// Runs `service` until it returns, shutting it down on the elements of `signals`: the first starts
    /// graceful shutdown, the second cancels the service. A sequence that ends leaves the service to
    /// run, or to shut down, on its own.
    ///
    /// - Parameters:
    ///   - service: the service to run.
    ///   - signals: the signals received, in order (``run(_:logger:)``: SIGTERM and SIGINT).
    ///   - logger: the logger of the group that runs the service; each signal is logged at `notice`.
    /// - Throws: what the service throws, or what iterating `signals` throws.
    package func run<Signals: AsyncSequence & Sendable>(_ service: some Service, signals: Signals,
                                                        logger: Logger) async throws
    where Signals.Element == UnixSignal {
        var configuration = ServiceGroupConfiguration(services: [service], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        let gracePeriod = self.gracePeriod
        try await withThrowingTaskGroup(of: Outcome.self) { tasks in
            tasks.addTask {
                try await group.run()
                return .serviceReturned
            }
            tasks.addTask {
                var received = 0
                for try await signal in signals {
                    received += 1
                    if received == 1 {
                        logger.notice("\(signal): shutting down; requests in flight have \(gracePeriod) to be answered")
                        await group.triggerGracefulShutdown()
                    } else {
                        logger.notice("\(signal) during shutdown: closing the connections left now")
                        return .cutShort
                    }
                }
                return .signalsEnded
            }
            while let outcome = try await tasks.next() {
                switch outcome {
                case .serviceReturned:
                    // The signal watcher is stopped, and awaited as the task group ends.
                    tasks.cancelAll()
                    return
                case .cutShort:
                    // The group's task is cancelled, and the group cancels the service.
                    tasks.cancelAll()
                case .signalsEnded:
                    continue
                }
            }
        }
    }

    /// How one of the two tasks ended.
    private enum Outcome: Sendable {
        case serviceReturned
        case cutShort
        case signalsEnded
    }
}
