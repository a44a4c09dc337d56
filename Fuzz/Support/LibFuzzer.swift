#if FUZZING
/// libFuzzer's own driver, started from a fuzz target's entry point.
///
/// SwiftPM links an executable target with `main` defined as `<Target>_main` (it renames the entry point
/// so that tests can link executables), so libFuzzer's `main` is never used: each target defines
/// `<Target>_main` under `-DFUZZING` and starts libFuzzer from it through `LLVMFuzzerRunDriver`
/// (libFuzzer ≥ LLVM 11), which takes the same command line.
public enum LibFuzzer {
    /// The fuzz callback's C type: `LLVMFuzzerTestOneInput`.
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

    /// Runs libFuzzer with the process's command line; returns its exit status.
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                           _ testOneInput: TestOneInput) -> CInt {
        var argc = argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
        return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
    }
}

/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size))`
/// from libclang_rt.fuzzer, linked by `-sanitize=fuzzer`. Declared here rather than through a C
/// header: its arguments are plain pointers and integers, passed the same way by Swift and C.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ testOneInput: LibFuzzer.TestOneInput
) -> CInt
#endif
