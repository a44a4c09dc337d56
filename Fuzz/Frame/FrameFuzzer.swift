import FramingOracle
import TextMeasure
import TextMeasureBatch
import TextMeasureHTTP

/// The server's strict request framing under fuzzing: arbitrary bytes are what a client sent on one
/// connection, framed as ``WireMeasureHandler`` frames them (``StrictRequestFrame/read``, one request
/// after another) and decoded by NIO's HTTP/1 request decoder, at once and in pieces.
///
/// What must hold for every input, or the fuzzer traps (`fatalError`) so that libFuzzer reports it
/// (``StrictFrameOracle`` checks it, as `StrictRequestFrameTests` does for its generated requests):
/// - the framing never traps, on the input and at every frame boundary it reports;
/// - every frame is exactly one request to the decoder: the same head (method, target, version,
///   header lines), the same body bytes, the same end, read without an error; where the framing says
///   incomplete, the decoder reads no head either;
/// - every measure request framed is one the quick handler takes, with its body's length;
/// - a prefix of a frame reads as incomplete until its head ends, then as the same frame.
///
/// Bodies are framed up to 1,000 bytes, so that inputs of a few KB reach the limit.
enum FrameFuzzer {
    /// The oracle, with an endpoint whose processor has the bundled fonts (loaded once per process;
    /// the framing and the quick handler's rule read only its limits).
    static let oracle: StrictFrameOracle = {
        do {
            let processor = BatchProcessor(measurer: try TextMeasurer(), style: TextStyle(size: 17), preparedTexts: 16)
            return StrictFrameOracle(endpoint: MeasureEndpoint(processor: processor, limits: ServerLimits(maximumBodyBytes: 1_000)))
        } catch {
            fatalError("FuzzFrame: cannot load the bundled fonts: \(error)")
        }
    }()

    /// Frames and decodes one input, and stops the process at the first disagreement.
    /// - Parameter input: the bytes a client sent, any bytes at all.
    static func check(_ input: UnsafeBufferPointer<UInt8>) {
        if let problem = oracle.disagreement(in: Array(input)) {
            let shown = input.count <= 1_024 ? String(decoding: input, as: UTF8.self).debugDescription : "\(input.count) bytes"
            fatalError("FuzzFrame: \(problem)\ninput: \(shown)")
        }
    }
}
