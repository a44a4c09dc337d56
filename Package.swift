// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TextMeasure",
    products: [
        .library(name: "TextMeasure", targets: ["TextMeasure"]),
        .library(name: "HeightCache", targets: ["HeightCache"]),
        .executable(name: "textmeasure", targets: ["TextMeasureCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // FreeType + HarfBuzz from the system (Debian: libfreetype-dev, libharfbuzz-dev).
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "harfbuzz",
            providers: [.apt(["libfreetype-dev", "libharfbuzz-dev"])]
        ),
        // ICU segmentation behind a plain C API: ICU headers must not reach Swift modules.
        .target(
            name: "CUnicodeBreak",
            linkerSettings: [.linkedLibrary("icuuc")]
        ),
        .target(name: "TextMeasure", dependencies: ["CFreeType", "CUnicodeBreak"]),
        .target(name: "HeightCache", dependencies: ["TextMeasure"]),
        // Linux scheduler calls for the command-line tool (see CPUSpread.swift).
        .target(name: "CSched"),
        // The JSON Lines batch protocol: line reader, JSON scanner, processor, output. Shared by the
        // command-line tool and the fuzz targets; its types are `package`, not public API.
        .target(name: "TextMeasureBatch", dependencies: ["TextMeasure", "CSched"]),
        .executableTarget(
            name: "TextMeasureCLI",
            dependencies: [
                "TextMeasure", "TextMeasureBatch", "CSched",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Running child processes from tests (the Pango harness, the CLI).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "TextMeasureTests", dependencies: ["TextMeasure", "TestSupport"]),
        .testTarget(name: "HeightCacheTests", dependencies: ["HeightCache", "TextMeasure"]),
        .testTarget(name: "CLITests", dependencies: ["TextMeasureCLI", "TextMeasureBatch", "TestSupport"]),
        .testTarget(name: "TextMeasureBatchTests", dependencies: ["TextMeasureBatch", "TextMeasure"]),
        // libFuzzer targets (see Fuzz/README.md). A normal build compiles their replay drivers, which
        // run saved inputs through the same checks; `Fuzz/run` builds them with -DFUZZING for libFuzzer.
        .target(name: "FuzzSupport", path: "Fuzz/Support"),
        .executableTarget(name: "FuzzBatch", dependencies: ["TextMeasure", "TextMeasureBatch", "FuzzSupport"],
                          path: "Fuzz/Batch"),
        .executableTarget(name: "FuzzFont", dependencies: ["TextMeasure", "FuzzSupport"], path: "Fuzz/Font"),
    ]
)
