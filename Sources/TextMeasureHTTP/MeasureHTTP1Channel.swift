import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 connection with a ``QuickMeasureHandler`` right after its connection state
/// handler: the pipeline ``MeasureServer`` serves with.
///
/// Hummingbird adds its additional handlers before the state handler, which has to see every request
/// the quick handler answers (for the idle timeout and graceful shutdown); so the quick handler is
/// added here, once the pipeline is set up and before the connection is read.
///
/// Thread safety: `Sendable`; it holds the HTTP/1 channel's set-up and a `Sendable` handler maker.
struct MeasureHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    /// Hummingbird's HTTP/1 channel.
    let base: HTTP1Channel
    /// Makes each connection's quick handler.
    let quickHandler: @Sendable () -> QuickMeasureHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(quickHandler(), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
