import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 connection with an ``IdleConnectionHandler`` and a ``QuickMeasureHandler``
/// between NIO's HTTP/1 codec and Hummingbird's conversion to HTTP types: the pipeline
/// ``MeasureServer`` serves with.
///
/// The pipeline, from the socket: NIO's response encoder and request decoder,
/// ``HTTP1ConformanceHandler``, ``IdleConnectionHandler``, ``QuickMeasureHandler``, the conversion to
/// HTTP types, the channel's async wrapper (Hummingbird's router). Hummingbird's own connection state
/// handler is taken out: after the conversion, it would not see the requests the quick handler
/// answers, and would close a connection busy with them as idle; the idle handler keeps its rules
/// ahead of the quick handler instead. The handlers are added once Hummingbird has set the pipeline
/// up, before the connection is read.
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
            let state = try pipeline.context(handlerType: HTTPConnectionStateHandler.self)
            pipeline.removeHandler(context: state, promise: nil)
            // After the conformance handler where there is one, else right after the decoder.
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let before: any ChannelHandler
            if let conformance = try? pipeline.handler(type: HTTP1ConformanceHandler.self) {
                before = conformance
            } else {
                before = decoder
            }
            let idle = IdleConnectionHandler(idleTimeout: base.configuration.idleTimeout)
            try pipeline.addHandler(idle, position: .after(before))
            try pipeline.addHandler(quickHandler(), position: .after(idle))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
