import NIOHTTP1

extension MeasureEndpoint {
    /// Whether ``QuickMeasureHandler`` takes a request with this head when nothing before it on its
    /// connection is the router's: `POST /v1/measure HTTP/1.1`, keeping the connection alive, one
    /// `Host`, one `Content-Length` within ``ServerLimits/maximumBodyBytes``, no `Transfer-Encoding` or
    /// `Expect` (the handler's rule, without the connection's state).
    ///
    /// - Complexity: O(*h*) in the head's header lines.
    package func takesQuickly(_ head: HTTPRequestHead) -> Bool {
        guard head.method == .POST, head.uri == QuickMeasureHandler.path, head.version == .http1_1,
              head.isKeepAlive else { return false }
        // NIO's look-ups ignore the case of header names, as HTTP1ConformanceHandler's do.
        let lengths = head.headers["content-length"]
        guard lengths.count == 1, let length = Int(lengths[0]), length >= 0,
              !head.headers.contains(name: "transfer-encoding"), !head.headers.contains(name: "expect"),
              HTTP1ConformanceHandler.refusal(of: head) == nil   // its Host rule, said once
        else { return false }
        return length <= limits.maximumBodyBytes
    }
}
