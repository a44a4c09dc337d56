import TextMeasure

#if canImport(Glibc)
import Glibc
#endif

/// `memory-probe sizes [COUNT]`: measures one multilingual paragraph through `TextMeasurer.measure` at
/// COUNT distinct sizes (8.00, 8.01, ... px; default 5,000) and prints, as one JSON line, the resident
/// memory after 100 sizes, after each further 1,000, and the peak (VmRSS, VmHWM of /proc/self/status).

let paragraph = """
    Hello, world — 你好，世界 — مرحبا بالعالم 👋 The quick brown fox jumps over the lazy dog. \
    Привет, мир! שלום עולם. สวัสดีชาวโลก नमस्ते दुनिया 안녕하세요 세계 ∑ x² ≤ ∞ ★
    """

/// A field of /proc/self/status, in KiB.
func status(_ field: String) -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field + ":") {
            return Int(text.dropFirst(field.count + 1).filter(\.isNumber)) ?? -1
        }
    }
    return -1
}

func mebibytes(_ kibibytes: Int) -> String {
    String(Double(kibibytes * 10 / 1024) / 10)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.first == "sizes" else {
    print("usage: memory-probe sizes [COUNT]")
    exit(2)
}
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 5_000
let measurer = try TextMeasurer()
var checkpoints: [String] = []
var lines = 0
for index in 0..<count {
    let style = TextStyle(size: 8 + Double(index) / 100)
    lines += try measurer.measure(paragraph, style: style, width: 320).lineCount
    if index + 1 == 100 || (index + 1) % 1_000 == 0 {
        checkpoints.append("\"\(index + 1)\":\(mebibytes(status("VmRSS")))")
    }
}
print("{\"workload\":\"library-sizes\",\"sizes\":\(count),\"lines\":\(lines),"
      + "\"rssMiBAfter\":{\(checkpoints.joined(separator: ","))},\"peakMiB\":\(mebibytes(status("VmHWM")))}")
