// swift-tools-version:6.1
import PackageDescription

// Library-level benchmarks (ordo-one/benchmark). Run from this folder:
//   swift package benchmark
// Whole-process comparisons against Pango and raw hb_shape: ./compare-pango.py
let package = Package(
    name: "TextMeasureBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "TextMeasure", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "TextMeasureBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TextMeasure", package: "TextMeasure"),
                .product(name: "ListLayout", package: "TextMeasure"),
                .product(name: "TextRows", package: "TextMeasure"),
            ],
            path: "Benchmarks/TextMeasureBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // List diffing (ListSnapshot.changes(from:)) against the standard library's
        // difference(from:).inferringMoves() on the same identifiers.
        .executableTarget(
            name: "ListBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ListLayout", package: "TextMeasure"),
            ],
            path: "Benchmarks/ListBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // ListHeights and its offset tree at a million rows, beside RowOffsetIndex.
        .executableTarget(
            name: "ListHeightsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "ListLayout", package: "TextMeasure"),
            ],
            path: "Benchmarks/ListHeightsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
