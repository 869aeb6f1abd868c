// swift-tools-version: 6.1
// Benchmarks live in their own package so `swift build` and `swift test` of Meridian never build them.
import PackageDescription

let package = Package(
    name: "MeridianBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Meridian", path: ".."),
    ],
    targets: [
        // The thinning index against issue 5's targets; `make bench-thinning` runs it beside pysupercluster.
        .executableTarget(
            name: "ThinningBench",
            dependencies: [
                .product(name: "Annotations", package: "Meridian"),
                .product(name: "MapGeometry", package: "Meridian"),
                .product(name: "Storage", package: "Meridian"),
                .product(name: "AnnotationIndex", package: "Meridian"),
                .product(name: "Timeline", package: "Meridian"),
            ]
        ),
        // CQL2 evaluation at 1 M annotations: insensitive and temporal filters beside plain comparisons.
        .executableTarget(
            name: "FilterBench",
            dependencies: [
                .product(name: "Annotations", package: "Meridian"),
                .product(name: "MapGeometry", package: "Meridian"),
                .product(name: "Timeline", package: "Meridian"),
                .product(name: "WireJSON", package: "Meridian"),
            ]
        ),
        // The query index on bench-queries' data; `make bench-queries` runs it beside cKDTree and STRtree.
        .executableTarget(
            name: "QueryBench",
            dependencies: [
                .product(name: "Annotations", package: "Meridian"),
                .product(name: "MapGeometry", package: "Meridian"),
                .product(name: "Storage", package: "Meridian"),
                .product(name: "AnnotationIndex", package: "Meridian"),
                .product(name: "WireJSON", package: "Meridian"),
            ]
        ),
    ]
)
