#if FUZZING
import FuzzSupport

/// The process's `main` under libFuzzer (see `LibFuzzer`): libFuzzer's driver, each input through
/// ``FrameFuzzer/check(_:)``. (No `LLVMFuzzerTestOneInput` symbol: the driver is handed the callback,
/// and `main` is this function, so libFuzzer's own `main`, which would call that symbol, is not linked.)
@_cdecl("FuzzFrame_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    LibFuzzer.run(argc, argv) { data, size in
        FrameFuzzer.check(UnsafeBufferPointer(start: data, count: size))
        return 0
    }
}
#endif
