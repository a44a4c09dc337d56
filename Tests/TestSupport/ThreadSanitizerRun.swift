import Foundation

/// The suite's run under ThreadSanitizer, which `.ci/run` makes after the plain run, setting
/// `TEXTMEASURE_TEST_SANITIZER=thread`.
///
/// Instrumented code runs many times slower, and that run only adds what the plain one cannot see: a
/// race between threads. So a test whose work all happens on its own thread (a property or
/// differential test of a pure algorithm) is disabled there (`.disabled(if: ThreadSanitizerRun.isActive,
/// "single-threaded")`); the plain run checks it whole. A test that spreads its work over threads, or
/// runs the instrumented executables, runs in both, perhaps on a smaller sample in this one
/// (``size(_:sanitized:)``).
///
/// Not in terms of Swift Testing's traits: this target is also linked into the fuzzers.
public enum ThreadSanitizerRun {
    /// Whether this process is the ThreadSanitizer run.
    public static let isActive = ProcessInfo.processInfo.environment["TEXTMEASURE_TEST_SANITIZER"] == "thread"

    /// `plain` in the plain run, `sanitized` in the ThreadSanitizer run.
    ///
    /// - Parameters:
    ///   - plain: The size the test is written for.
    ///   - sanitized: A smaller size that still spreads the work over the threads it exercises.
    public static func size(_ plain: Int, sanitized: Int) -> Int {
        isActive ? sanitized : plain
    }
}
