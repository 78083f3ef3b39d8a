// swift-tools-version: 6.1
import PackageDescription

// Layers (each depends only on the ones above it):
//   Geodesy, GeoJSON, BinaryFile, CSVFile   pure Swift
//   Projection (PROJ), Geometry (GEOS)   the only modules that import C libraries
//   CIntrinsics                 glibc's sincos and the prefetch hint for Swift (one header)
//   SpatialIndex                R-tree, static point and segment trees, segment grid
//   OSM (zlib)                  OpenStreetMap PBF and XML readers
//   RoadGraph                   car profile and road graphs (from OSM or CSV)
//   Geocoding                   address and place lookup tables (from OSM and a gazetteer)
//   Zones                       taxi zones and service areas: queries and the zone file (pure Swift)
//   ZoneImport                  reading, checking and building zones with GEOS and PROJ
//   Fleet                       cabs, their statuses and nearest-cab queries (pure Swift)
//   TaxiDispatch                zone queues and events, requests and offers, policies, the decision log
//   CitySimulation              a city at work in virtual time: cabs, passengers and drivers on the dispatcher
//   Fares                       fare charts and trip fares in integer minor units (the services' first piece)
//   Storage                     the store protocol, migrations, and the SQLite store (GRDB)
//   PostgresStorage             the PostgreSQL store (postgres-nio); only backends that ask for it build SwiftNIO
//   Services                    accounts, wallet ledger, bookings and the rest, on any store
//   ServiceSimulation           a city at work through the services: bookings, payments, revenue
//   CityFolder                  a city's files in one folder (zones, roads, places, fares, tolls, settings), loaded checked
//   WayfareAPI                  the HTTP API's wire: its request and answer types, endpoints, strict decoder, OpenAPI document
//   WayfareServer               the HTTP JSON API on Hummingbird 2 (`wayfare serve`); only the CLI depends on it
//   WayfareDemo                 `wayfare demo`: the server on loopback, the simulated city over HTTP, summary and map
//   WayfareTestKit              seeded fixtures and baselines for tests, benchmarks and samples
//   WayfareCLI                  the `wayfare` command line
let package = Package(
    name: "Wayfare",
    products: [
        .library(name: "Geodesy", targets: ["Geodesy"]),
        .library(name: "GeoJSON", targets: ["GeoJSON"]),
        .library(name: "Projection", targets: ["Projection"]),
        .library(name: "Geometry", targets: ["Geometry"]),
        .library(name: "CSVFile", targets: ["CSVFile"]),
        .library(name: "Zones", targets: ["Zones"]),
        .library(name: "ZoneImport", targets: ["ZoneImport"]),
        .library(name: "SpatialIndex", targets: ["SpatialIndex"]),
        .library(name: "Fleet", targets: ["Fleet"]),
        .library(name: "Favourites", targets: ["Favourites"]),
        .library(name: "OSM", targets: ["OSM"]),
        .library(name: "RoadGraph", targets: ["RoadGraph"]),
        .library(name: "Geocoding", targets: ["Geocoding"]),
        .library(name: "TaxiDispatch", targets: ["TaxiDispatch"]),
        .library(name: "CitySimulation", targets: ["CitySimulation"]),
        .library(name: "Fares", targets: ["Fares"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "PostgresStorage", targets: ["PostgresStorage"]),
        .library(name: "Services", targets: ["Services"]),
        .library(name: "ServiceSimulation", targets: ["ServiceSimulation"]),
        .library(name: "CityFolder", targets: ["CityFolder"]),
        .library(name: "WayfareAPI", targets: ["WayfareAPI"]),
        .library(name: "WayfareServer", targets: ["WayfareServer"]),
        // Fixtures and baselines for the benchmark package; not part of the engine.
        .library(name: "WayfareTestKit", targets: ["WayfareTestKit"]),
        .executable(name: "wayfare", targets: ["WayfareCLI"]),
        // The README's Swift example: the engine without GEOS or PROJ.
        .executable(name: "wayfare-example", targets: ["BackendExample"]),
        // The README's services example: accounts, a wallet and a booking in Monaco on SQLite.
        .executable(name: "wayfare-services-example", targets: ["ServicesExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation`: the DocC catalogs of the library modules.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The services' stores and password hashing; no engine module depends on these.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The HTTP server (`wayfare serve`); only WayfareServer and the CLI build it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // /metrics in Prometheus's format, through swift-metrics.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // TLS for `wayfare serve --tls-cert` (HummingbirdTLS builds on it; the CLI names its types).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The demo's HTTP client (HummingbirdTesting builds it for the tests anyway).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        .systemLibrary(name: "CGEOS", pkgConfig: "geos",
                       providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj",
                       providers: [.apt(["libproj-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CIntrinsics"),
        .target(name: "Geodesy", exclude: ["README.md"]),
        .target(name: "GeoJSON", exclude: ["README.md"]),
        .target(name: "Projection", dependencies: ["CPROJ", "Geodesy"], exclude: ["README.md"]),
        .target(name: "Geometry", dependencies: ["CGEOS", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "BinaryFile", exclude: ["README.md"]),
        .target(name: "CSVFile", exclude: ["README.md"]),
        .target(name: "Zones", dependencies: ["BinaryFile", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "ZoneImport", dependencies: ["Zones", "Geodesy", "GeoJSON", "Projection", "Geometry"], exclude: ["README.md"]),
        .target(name: "SpatialIndex", dependencies: ["CIntrinsics", "Geodesy", "BinaryFile"], exclude: ["README.md"]),
        .target(name: "Fleet", dependencies: ["SpatialIndex", "Zones", "Geodesy"], exclude: ["README.md"]),
        .target(name: "Favourites", dependencies: ["Geodesy", "Projection"], exclude: ["README.md"]),
        .target(name: "OSM", dependencies: ["CZlib"], exclude: ["README.md"]),
        .target(name: "Geocoding", dependencies: ["OSM", "Geodesy", "SpatialIndex", "BinaryFile", "CSVFile"], exclude: ["README.md"]),
        .target(name: "RoadGraph", dependencies: ["OSM", "Geodesy", "SpatialIndex", "BinaryFile", "CSVFile"], exclude: ["README.md"]),
        .target(name: "TaxiDispatch", dependencies: ["Fleet", "Zones", "RoadGraph", "Geodesy"], exclude: ["README.md"]),
        .target(name: "CitySimulation", dependencies: ["TaxiDispatch", "Fleet", "Zones", "RoadGraph", "Geodesy"], exclude: ["README.md"]),
        .target(name: "Fares", dependencies: ["Zones", "Fleet", "RoadGraph", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "Storage", dependencies: [.product(name: "GRDB", package: "GRDB.swift")], exclude: ["README.md"]),
        .target(name: "PostgresStorage", dependencies: ["Storage", .product(name: "PostgresNIO", package: "postgres-nio"),
                                                        .product(name: "Logging", package: "swift-log")],
                exclude: ["README.md"]),
        .target(name: "Services", dependencies: ["Storage", "Fares", "TaxiDispatch", "Fleet", "Zones", "RoadGraph", "Favourites", "Geodesy",
                                                 .product(name: "Crypto", package: "swift-crypto"),
                                                 .product(name: "_CryptoExtras", package: "swift-crypto")],
                exclude: ["README.md", "CommonPasswords/common-passwords.txt", "CommonPasswords/PROVENANCE.md"]),
        .target(name: "ServiceSimulation", dependencies: ["Services", "Storage", "CitySimulation", "TaxiDispatch", "Fleet", "Zones",
                                                          "RoadGraph", "Geodesy"], exclude: ["README.md"]),
        .target(name: "CityFolder", dependencies: ["Services", "Zones", "RoadGraph", "Geocoding", "Fares", "GeoJSON"],
                exclude: ["README.md"]),
        .target(name: "WayfareAPI", dependencies: ["Services", "TaxiDispatch", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "WayfareServer", dependencies: ["WayfareAPI", "CityFolder", "Services", "Storage", "Fares", "TaxiDispatch", "Fleet", "Zones",
                                                      "RoadGraph", "Geocoding", "Geodesy", "GeoJSON",
                                                      .product(name: "Hummingbird", package: "hummingbird"),
                                                      .product(name: "HummingbirdCore", package: "hummingbird"),
                                                      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                      .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "CoreMetrics", package: "swift-metrics"),
                                                      .product(name: "Prometheus", package: "swift-prometheus"),
                                                      .product(name: "Crypto", package: "swift-crypto")],
                exclude: ["README.md"]),
        .target(name: "WayfareDemo", dependencies: ["WayfareAPI", "WayfareServer", "ServiceSimulation", "CitySimulation", "CityFolder", "Services",
                                                    "Storage", "TaxiDispatch", "Fleet", "Zones", "Geodesy", "GeoJSON", "BinaryFile",
                                                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                    .product(name: "Hummingbird", package: "hummingbird"),
                                                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                    .product(name: "Logging", package: "swift-log")],
                exclude: ["README.md"]),
        .target(name: "WayfareTestKit", dependencies: ["Geodesy", "GeoJSON", "Zones", "Geometry", "SpatialIndex", "RoadGraph", "Geocoding"],
                exclude: ["README.md"]),
        .executableTarget(
            name: "WayfareCLI",
            dependencies: [
                "Zones", "ZoneImport", "WayfareTestKit", "Geodesy", "GeoJSON", "Projection", "Geometry", "SpatialIndex", "Fleet",
                "CSVFile", "OSM", "RoadGraph", "Geocoding", "BinaryFile", "TaxiDispatch", "CitySimulation",
                "Fares", "Storage", "PostgresStorage", "Services", "ServiceSimulation", "CityFolder", "WayfareServer", "WayfareDemo",
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "BackendExample", dependencies: ["Geodesy", "Zones", "Fleet", "RoadGraph", "Geocoding", "TaxiDispatch"],
                          path: "Examples/BackendExample"),
        .executableTarget(name: "ServicesExample", dependencies: ["Services", "Storage", "Fares", "Fleet", "Geodesy", "RoadGraph", "TaxiDispatch", "ZoneImport"],
                          path: "Examples/ServicesExample"),
        .target(name: "TestSupport", dependencies: ["BinaryFile", "Geodesy"], path: "Tests/TestSupport"),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy"]),
        .testTarget(name: "GeoJSONTests", dependencies: ["GeoJSON"]),
        .testTarget(name: "CSVFileTests", dependencies: ["CSVFile"]),
        .testTarget(name: "BinaryFileTests", dependencies: ["BinaryFile", "TestSupport"]),
        .testTarget(name: "ProjectionTests", dependencies: ["Projection", "Geodesy", "TestSupport"]),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "Geodesy", "GeoJSON"]),
        .testTarget(name: "ZonesTests", dependencies: ["Zones", "ZoneImport", "WayfareTestKit", "BinaryFile", "Geometry", "Geodesy", "GeoJSON", "Projection", "TestSupport"]),
        .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "WayfareTestKit", "BinaryFile", "Geodesy", "TestSupport"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "Favourites", "SpatialIndex", "Zones", "ZoneImport", "WayfareTestKit", "Geodesy", "Projection", "TestSupport"]),
        .testTarget(name: "OSMTests", dependencies: ["OSM", "TestSupport"]),
        .testTarget(name: "RoadGraphTests", dependencies: ["RoadGraph", "WayfareTestKit", "OSM", "Geodesy", "BinaryFile", "TestSupport"]),
        .testTarget(name: "GeocodingTests", dependencies: ["Geocoding", "WayfareTestKit", "OSM", "Geodesy", "BinaryFile", "TestSupport"]),
        .testTarget(name: "TaxiDispatchTests", dependencies: ["TaxiDispatch", "CitySimulation", "Fleet", "Zones", "ZoneImport", "RoadGraph", "WayfareTestKit", "Geodesy", "TestSupport"]),
        // The child process of the ledger crash test: pays until it is killed.
        .executableTarget(name: "LedgerCrashWorker", dependencies: ["Services", "Storage", "PostgresStorage"],
                          path: "Tests/LedgerCrashWorker"),
        .testTarget(name: "ServicesTests", dependencies: ["Storage", "PostgresStorage", "Services", "ServiceSimulation", "CitySimulation", "Fares", "Zones", "ZoneImport", "Fleet", "RoadGraph", "TaxiDispatch", "Geodesy", "TestSupport"]),
        .testTarget(name: "FaresTests", dependencies: ["Fares", "Zones", "ZoneImport", "Fleet", "RoadGraph", "Geodesy", "TestSupport"]),
        .testTarget(name: "WayfareAPITests", dependencies: ["WayfareAPI", "Services", "GeoJSON", "Geodesy"]),
        .testTarget(name: "WayfareServerTests", dependencies: ["WayfareAPI", "WayfareServer", "WayfareDemo", "ServiceSimulation", "CityFolder", "Services", "Storage", "PostgresStorage",
                                                              "Geodesy", "GeoJSON", "TestSupport", "ZoneImport", "Zones", "RoadGraph",
                                                              "Geocoding", "TaxiDispatch", "Fleet",
                                                              .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                              .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "WayfareCLITests", dependencies: ["WayfareCLI", "BackendExample", "Geodesy", "GeoJSON", "Zones", "RoadGraph", "Fleet", "PostgresStorage", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses, one per loader: only when WAYFARE_FUZZ is set (scripts/fuzz.sh sets it
// and builds with `-sanitize=fuzzer,address` into its own scratch folder), so that
// ordinary builds never compile them. Inside the package they can wrap a mutated payload in
// a valid container (package API), so mutants get past the checksum.
if Context.environment["WAYFARE_FUZZ"] != nil {
    package.targets.append(.target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"))
    let harnesses: [(String, [Target.Dependency])] = [
        ("FuzzZones", ["Zones", "BinaryFile", "Geodesy"]),
        ("FuzzGraph", ["RoadGraph", "BinaryFile", "Geodesy"]),
        ("FuzzGeocoder", ["Geocoding", "BinaryFile", "Geodesy"]),
        ("FuzzOSMPBF", ["OSM", "RoadGraph", "Geocoding"]),
        ("FuzzGeoJSON", ["GeoJSON", "Geodesy"]),
        ("FuzzCSV", ["CSVFile", "RoadGraph"]),
    ]
    for (name, dependencies) in harnesses {
        package.targets.append(.executableTarget(name: name, dependencies: ["CFuzzerDriver"] + dependencies, path: "Fuzz/\(name)"))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
