// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TextMeasure",
    products: [
        .library(name: "TextMeasure", targets: ["TextMeasure"]),
        // The list layer (snapshots, batch updates, offsets, a cache of row heights from any closure):
        // no text engine and no C library, for apps that size rows their own way.
        .library(name: "ListLayout", targets: ["ListLayout"]),
        // Rows of text measured by TextMeasure: `RowLayout` and `HeightCache(layout:measurer:)`.
        .library(name: "TextRows", targets: ["TextRows"]),
        // Earlier releases' module: re-exports ListLayout and TextRows.
        .library(name: "HeightCache", targets: ["HeightCache"]),
        // Heights that outlive the process: a SQLite file (GRDB) or a PostgreSQL database many machines
        // share (postgres-nio). Separate so `import TextMeasure` stays light.
        .library(name: "TextMeasureStore", targets: ["TextMeasureStore"]),
        .executable(name: "textmeasure", targets: ["TextMeasureCLI"]),
        // The same commands with the height store (GRDB, SQLite, Foundation) linked in: `textmeasure
        // batch|measure --store` and `textmeasure store` run it from beside `textmeasure`, which stays
        // a third of the size and starts faster without them.
        .executable(name: "textmeasure-store", targets: ["TextMeasureStoreCLI"]),
        // The HTTP server, a product of its own so that building `textmeasure` never builds Hummingbird;
        // `textmeasure serve` runs it from beside its own executable.
        .executable(name: "textmeasure-serve", targets: ["TextMeasureServeCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // SQLite for the persistent height store (links the system libsqlite3; Debian: libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // `textmeasure-serve` only: HTTP, graceful shutdown, Prometheus metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HTTP parts as swift-http-types values, the ones Hummingbird's pipeline carries (serve's quick handler).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The height store's SHA-256 (BoringSSL's on Linux; docs/sha256.md).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // The height store's PostgreSQL backend (`--store postgres://…`), shared by many machines.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // FreeType + HarfBuzz from the system (Debian: libfreetype-dev, libharfbuzz-dev).
        .systemLibrary(
            name: "CHarfBuzzFreeType",
            pkgConfig: "harfbuzz",
            providers: [.apt(["libfreetype-dev", "libharfbuzz-dev"])]
        ),
        // ICU segmentation behind a plain C API: ICU headers must not reach Swift modules. libthai
        // (Debian: libthai-dev) breaks Thai words as Pango does, in the `.pango` mode.
        .target(
            name: "CUnicodeBreak",
            linkerSettings: [.linkedLibrary("icuuc"), .linkedLibrary("thai")]
        ),
        // The package's general tools (locks, LRU and CLOCK tables, a hash index, scratch lists, UTF-8
        // decoding, work spread over cores): `package` declarations, no product, no C library.
        .target(name: "TextMeasureSupport"),
        .target(name: "TextMeasure", dependencies: ["CHarfBuzzFreeType", "CUnicodeBreak", "TextMeasureSupport"]),
        // libpng from the system (Debian: libpng-dev), for `textmeasure render`'s pictures.
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),
        // Drawing measured text (FreeType rasterizing, PNG through libpng) for `textmeasure render`.
        // Not a product: its types are `package`, and `import TextMeasure` never loads it.
        .target(name: "TextMeasureRender", dependencies: ["TextMeasure", "CHarfBuzzFreeType", "CPNG"]),
        .target(name: "ListLayout", dependencies: ["TextMeasureSupport"]),
        .target(name: "TextRows", dependencies: ["ListLayout", "TextMeasure"]),
        .target(name: "HeightCache", dependencies: ["ListLayout", "TextRows"]),
        // The persistent store behind TextMeasure's `MeasurementStore` seam.
        .target(name: "TextMeasureStore", dependencies: [
            "TextMeasure", .product(name: "GRDB", package: "GRDB.swift"),
            // The C API, for the look-up loop (one prepared statement stepped per key, no Row objects).
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Linux scheduler calls for the command-line tool (see CPUSpread.swift).
        .target(name: "CThreadAffinity"),
        // The JSON Lines batch protocol: line reader, JSON scanner, processor, output. Shared by the
        // command-line tool and the fuzz targets; its types are `package`, not public API.
        .target(name: "TextMeasureBatch", dependencies: ["TextMeasure", "TextMeasureSupport", "CThreadAffinity"]),
        // The command line (measure, batch, render, store, serve), shared by `textmeasure` and
        // `textmeasure-store`; the height store is reached through `HeightStoreLink`.
        .target(
            name: "TextMeasureCommands",
            dependencies: [
                "TextMeasure", "TextMeasureBatch", "TextMeasureRender", "CThreadAffinity",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "TextMeasureCLI", dependencies: ["TextMeasureCommands"]),
        .executableTarget(name: "TextMeasureStoreCLI", dependencies: ["TextMeasureCommands", "TextMeasureStore"]),
        // `POST /v1/measure`, `/healthz`, `/metrics` over Hummingbird; the server's library, tested in-process.
        .target(
            name: "TextMeasureHTTP",
            dependencies: [
                "TextMeasure", "TextMeasureBatch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGTERM and SIGINT, watched beyond the first (`BoundedShutdown`).
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The HTTP/1 request heads as sent (version, every Host line), for RFC 9112's checks.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // Hummingbird's HTTP/1 channel, whose pipeline answers measure requests itself.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "TextMeasureServeCLI",
            dependencies: [
                "TextMeasureHTTP", "TextMeasure", "TextMeasureStore", "TextMeasureCommands",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Its event loops run the process's tasks (`ServeCommand.run`).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Running child processes from tests (the Pango harness, the CLI).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // NIO's HTTP/1 request decoder as the reference for the server's strict request framing: the one
        // comparison StrictRequestFrameTests and the FuzzFrame fuzzer both run.
        .target(name: "FramingOracle", dependencies: [
            "TextMeasureHTTP", "TestSupport", .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        ], path: "Tests/FramingOracle"),
        // Test targets mirror the modules (`<Module>Tests`).
        .testTarget(name: "TextMeasureSupportTests", dependencies: ["TextMeasureSupport", "TestSupport"]),
        .testTarget(name: "TextMeasureTests", dependencies: [
            "TextMeasure", "TextMeasureSupport", "CHarfBuzzFreeType", "CUnicodeBreak", "TestSupport",
        ]),
        // The list layer with nothing but closures: no text engine in this target's dependencies.
        .testTarget(name: "ListLayoutTests", dependencies: ["ListLayout", "TextMeasureSupport", "TestSupport"]),
        .testTarget(name: "TextRowsTests", dependencies: ["TextRows", "ListLayout", "TextMeasure", "TestSupport"]),
        .testTarget(name: "TextMeasureCommandsTests", dependencies: [
            "TextMeasureCLI", "TextMeasureCommands", "TextMeasureBatch", "TestSupport",
        ]),
        .testTarget(name: "TextMeasureStoreTests", dependencies: [
            "TextMeasureStore", "TextMeasure", "TextMeasureSupport", "TextRows", "ListLayout", "TextMeasureCLI",
            "TextMeasureStoreCLI", "TestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(
            name: "TextMeasureHTTPTests",
            dependencies: [
                "TextMeasureHTTP", "TextMeasure", "TextMeasureBatch", "TestSupport", "FramingOracle",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The pipeline's handlers, in channels driven by the test.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "TextMeasureRenderTests", dependencies: ["TextMeasureRender", "TextMeasure", "TestSupport"]),
        .testTarget(name: "TextMeasureBatchTests", dependencies: [
            "TextMeasureBatch", "TextMeasure", "TextMeasureSupport", "CThreadAffinity", "TestSupport",
        ]),
        // libFuzzer targets (see Fuzz/README.md). A normal build compiles their replay drivers, which
        // run saved inputs through the same checks; `Fuzz/run` builds them with -DFUZZING for libFuzzer.
        .target(name: "FuzzSupport", path: "Fuzz/Support"),
        .executableTarget(name: "FuzzBatch", dependencies: ["TextMeasure", "TextMeasureBatch", "FuzzSupport"],
                          path: "Fuzz/Batch"),
        .executableTarget(name: "FuzzFont", dependencies: ["TextMeasure", "FuzzSupport"], path: "Fuzz/Font"),
        .executableTarget(name: "FuzzFrame", dependencies: [
            "FramingOracle", "TextMeasureHTTP", "TextMeasure", "TextMeasureBatch", "FuzzSupport",
        ], path: "Fuzz/Frame"),
    ]
)
