import FuzzSupport

/// libFuzzer's entry point: one input, any bytes, through ``BatchFuzzer/check(_:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    BatchFuzzer.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// The process's `main` under libFuzzer (see `LibFuzzer`): libFuzzer's driver with this target's
/// entry point.
@_cdecl("FuzzBatch_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    LibFuzzer.run(argc, argv, fuzz)
}
#endif
