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
        benchmark("ZoneLookup", using: ["Zones", "ZoneImport", "Geodesy", "Workloads"]),
        benchmark("FleetIndex", using: ["SpatialIndex", "Fleet", "Geodesy", "Workloads"]),
        benchmark("Routing", using: ["RoadGraph", "Geodesy", "Workloads", "CitySimulation"]),
        // Not "Dispatch": that is libdispatch's module name.
        benchmark("DispatchBench", folder: "Dispatch", using: ["TaxiDispatch", "Fleet", "Zones", "ZoneImport", "RoadGraph", "Geodesy", "Workloads"]),
        // Not "Geocoding": target names must be unique across the package graph.
        benchmark("GeocoderBench", folder: "Geocoding", using: ["Geocoding", "Geodesy", "SpatialIndex", "Workloads"]),
        // Whole trips through the services on SQLite, beside one write transaction.
        benchmark("BookingsBench", folder: "Bookings", using: ["Services", "CityModel", "Storage", "SQLiteStorage", "Fares", "Fleet", "TaxiDispatch", "ZoneImport", "Zones",
                                                               "RoadGraph", "Geodesy"]),
    ],
    swiftLanguageModes: [.v6]
)

/// One ordo-one benchmark executable over some of Wayfare's products.
func benchmark(_ name: String, folder: String? = nil, using products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark")] + products.map { .product(name: $0, package: "Wayfare") },
        path: "Benchmarks/\(folder ?? name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")])
}
