#if !FUZZING
import FuzzSupport

/// Without libFuzzer (a normal `swift build`), the target replays saved inputs through the same entry
/// point: `swift run FuzzFont Fuzz/corpus/font`.
@main
enum Replay {
    static func main() {
        FuzzReplay.run("FuzzFont", fuzz)
    }
}
#endif
