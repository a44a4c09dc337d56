import Dispatch
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// Bounds the connections the server holds: on the listening channel, it counts each connection
/// accepted until it closes, and closes a new one at once while ``maximum`` are held.
///
/// Closed, not left waiting: Hummingbird's own limit stops accepting, so that new connections wait in
/// the kernel's backlog, and a client past the limit then waits with no answer until a held connection
/// closes (perhaps only at the idle timeout); a closed connection tells it at once, and the held ones
/// go on being answered. Each connection held costs the server memory (its channel, pipeline, buffers
/// and task), so the limit bounds what idle or slow clients can make it hold.
///
/// When many connections have closed (the count falls to a quarter of a peak of at least
/// ``trimPeak``), the memory they held is handed back to the system (glibc's `malloc_trim`, on a
/// Dispatch thread): the allocator otherwise keeps freed pages for the process, so a burst of idle
/// connections left the server's resident size at its peak after they were gone.
///
/// Thread safety: not `Sendable`; it runs on the listening channel's event loop, and each closed
/// connection's count comes back to that loop.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// The most connections held at once.
    let maximum: Int
    private let metrics: ServerMetrics
    /// Connections accepted and not yet closed.
    private var open = 0
    /// The most connections held since memory was last handed back.
    private var peak = 0
    /// The smallest peak worth handing memory back after: a few kilobytes a connection, so below it
    /// there is little to give.
    static let trimPeak = 256

    /// A limit of `maximum` connections, counted in `metrics`.
    ///
    /// - Parameters:
    ///   - maximum: The most connections held at once (at least 1).
    ///   - metrics: Where connections opened, closed and refused are counted.
    init(maximum: Int, metrics: ServerMetrics) {
        self.maximum = max(1, maximum)
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let connection = unwrapInboundIn(data)
        guard open < maximum else {
            // Not passed on, so never set up: closing it is all (as NIO's quiescing helper does).
            metrics.connectionRefused()
            connection.close(promise: nil)
            return
        }
        open += 1
        peak = max(peak, open)
        metrics.connectionOpened()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        connection.closeFuture.hop(to: context.eventLoop).whenComplete { [metrics] _ in
            handler.value.connectionClosed()
            metrics.connectionClosed()
        }
        context.fireChannelRead(data)
    }

    private func connectionClosed() {
        open -= 1
        guard peak >= Self.trimPeak, open <= peak / 4 else { return }
        peak = open
        // Walks the allocator's arenas: not on the event loop.
        if let trim = Self.mallocTrim { DispatchQueue.global(qos: .utility).async { _ = trim(0) } }
    }

    /// glibc's `malloc_trim`, looked up by name: `<malloc.h>` is not part of the `Glibc` module. Nil
    /// where the C library has none.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }   // nil: RTLD_DEFAULT
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
