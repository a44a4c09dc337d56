import FuzzSupport

/// libFuzzer's entry point: one input, any bytes, through ``FontFuzzer/check(_:)``.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FontFuzzer.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if FUZZING
/// The process's `main` under libFuzzer (see `LibFuzzer`): libFuzzer's driver with this target's
/// entry point.
@_cdecl("FuzzFont_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    LibFuzzer.run(argc, argv, fuzz)
}
#endif
