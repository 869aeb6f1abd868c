// swift-tools-version: 6.1
import PackageDescription

/// The settings every target shares (Hummingbird's own set).
let commonSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
/// Hand-written targets also default to internal imports.
let handWrittenSettings: [SwiftSetting] = commonSettings + [
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Meridian",
    // iOS for MeridianClient (an app links that product only).
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "meridian", targets: ["meridian"]),
        .library(name: "MapGeometry", targets: ["MapGeometry"]),
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "Timeline", targets: ["Timeline"]),
        .library(name: "WireJSON", targets: ["WireJSON"]),
        .library(name: "Access", targets: ["Access"]),
        .library(name: "Annotations", targets: ["Annotations"]),
        .library(name: "AnnotationIndex", targets: ["AnnotationIndex"]),
        .library(name: "VectorTiles", targets: ["VectorTiles"]),
        .library(name: "Tracking", targets: ["Tracking"]),
        .library(name: "Delivery", targets: ["Delivery"]),
        .library(name: "DeliveryHTTP", targets: ["DeliveryHTTP"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "MeridianHTTP", targets: ["MeridianHTTP"]),
        .library(name: "MeridianServer", targets: ["MeridianServer"]),
        .library(name: "MeridianClient", targets: ["MeridianClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Pure Swift: coordinates, map points, regions, viewports and every conversion formula.
        .target(name: "MapGeometry", swiftSettings: handWrittenSettings),

        // System-library shims (headers only).
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // Swift wrappers over PROJ (geodesics, CRS transforms) and GEOS (shapes).
        .target(
            name: "Geodesy",
            dependencies: ["CGEOS", "CPROJ", "MapGeometry"],
            swiftSettings: handWrittenSettings
        ),

        // What both domains share: UUIDv7 ids and their generator, RFC 3339 instants, the feed signal.
        .target(name: "Timeline", swiftSettings: handWrittenSettings),

        // The JSON codec of the fast paths (no HTTP): JSON values, the one writer, the decimal parser
        // and byte cursor, the conversion batch scanner, the GeoJSON Point reader.
        .target(name: "WireJSON", swiftSettings: handWrittenSettings),

        // Who may do what: API keys (made, hashed and checked with swift-crypto), roles, tenants (pure domain).
        .target(name: "Access", dependencies: ["Timeline", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: handWrittenSettings),

        // Annotations with stable identity: model, validation, merge patch, the GeoJSON import use case, CQL2 (spatial predicates exact with GEOS).
        .target(name: "Annotations", dependencies: ["Geodesy", "MapGeometry", "Timeline", "WireJSON"], swiftSettings: handWrittenSettings),

        // The live annotation index: the in-memory indexes that follow the change feed (the thinning index and
        // its tiles, the point index), the one IndexFollower that keeps them current, their verbs
        // (AnnotationQueries: nearest and search), a follower per CQL2 filter in use.
        .target(name: "AnnotationIndex", dependencies: ["Annotations", "CMalloc", "Geodesy", "MapGeometry", "Timeline", "WireJSON"], swiftSettings: handWrittenSettings),

        // Mapbox Vector Tiles (2.1) of point features: a small protobuf encoder (no deps).
        .target(name: "VectorTiles", swiftSettings: handWrittenSettings),

        // Location fixes, subscriptions and the evaluators that turn fixes into events (pure; clock injected).
        .target(name: "Tracking", dependencies: ["MapGeometry", "Geodesy", "Timeline", "WireJSON"], swiftSettings: handWrittenSettings),

        // Webhooks: signing (Standard Webhooks), retries with backoff, cursors, the SSRF guard (pure: no network).
        .target(
            name: "Delivery",
            dependencies: ["Timeline", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: handWrittenSettings
        ),

        // Webhooks on the network: the sender over AsyncHTTPClient and the system's name resolver.
        .target(
            name: "DeliveryHTTP",
            dependencies: [
                "Delivery", "Timeline",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: handWrittenSettings
        ),

        // SQLite through GRDB: migrations, records, the stores the domain declares.
        .target(
            name: "Storage",
            dependencies: [
                "Access", "Annotations", "Delivery", "MapGeometry", "Geodesy", "AnnotationIndex", "Timeline", "Tracking", "WireJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: handWrittenSettings
        ),

        // The generated contract, and the hand-written types it names in place of what the
        // generator cannot say (typeOverrides: nulls that differ from absent, CQL2, raw GeoJSON).
        .target(
            name: "MeridianAPI",
            dependencies: ["WireJSON", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            swiftSettings: commonSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // The Swift client an app links (no server module): the contract generated in client mode, its
        // transport (URLSession on Apple platforms, AsyncHTTPClient elsewhere) and a small layer for
        // what a map app does: thin the visible rect, page a search, follow events, send fixes.
        .target(
            name: "MeridianClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst])
                ),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])
                ),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux, .android, .windows, .openbsd, .wasi])),
            ],
            // Generated code, as in MeridianAPI: the common settings.
            swiftSettings: commonSettings,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // HTTP without the domain: connection limits and channel handlers, middleware (body limits,
        // JSON bodies, methods, header encoding, timeouts, observability), the contract reader,
        // problem+json, logging and metrics.
        .target(
            name: "MeridianHTTP",
            dependencies: [
                "Timeline", "WireJSON",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: handWrittenSettings
        ),

        // The Hummingbird application: handlers, wire mapping, problem+json errors.
        .target(
            name: "MeridianServer",
            dependencies: [
                "Access", "Delivery", "DeliveryHTTP", "MapGeometry", "Geodesy", "Timeline", "WireJSON", "Annotations", "AnnotationIndex", "Tracking", "Storage", "MeridianAPI", "MeridianHTTP", "VectorTiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            resources: [.embedInCode("Resources/openapi.yaml")],
            swiftSettings: handWrittenSettings
        ),

        // The command line: `meridian serve` (the HTTP server), `meridian import` (the store directly).
        .executableTarget(
            name: "meridian",
            dependencies: [
                "Access", "Delivery", "MeridianHTTP", "MeridianServer", "Annotations", "Storage", "Timeline", "Tracking", "WireJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: handWrittenSettings
        ),

        // Helpers the test targets share, never part of a product: a seeded random generator, the storage
        // engines a test runs on, the test app and its client, the `meridian` process, a webhook
        // receiver, the watchdog and the engine traits. Its imports are public (its API is theirs).
        .target(
            name: "TestSupport",
            dependencies: [
                "MeridianServer", "MapGeometry", "Geodesy",
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: commonSettings
        ),
        .testTarget(
            name: "MapGeometryTests",
            dependencies: [
                "MapGeometry", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "AccessTests",
            dependencies: ["Access", "Timeline"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "DeliveryTests",
            dependencies: ["Delivery", "DeliveryHTTP", "Timeline"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "VectorTilesTests",
            dependencies: ["VectorTiles"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "TimelineTests",
            dependencies: ["TestSupport", "Timeline"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "WireJSONTests",
            dependencies: ["WireJSON", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "AnnotationsTests",
            dependencies: ["Annotations", "MapGeometry", "TestSupport", "Timeline", "WireJSON"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "AnnotationIndexTests",
            dependencies: ["AnnotationIndex", "Annotations", "MapGeometry", "Storage", "Timeline", "TestSupport"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: ["Storage", "Annotations", "Geodesy", "MapGeometry", "AnnotationIndex", "Timeline", "Tracking", "WireJSON", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio")],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "TrackingTests",
            dependencies: ["Tracking", "Geodesy", "MapGeometry", "Storage", "Timeline", "TestSupport"],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "GeodesyTests",
            dependencies: ["Geodesy", "MapGeometry"],
            swiftSettings: handWrittenSettings
        ),
        // Tests that run the `meridian` binary: SIGKILL and SIGTERM, restarts on one file, two
        // instances on one PostgreSQL, the commands.
        .testTarget(
            name: "SystemTests",
            dependencies: [
                "Access", "Annotations", "MapGeometry", "Geodesy", "Storage", "Timeline", "TestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: handWrittenSettings
        ),
        // The Swift client against a live server: the generated client over its real transport.
        .testTarget(
            name: "MeridianClientTests",
            dependencies: [
                "Access", "Delivery", "MeridianClient", "MeridianServer", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: handWrittenSettings
        ),
        .testTarget(
            name: "MeridianServerTests",
            dependencies: [
                "Access", "Delivery", "DeliveryHTTP", "MeridianHTTP", "MeridianServer", "MeridianAPI", "MapGeometry", "Annotations", "Geodesy", "Storage", "AnnotationIndex", "Timeline", "Tracking", "WireJSON", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            swiftSettings: handWrittenSettings
        ),
    ]
)
