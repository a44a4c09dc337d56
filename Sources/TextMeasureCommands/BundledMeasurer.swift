import TextMeasureSupport
import Dispatch
import TextMeasure
import TextMeasureBatch

/// The measurer for the bundled fonts, loaded on another thread while the command line is parsed.
///
/// Making the cascade (validating ten font files with FreeType and opening them; each face is loaded
/// later, when a text first needs it) and the measurer's caches is most of a short batch run's
/// start-up after the process itself, and parsing the arguments is most of the rest; the two do not depend on each other unless `--font` is given, in which case the preloaded
/// cascade goes unused (the files are shared with no one; nothing else waits for it).
enum BundledMeasurer {
    /// Whether loading started, and its outcome once it is known.
    ///
    /// Not a `Result<TextMeasurer, FontError>`: the type of a generic value with a protocol requirement
    /// (`Failure: Error`) is made at run time by a search of every protocol conformance in the binary,
    /// which would delay the start of loading.
    private struct Load {
        var started = false
        var measurer: TextMeasurer?
        var failure: FontError?
    }

    private static let state = Locked(Load())
    private static let loaded = DispatchSemaphore(value: 0)

    /// Starts loading in the background (once).
    static func preload() {
        let start = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard start else { return }
        // Off this thread's CPU, or the two threads would take turns on it (see CPUSpread).
        CPUSpread.runElsewhere {
            do throws(FontError) {
                let measurer = try TextMeasurer()
                state.withLock { $0.measurer = measurer }
            } catch {
                state.withLock { $0.failure = error }
            }
            loaded.signal()
        }
    }

    /// The measurer: the preloaded one (waiting for it if need be), or one loaded now if `preload`
    /// was never called.
    static func measurer() throws(FontError) -> TextMeasurer {
        let started = state.withLock { $0.started }
        guard started else { return try TextMeasurer() }
        loaded.wait()
        loaded.signal()   // for any later caller
        let load = state.withLock { $0 }
        if let failure = load.failure { throw failure }
        return load.measurer!
    }
}
