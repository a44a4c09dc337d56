import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 connection with a ``WireMeasureHandler`` before NIO's HTTP/1 codec, and an
/// ``IdleConnectionHandler`` and a ``QuickMeasureHandler`` between the codec and Hummingbird's
/// conversion to HTTP types: the pipeline ``MeasureServer`` serves with.
///
/// The pipeline, from the socket: NIO's `BackPressureHandler`, the wire handler (strictly written
/// measure requests whose texts are held, answered from their bytes), NIO's response encoder and
/// request decoder, ``IdleConnectionHandler``, ``QuickMeasureHandler``,
/// ``HTTP1ConformanceHandler``, the conversion to HTTP types, the channel's async wrapper
/// (Hummingbird's router). Hummingbird's own connection state handler is taken out: after the
/// conversion, it would not see the requests the quick handler answers, and would close a
/// connection busy with them as idle; the idle handler keeps its rules ahead of the quick handler
/// instead. The quick handler comes before the conformance handler so that the requests it answers
/// pass one handler fewer each way; it takes only requests that handler would let through
/// unchanged. The handlers are added once Hummingbird has set the pipeline up, before the
/// connection is read.
///
/// The back-pressure handler stops reading the connection while its written bytes wait above the
/// channel's high-water mark, until they drain below the low one. The router's writer waits for
/// that too, but the quick and wire handlers answer in the pipeline as they read: without it, a
/// client that pipelines requests and never reads the answers would have the server read and answer
/// without end, holding every answer in memory. With it, such a client costs the server the
/// high-water mark (64 KiB) and the answers to one read, beyond the sockets' buffers, and
/// ``IdleConnectionHandler`` closes it after the idle timeout.
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
            try Self.addHandlers(to: pipeline, idleTimeout: base.configuration.idleTimeout, quick: quickHandler())
            return value
        }
    }

    /// Adds an idle handler and `quick` right after NIO's request decoder, ahead of whatever follows it
    /// (the conformance handler, in the server), a ``WireMeasureHandler`` before NIO's response encoder
    /// and request decoder, and NIO's `BackPressureHandler` first.
    ///
    /// - Parameters:
    ///   - pipeline: A pipeline with NIO's HTTP/1 server codec.
    ///   - idleTimeout: The idle handler's timeout.
    ///   - quick: The connection's quick handler.
    ///   - answersOnTheWire: Whether to add the wire handler (tests compare the answers without it).
    /// - Throws: `ChannelPipelineError` when the pipeline has no HTTP/1 request decoder or response encoder.
    static func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations, idleTimeout: TimeAmount?,
                            quick: QuickMeasureHandler, answersOnTheWire: Bool = true) throws {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
        let idle = IdleConnectionHandler(idleTimeout: idleTimeout)
        try pipeline.addHandler(idle, position: .after(decoder))
        try pipeline.addHandler(quick, position: .after(idle))
        if answersOnTheWire {
            // Its answers are bytes: it goes where they need no encoder, and before the decoder.
            try pipeline.addHandler(
                WireMeasureHandler(quick: quick, idle: idle, maximumBodyBytes: quick.endpoint.limits.maximumBodyBytes),
                position: .before(encoder))
        }
        // A read asked for anywhere in the pipeline passes it on the way to the socket.
        try pipeline.addHandler(BackPressureHandler(), position: .first)
    }

    /// Serves the connection with Hummingbird's HTTP/1 handling, until it closes or the task is
    /// cancelled (the server's shutdown grace period is over: ``BoundedShutdown``); then it closes the
    /// connection, whatever it still has to write or its client has left unread.
    ///
    /// Hummingbird, cancelled, closes only the connection's input. That ends a connection whose
    /// handling is reading a request or writing an answer, but not one that only waits to close (after
    /// a request with `Connection: close`, or once the client has closed its side): NIO closes that
    /// one when its written bytes have gone out, which, with a client that never reads them, is at the
    /// idle timeout, and the server's shutdown would wait for it.
    ///
    /// - Parameters:
    ///   - value: the connection, as its async wrapper.
    ///   - logger: the server's logger.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            await base.handle(value: value, logger: logger)
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
