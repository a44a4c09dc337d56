import NIOCore

/// Answers `POST /v1/measure` from the bytes read off the connection, ahead of NIO's HTTP/1 decoder,
/// when the request is written in a strict subset of HTTP/1.1 (``StrictRequestFrame``) and its texts are
/// all held: the response's bytes are ``QuickMeasureHandler``'s, written at once, with its metrics.
/// Such a request costs no decoding into parts, no encoding of a response head, and no trip through
/// the handlers after the decoder and back, which together cost a held request more than its items'
/// layout does.
///
/// What it does not answer goes on to the decoder, and so to the handlers after it, unchanged:
/// - a request in the subset that is not a measure request to take, or whose texts are not all held, or
///   that arrives while the quick handler cannot let an answer go ahead of it
///   (``QuickMeasureHandler/answersMayGoAhead``: a request before it is still the router's), goes on
///   alone, whole, so that the decoder is left at the start of the next request and the handler may
///   answer the one after;
/// - bytes outside the subset go on with everything after them, as do all bytes once the quick
///   handler hands everything on (a refusal, the request that ends the connection, a decoder
///   error), once graceful shutdown begins, or once the client closes its side: from then on this
///   handler only passes bytes through.
///
/// A request whose head is whole and whose body is still coming goes to the decoder as its bytes
/// come, as a request not answered here: the quick handler may answer it, and from the head on it
/// counts as in flight, as without this handler. The start of a head not yet whole is kept until the rest
/// comes (within ``StrictRequestFrame/maximumHeadBytes``); if the connection closes or shutdown begins
/// first, it goes on to the decoder, which then sees what it would have seen. Each request answered
/// here counts for the idle handler as a request read (``IdleConnectionHandler/noteAnswer(at:)``); the
/// bytes of a head not yet whole do not, as they do not in the decoder. The answers written for one
/// read go out in one flush, at its end or before a request handed on; the end of a read goes on to
/// the decoder only when some bytes did since the last.
///
/// It sits first in the connection's pipeline, before NIO's response encoder and request decoder
/// (see ``MeasureHTTP1Channel``).
///
/// Thread safety: not `Sendable`; a handler belongs to one channel and runs on its event loop, as do
/// the quick and idle handlers it works with.
final class WireMeasureHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let quick: QuickMeasureHandler
    private let idle: IdleConnectionHandler
    private let maximumBodyBytes: Int
    /// Bytes read and neither answered nor handed on: the start of a request head not yet whole.
    private var pending: ByteBuffer?
    /// How many bytes at the start of ``pending`` are known to hold no end of a head: a head sent a few
    /// bytes at a time is searched once through, not framed again from its start at each read.
    private var pendingSearched = 0
    /// How many bytes of the request being handed on are still to come: the rest of a body.
    private var passing = 0
    /// Whether every byte from now on goes to the decoder as it comes.
    private(set) var handsOnAll = false
    /// Whether the channel went inactive (possibly while a request handed on was being read).
    private var isClosed = false
    /// Whether bytes went to the decoder since the last end of a read: if not, the handlers after this
    /// one have nothing to finish, and the end of the read stops here.
    private var handedOnSinceReadComplete = false

    /// A handler answering through `quick`, telling `idle` of each answer (both of the same connection),
    /// and framing bodies of at most `maximumBodyBytes`.
    init(quick: QuickMeasureHandler, idle: IdleConnectionHandler, maximumBodyBytes: Int) {
        self.quick = quick
        self.idle = idle
        self.maximumBodyBytes = maximumBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !handsOnAll else {
            context.fireChannelRead(data)
            return
        }
        var bytes = unwrapInboundIn(data)
        if passing > 0 {
            let count = min(passing, bytes.readableBytes)
            passing -= count
            handOn(bytes.readSlice(length: count)!, context: context)
        }
        if var held = pending {
            pending = nil
            held.writeBuffer(&bytes)
            bytes = held
            guard Self.containsHeadEnd(bytes, searchingFrom: max(0, pendingSearched - 3)) else {
                if bytes.readableBytes >= StrictRequestFrame.maximumHeadBytes {
                    handOnAll(bytes, context: context)
                } else {
                    pending = bytes
                    pendingSearched = bytes.readableBytes
                }
                return
            }
        }
        var answered = false
        defer { if answered { context.flush() } }
        while bytes.readableBytes > 0 && !isClosed {
            guard !quick.handsOnAll else {
                handOnAll(bytes, context: context)
                return
            }
            let outcome = bytes.withUnsafeReadableBytes {
                StrictRequestFrame.read($0, maximumBodyBytes: maximumBodyBytes)
            }
            switch outcome {
            case .incomplete:
                // A head in the subset so far, without its end (the reader would have stopped there).
                pending = bytes
                pendingSearched = bytes.readableBytes
                return
            case .unframeable:
                handOnAll(bytes, context: context)
                return
            case .request(let frame) where frame.length > bytes.readableBytes:
                // Its body is still coming: it goes to the decoder as it comes, read (and counted in
                // flight, and kept open by graceful shutdown) as it would be without this handler.
                if answered { context.flush() }
                answered = false
                passing = frame.length - bytes.readableBytes
                handOn(bytes, context: context)
                return
            case .request(let frame):
                let response = frame.isMeasureRequest && quick.answersMayGoAhead
                    ? bytes.withUnsafeReadableBytes {
                        quick.wireResponse(to: UnsafeRawBufferPointer(rebasing: $0[frame.body]),
                                           allocator: context.channel.allocator)
                    } : nil
                if let response {
                    // A request read whole is activity; the bytes of a head not yet whole are not (a client
                    // sending a head a byte at a time does not keep its connection open).
                    idle.noteAnswer(at: context.eventLoop.now)
                    bytes.moveReaderIndex(forwardBy: frame.length)
                    context.write(wrapOutboundOut(response), promise: nil)
                    answered = true
                } else {
                    // The answers so far go out now, not after the router's answer to this one.
                    if answered { context.flush() }
                    answered = false
                    handOn(bytes.readSlice(length: frame.length)!, context: context)
                }
            }
        }
    }

    /// Hands `bytes` to the decoder.
    private func handOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        handedOnSinceReadComplete = true
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    /// Hands `bytes`, and every byte after them, to the decoder.
    private func handOnAll(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        handsOnAll = true
        if bytes.readableBytes > 0 { handOn(bytes, context: context) }
    }

    /// Hands what is kept to the decoder, and everything after it.
    private func handOnPending(context: ChannelHandlerContext) {
        handsOnAll = true
        if let bytes = pending {
            pending = nil
            handOn(bytes, context: context)
        }
    }

    /// Whether the readable bytes of `bytes`, from `offset` on, hold the CR LF CR LF that ends a head.
    private static func containsHeadEnd(_ bytes: ByteBuffer, searchingFrom offset: Int) -> Bool {
        bytes.withUnsafeReadableBytes { bytes in
            var index = offset + 3
            while index < bytes.count {
                if bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
                    return true
                }
                index += 1
            }
            return false
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // A read answered here whole is nothing to the handlers after this one (the decoder, the idle and
        // quick handlers, the router's reader: none of them acts on the end of a read it saw nothing of):
        // the event would pass through each of them for nothing.
        guard handsOnAll || handedOnSinceReadComplete else { return }
        handedOnSinceReadComplete = false
        context.fireChannelReadComplete()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        handOnPending(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Graceful shutdown and the client's half-close: the decoder and the idle handler decide, on
        // everything read.
        if event is ChannelShouldQuiesceEvent || event as? ChannelEvent == .inputClosed {
            handOnPending(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOnPending(context: context)
        isClosed = true
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension WireMeasureHandler: Sendable {}
