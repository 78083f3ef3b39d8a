// swift-tools-version: 6.1
import PackageDescription

// Wayfare's benchmarks: a package of their own, so the library's build and CI never compile
// the benchmark framework. Run from this folder: `swift package benchmark`.
let package = Package(
    name: "WayfareBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "Wayfare", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "ZoneLookup",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Zones", package: "Wayfare"),
                .product(name: "Geodesy", package: "Wayfare"),
            ],
            path: "Benchmarks/ZoneLookup",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "FleetIndex",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "SpatialIndex", package: "Wayfare"),
                .product(name: "Geodesy", package: "Wayfare"),
            ],
            path: "Benchmarks/FleetIndex",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "Routing",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RoadGraph", package: "Wayfare"),
                .product(name: "Geodesy", package: "Wayfare"),
            ],
            path: "Benchmarks/Routing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "GeocoderBench",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Geocoding", package: "Wayfare"),
                .product(name: "Geodesy", package: "Wayfare"),
            ],
            path: "Benchmarks/Geocoding",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v6]
)
