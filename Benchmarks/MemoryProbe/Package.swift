// swift-tools-version:6.0
import PackageDescription

// Peak resident memory of the library under workloads that must not grow without bound (thousands of
// distinct sizes). Uses only public API, so `../memory.py --baseline REV` builds the same probe against
// an older checkout for a side-by-side comparison. Run through ../memory.py.
let package = Package(
    name: "MemoryProbe",
    dependencies: [
        .package(name: "TextMeasure", path: "../../"),
    ],
    targets: [
        .executableTarget(
            name: "MemoryProbe",
            dependencies: [.product(name: "TextMeasure", package: "TextMeasure")]
        ),
    ]
)
