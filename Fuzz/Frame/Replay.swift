#if !FUZZING
import FuzzSupport

/// Without libFuzzer (a normal `swift build`), the target replays saved inputs through the same check:
/// `swift run FuzzFrame Fuzz/corpus/frame Fuzz/regressions/frame`.
@main
enum Replay {
    static func main() {
        FuzzReplay.run("FuzzFrame") { data, size in
            FrameFuzzer.check(UnsafeBufferPointer(start: data, count: size))
            return 0
        }
    }
}
#endif
