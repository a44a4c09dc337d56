import NIOCore
import NIOHTTP1

/// Closes a connection that has nothing to do: after its idle timeout, and at graceful shutdown once
/// the requests read from it are answered. Hummingbird's `HTTPConnectionStateHandler` keeps the same
/// rules on HTTP types; this one keeps them on NIO's HTTP/1 parts, so that it sits ahead of
/// ``QuickMeasureHandler`` and sees the requests answered there as well as the router's.
///
/// The rules:
/// - the idle timeout counts from the last request part read (a head, a piece of body, an end) or,
///   once no request is left to answer, from the end of the last response written or the last time
///   written bytes drained (the channel became writable again); while a request read whole waits
///   for its response and the channel is writable, the connection is not idle, however long that
///   takes;
/// - while the channel is not writable (its written bytes wait for the client to read them), the
///   timeout counts from when it stopped being writable or, if the bytes waiting in the channel have
///   fewer since, from when that was last seen (a check at each deadline), requests in flight or
///   not: a client that reads nothing is idle, and the server stops reading it meanwhile
///   (``MeasureHTTP1Channel``), while one that reads a large response slowly is kept;
/// - `ChannelShouldQuiesceEvent` (graceful shutdown) closes the connection at once when no request is
///   in flight (read, in part or whole, and not answered), and otherwise once the response that
///   leaves none is written.
///
/// It sits right after NIO's decoder, before ``QuickMeasureHandler``, ``HTTP1ConformanceHandler`` and
/// Hummingbird's conversion to HTTP types (see ``MeasureHTTP1Channel``), in place of Hummingbird's
/// handler. A request the conformance handler refuses is answered by it, so its response's end comes
/// by; the requests it leaves unread after a refusal, or after the request after which the connection
/// closes, are not counted here (``HTTP1ConformanceHandler/StopsReading``): they will not be answered,
/// and a connection whose client stops reading before that close would otherwise never be idle.
///
/// Thread safety: not `Sendable`; a handler belongs to one channel and runs on its event loop.
final class IdleConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How long the connection may stay idle; nil: without limit.
    let idleTimeout: TimeAmount?
    /// Requests whose head was read and whose response has not been written whole.
    private(set) var requestsInFlight = 0
    /// Whether a request head was read and its end not yet.
    private var isReadingRequest = false
    /// Whether the requests read are counted: until the conformance handler stops reading them.
    private var countsRequests = true
    /// When the connection last did something that counts against the timeout.
    private var lastActive = NIODeadline.uptimeNanoseconds(0)
    private var isActive = false
    /// Since when the channel has not been writable, or last seen to drain while not; nil while it is
    /// writable.
    private var unwritableSince: NIODeadline?
    /// The bytes waiting in the channel at ``unwritableSince``.
    private var bufferedSince = 0
    /// Whether graceful shutdown asked to close the connection once its requests are answered.
    private var closesWhenAnswered = false
    private var idleCheck: Scheduled<Void>?

    /// A handler closing the connection after `idleTimeout` of idleness (nil: never for idleness).
    init(idleTimeout: TimeAmount?) {
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { becomeActive(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        becomeActive(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        if context.channel.isWritable {
            unwritableSince = nil
            lastActive = now   // written bytes drained: the client is reading
        } else if unwritableSince == nil {
            unwritableSince = now
            bufferedSince = Self.bufferedBytes(context) ?? 0
            if let idleTimeout, isActive { scheduleIdleCheck(at: now + idleTimeout, context: context) }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActive = context.eventLoop.now
        guard countsRequests else {
            context.fireChannelRead(data)
            return
        }
        switch unwrapInboundIn(data) {
        case .head:
            isReadingRequest = true
            requestsInFlight += 1
        case .body:
            break
        case .end:
            isReadingRequest = false
        }
        context.fireChannelRead(data)
    }

    /// Counts a request read and answered before NIO's decoder, by ``WireMeasureHandler``, as activity:
    /// such requests never reach this handler, and a connection busy with them is not idle.
    ///
    /// - Parameter now: The event loop's time of the answer.
    func noteAnswer(at now: NIODeadline) {
        lastActive = now
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data), requestsInFlight > 0 else {
            context.write(data, promise: promise)
            return
        }
        requestsInFlight -= 1
        guard requestsInFlight == 0 else {
            context.write(data, promise: promise)
            return
        }
        if let idleTimeout, isActive {
            // Also when closing once the response is out: a client that does not read it is closed
            // as idle.
            lastActive = context.eventLoop.now
            scheduleIdleCheck(at: lastActive + idleTimeout, context: context)
        }
        if closesWhenAnswered {
            // Closed once the response is out, not cut short by the close.
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            return
        }
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is HTTP1ConformanceHandler.StopsReading else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        // A refused request counts as read whole: its refusal is its answer.
        countsRequests = false
        isReadingRequest = false
        promise?.succeed()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if requestsInFlight > 0 {
            closesWhenAnswered = true
        } else {
            context.close(promise: nil)
        }
    }

    private func becomeActive(context: ChannelHandlerContext) {
        isActive = true
        lastActive = context.eventLoop.now
        if let idleTimeout { scheduleIdleCheck(at: lastActive + idleTimeout, context: context) }
    }

    /// The bytes written to the channel and not yet to its socket; nil if the channel cannot tell.
    private static func bufferedBytes(_ context: ChannelHandlerContext) -> Int? {
        try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)
    }

    /// Checks for idleness at `deadline`, unless a check is already due.
    private func scheduleIdleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        guard idleCheck == nil else { return }
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
            self.idleCheck = nil
            self.checkIdleness(context: context)
        }
    }

    private func checkIdleness(context: ChannelHandlerContext) {
        guard let idleTimeout, isActive else { return }
        let now = context.eventLoop.now
        let deadline: NIODeadline
        if var since = unwritableSince {
            // The client is not reading what was written, answers or not; unless it has read some
            // since the last check.
            if now >= since + idleTimeout, let buffered = Self.bufferedBytes(context), buffered < bufferedSince {
                since = now
                unwritableSince = now
                bufferedSince = buffered
            }
            deadline = since + idleTimeout
        } else {
            // A request read whole is being answered: the response's end schedules the next check.
            if !isReadingRequest && requestsInFlight > 0 { return }
            deadline = lastActive + idleTimeout
        }
        if now >= deadline {
            context.close(promise: nil)
        } else {
            scheduleIdleCheck(at: deadline, context: context)
        }
    }
}

@available(*, unavailable)
extension IdleConnectionHandler: Sendable {}
