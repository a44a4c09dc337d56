import TextMeasure
let m = try TextMeasurer()
for w in [50.0, 100, 200, 400] {
  let r = try m.measure("Hello, world! This is a test of the emergency broadcast system. مرحبا بالعالم 你好世界 👩‍👩‍👧", style: TextStyle(size: 16), width: w)
  print(w, r.lineCount, r.height, r.validWidths, r.lines.map { $0.width })
}
