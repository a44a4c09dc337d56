import HummingbirdCore
import NIOHTTP1

extension MeasureServer {
    /// Whether the router reads the body of a request with this head before it answers, for
    /// ``HTTP1ConformanceHandler``'s `100 Continue`: a server that will answer from the head alone
    /// sends that final answer and does not ask for the body (RFC 9110 §10.1.1).
    ///
    /// Only the measure route reads a body, and only when the `Content-Length`, if any, is within
    /// `maximumBodyBytes` (above it the route answers 413 from the header: ``declaresBodyOverLimit(_:maximumBodyBytes:)``,
    /// the route's own test). Every other request is answered without its body: a 404 or 405 from the
    /// router, a static file, `/healthz` or `/metrics`. The path is found as Hummingbird's router finds
    /// it: its `URI`'s path, split at `/` with empty components skipped, compared case for case.
    ///
    /// A wrong "no" would leave a client waiting for `100 Continue` while the route waits for the body;
    /// a wrong "yes" only asks for a body the route then leaves unread. So anything that may reach the
    /// route says yes.
    ///
    /// - Parameters:
    ///   - head: A request head let through by ``HTTP1ConformanceHandler/refusal(of:)``.
    ///   - maximumBodyBytes: ``ServerLimits/maximumBodyBytes``.
    /// - Returns: Whether its body will be read.
    /// - Complexity: O(*n*) in the target's length and the head's header lines.
    static func readsBody(of head: HTTPRequestHead, maximumBodyBytes: Int) -> Bool {
        guard head.method == .POST,
              URI(head.uri).path.split(separator: "/").elementsEqual(measurePathComponents)
        else { return false }
        return !declaresBodyOverLimit(head.headers.first(name: "content-length"), maximumBodyBytes: maximumBodyBytes)
    }

    /// Whether a request whose `Content-Length` is `contentLength` says its body is longer than
    /// `maximumBodyBytes`: the measure route answers it 413 without reading the body. One test for the
    /// route and for ``readsBody(of:maximumBodyBytes:)``, so that they cannot drift apart.
    ///
    /// - Parameters:
    ///   - contentLength: The header's value, as decoded (nil: none).
    ///   - maximumBodyBytes: ``ServerLimits/maximumBodyBytes``.
    /// - Returns: Whether the value is a number above the limit.
    static func declaresBodyOverLimit(_ contentLength: String?, maximumBodyBytes: Int) -> Bool {
        guard let length = contentLength.flatMap({ Int($0) }) else { return false }
        return length > maximumBodyBytes
    }

    /// The measure route's path, as the router's components.
    private static let measurePathComponents = QuickMeasureHandler.path.split(separator: "/")
}
