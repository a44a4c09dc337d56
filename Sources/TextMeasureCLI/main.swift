import TextMeasure
let m = try TextMeasurer()
if CommandLine.arguments.count > 3 {
let t = CommandLine.arguments[3]
let r = try m.measure(t, style: TextStyle(size: Double(CommandLine.arguments[1])!), width: Double(CommandLine.arguments[2])!)
for l in r.lines { print(Int((l.width*1024).rounded()), "'\(t[l.range(in: t)])'") }
} else {
  while let line = readLine() {
    for s in [11.0, 13, 15.5, 17, 24] { for w in [12.0, 37, 64, 100, 150, 213.5, 320, 480, 1000] {
      print(s, w, line, to: &standardError)
      _ = try m.measure(line.replacingOccurrences(of: "\\n", with: "\n"), style: TextStyle(size: s), width: w)
    }}
  }
}
struct StdErr: TextOutputStream { mutating func write(_ s: String) { FileHandle.standardError.write(s.data(using: .utf8)!) } }
nonisolated(unsafe) var standardError = StdErr()
import Foundation
