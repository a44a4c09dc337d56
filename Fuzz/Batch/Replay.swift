#if !FUZZING
import FuzzSupport

/// Without libFuzzer (a normal `swift build`), the target replays saved inputs through the same entry
/// point: `swift run FuzzBatch Fuzz/corpus/batch Fuzz/regressions`.
@main
enum Replay {
    static func main() {
        FuzzReplay.run("FuzzBatch", fuzz)
    }
}
#endif
