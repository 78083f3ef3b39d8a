// swift-tools-version: 6.1
import PackageDescription

// Layers: each depends only on the ones above it (scripts/check-imports.py checks this list
// against the targets, and the README's module map is drawn from it).
//   CGEOS, CPROJ, CZlib, CIntrinsics   GEOS, PROJ, zlib, and glibc's sincos with the prefetch and lane-mask helpers: each C library behind one module
//   Essentials                  the one lock, the clocks, the one heap, percentiles, ISO 8601 times, huge pages for large arrays
//   Geodesy, GeoJSON, BinaryFile, CSVFile   coordinates and distances, GeoJSON, checked binary files, CSV (pure Swift)
//   Projection, Geometry, OSM   PROJ's transforms and geodesics, GEOS's polygons, OpenStreetMap's PBF and XML (zlib)
//   Zones, SpatialIndex, Favourites   taxi zones and the zone file; R-tree, point and segment trees; the 150 m favourites
//   ZoneImport, Fleet, RoadGraph, Geocoding   building zones (GEOS, PROJ); the live fleet; road graphs and routing; addresses
//   TaxiDispatch                zone queues, requests and offers, policies, the decision log
//   CitySimulation, Fares       a city at work in virtual time; fare charts and fares in minor units
//   CityModel, Storage          a city as the services see it; the store protocol and migrations (no engine)
//   SQLiteStorage, PostgresStorage, CityFolder   the SQLite store (GRDB); the PostgreSQL store (postgres-nio); a city's folder, loaded checked
//   Services                    accounts, the wallet's ledger, bookings, ride requests, favourites, the outbox, on any store
//   ServiceSimulation, WayfareAPI   a city at work through the services; the HTTP API's wire, defined once
//   WayfareServer               `wayfare serve`: the HTTP API on Hummingbird 2, the live page
//   WayfareDemo, Workloads      `wayfare demo`; the workloads and baselines of `wayfare bench`
//   WayfareCLI                  the `wayfare` command line
let package = Package(
    name: "Wayfare",
    products: [
        .library(name: "Essentials", targets: ["Essentials"]),
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
        .library(name: "CityModel", targets: ["CityModel"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "SQLiteStorage", targets: ["SQLiteStorage"]),
        .library(name: "PostgresStorage", targets: ["PostgresStorage"]),
        .library(name: "Services", targets: ["Services"]),
        .library(name: "ServiceSimulation", targets: ["ServiceSimulation"]),
        .library(name: "CityFolder", targets: ["CityFolder"]),
        .library(name: "WayfareAPI", targets: ["WayfareAPI"]),
        .library(name: "WayfareServer", targets: ["WayfareServer"]),
        // The workloads and baselines of `wayfare bench` and the benchmark package; not part of the engine.
        .library(name: "Workloads", targets: ["Workloads"]),
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
        // NIOCore's ByteBuffer and NIOHTTP1's methods, which the server and the demo's client name.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
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
        .target(name: "Essentials", exclude: ["README.md"]),
        .target(name: "Geodesy", exclude: ["README.md"]),
        .target(name: "GeoJSON", exclude: ["README.md"]),
        .target(name: "Projection", dependencies: ["CPROJ", "Geodesy"], exclude: ["README.md"]),
        .target(name: "Geometry", dependencies: ["CGEOS", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "BinaryFile", dependencies: ["Essentials"], exclude: ["README.md"]),
        .target(name: "CSVFile", exclude: ["README.md"]),
        .target(name: "Zones", dependencies: ["BinaryFile", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "ZoneImport", dependencies: ["Zones", "Geodesy", "GeoJSON", "Projection", "Geometry"], exclude: ["README.md"]),
        .target(name: "SpatialIndex", dependencies: ["Essentials", "CIntrinsics", "Geodesy", "BinaryFile"], exclude: ["README.md"]),
        .target(name: "Fleet", dependencies: ["Essentials", "SpatialIndex", "Zones", "Geodesy", "CIntrinsics"], exclude: ["README.md"]),
        .target(name: "Favourites", dependencies: ["Geodesy"], exclude: ["README.md"]),
        .target(name: "OSM", dependencies: ["CZlib"], exclude: ["README.md"]),
        .target(name: "Geocoding", dependencies: ["OSM", "Geodesy", "SpatialIndex", "BinaryFile", "CSVFile"], exclude: ["README.md"]),
        .target(name: "RoadGraph", dependencies: ["Essentials", "OSM", "Geodesy", "SpatialIndex", "BinaryFile", "CSVFile", "CIntrinsics"], exclude: ["README.md"]),
        .target(name: "TaxiDispatch", dependencies: ["Essentials", "Fleet", "Zones", "RoadGraph", "Geodesy"], exclude: ["README.md"]),
        .target(name: "CitySimulation", dependencies: ["TaxiDispatch", "Fleet", "Zones", "RoadGraph", "Geodesy", "Essentials"], exclude: ["README.md"]),
        .target(name: "Fares", dependencies: ["Zones", "Fleet", "RoadGraph", "Geodesy", "GeoJSON"], exclude: ["README.md"]),
        .target(name: "CityModel", dependencies: ["Fares", "Zones", "RoadGraph"], exclude: ["README.md"]),
        .target(name: "Storage", exclude: ["README.md"]),
        .target(name: "SQLiteStorage", dependencies: ["Storage", "Essentials", .product(name: "GRDB", package: "GRDB.swift")], exclude: ["README.md"]),
        .target(name: "PostgresStorage", dependencies: ["Storage", "Essentials", .product(name: "PostgresNIO", package: "postgres-nio"),
                                                        .product(name: "Logging", package: "swift-log")],
                exclude: ["README.md"]),
        .target(name: "Services", dependencies: ["Essentials", "CityModel", "Storage", "Fares", "TaxiDispatch", "Fleet", "Zones", "RoadGraph", "Favourites", "Geodesy",
                                                 .product(name: "Crypto", package: "swift-crypto"),
                                                 .product(name: "_CryptoExtras", package: "swift-crypto")],
                exclude: ["README.md", "CommonPasswords/PROVENANCE.md"],
                // The common-password list, embedded at build time as bytes: no resource
                // bundle to lose beside a binary, and no generated source in the repository.
                resources: [.embedInCode("CommonPasswords/common-passwords.txt")]),
        .target(name: "ServiceSimulation", dependencies: ["Services", "Storage", "CitySimulation", "TaxiDispatch", "Fleet", "Zones",
                                                          "RoadGraph", "Geodesy", "CityModel", "Essentials"], exclude: ["README.md"]),
        .target(name: "CityFolder", dependencies: ["CityModel", "Zones", "RoadGraph", "Geocoding", "Fares", "GeoJSON"],
                exclude: ["README.md"]),
        .target(name: "WayfareAPI", dependencies: ["Services", "TaxiDispatch", "RoadGraph", "Geodesy", "GeoJSON", "Essentials"], exclude: ["README.md"]),
        .target(name: "WayfareServer", dependencies: ["WayfareAPI", "CityFolder", "Services", "Storage", "Fares", "TaxiDispatch", "Fleet", "Zones",
                                                      "RoadGraph", "Geocoding", "Geodesy", "GeoJSON",
                                                      .product(name: "Hummingbird", package: "hummingbird"),
                                                      .product(name: "HummingbirdCore", package: "hummingbird"),
                                                      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                      .product(name: "Logging", package: "swift-log"),
                                                      .product(name: "CoreMetrics", package: "swift-metrics"),
                                                      .product(name: "Prometheus", package: "swift-prometheus"),
                                                      .product(name: "Crypto", package: "swift-crypto"), "CityModel", "Essentials", .product(name: "NIOCore", package: "swift-nio")],
                exclude: ["README.md"]),
        .target(name: "WayfareDemo", dependencies: ["WayfareAPI", "WayfareServer", "ServiceSimulation", "CitySimulation", "CityFolder", "Services",
                                                    "Storage", "TaxiDispatch", "Fleet", "Zones", "Geodesy", "GeoJSON", "BinaryFile",
                                                    .product(name: "AsyncHTTPClient", package: "async-http-client"),
                                                    .product(name: "Hummingbird", package: "hummingbird"),
                                                    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                                                    .product(name: "Logging", package: "swift-log"), "Essentials", .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"), "SQLiteStorage"],
                exclude: ["README.md"]),
        .target(name: "Workloads", dependencies: ["Geodesy", "GeoJSON", "Zones", "Geometry", "RoadGraph", "Geocoding"],
                exclude: ["README.md"]),
        .executableTarget(
            name: "WayfareCLI",
            dependencies: [
                "Zones", "ZoneImport", "Workloads", "Geodesy", "GeoJSON", "SpatialIndex", "Fleet",
                "CSVFile", "RoadGraph", "Geocoding", "BinaryFile", "TaxiDispatch", "CitySimulation",
                "Fares", "Storage", "PostgresStorage", "Services", "ServiceSimulation", "CityFolder", "WayfareServer", "WayfareDemo",
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"), "CityModel", "Essentials", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"), "SQLiteStorage", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "WayfareAPI"]),
        .executableTarget(name: "BackendExample", dependencies: ["Geodesy", "Zones", "Fleet", "RoadGraph", "Geocoding", "TaxiDispatch"],
                          path: "Examples/BackendExample"),
        .executableTarget(name: "ServicesExample", dependencies: ["Services", "Storage", "Fares", "Fleet", "Geodesy", "RoadGraph", "TaxiDispatch", "ZoneImport", "CityModel", "SQLiteStorage"],
                          path: "Examples/ServicesExample"),
        // The tests' one support module: data paths, oracles written apart, the Monaco fixture,
        // scratch SQLite and PostgreSQL stores, payload mutation.
        .target(name: "TestSupport", dependencies: ["BinaryFile", "Geodesy", "CityModel", "Fares", "RoadGraph", "ZoneImport", "Zones",
                                                    "Storage", "SQLiteStorage", "PostgresStorage", "Services"], path: "Tests/TestSupport"),
        .testTarget(name: "EssentialsTests", dependencies: ["Essentials", "Geodesy", "TestSupport"]),
        .testTarget(name: "FavouritesTests", dependencies: ["Favourites", "Geodesy", "Projection"]),
        .testTarget(name: "ZoneImportTests", dependencies: ["ZoneImport", "BinaryFile", "Geodesy", "TestSupport", "Workloads", "Zones"]),
        .testTarget(name: "CitySimulationTests", dependencies: ["CitySimulation", "TaxiDispatch", "TestSupport", "RoadGraph", "Geodesy"]),
        .testTarget(name: "CityModelTests", dependencies: ["CityModel", "Fares", "TestSupport"]),
        .testTarget(name: "CityFolderTests", dependencies: ["CityFolder", "CityModel", "RoadGraph", "TestSupport", "Zones"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Essentials", "Fleet", "Services", "TestSupport"]),
        .testTarget(name: "SQLiteStorageTests", dependencies: ["SQLiteStorage", "Storage"]),
        .testTarget(name: "PostgresStorageTests", dependencies: ["PostgresStorage", "Storage", "TestSupport", "Essentials"]),
        .testTarget(name: "ServiceSimulationTests", dependencies: ["ServiceSimulation", "Services", "Storage", "TestSupport"]),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy"]),
        .testTarget(name: "GeoJSONTests", dependencies: ["GeoJSON"]),
        .testTarget(name: "CSVFileTests", dependencies: ["CSVFile", "Geodesy"]),
        .testTarget(name: "BinaryFileTests", dependencies: ["BinaryFile", "TestSupport"]),
        .testTarget(name: "ProjectionTests", dependencies: ["Projection", "Geodesy", "TestSupport"]),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry", "GeoJSON"]),
        .testTarget(name: "ZonesTests", dependencies: ["Zones", "ZoneImport", "Workloads", "Geometry", "Geodesy", "GeoJSON", "TestSupport"]),
        .testTarget(name: "SpatialIndexTests", dependencies: ["SpatialIndex", "Workloads", "BinaryFile", "Geodesy", "TestSupport"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "Favourites", "SpatialIndex", "Zones", "ZoneImport", "Geodesy", "Projection", "TestSupport", "Essentials"]),
        .testTarget(name: "OSMTests", dependencies: ["OSM", "TestSupport"]),
        .testTarget(name: "RoadGraphTests", dependencies: ["RoadGraph", "Workloads", "OSM", "Geodesy", "BinaryFile", "TestSupport"]),
        .testTarget(name: "GeocodingTests", dependencies: ["Geocoding", "Workloads", "OSM", "Geodesy", "BinaryFile", "TestSupport"]),
        .testTarget(name: "TaxiDispatchTests", dependencies: ["TaxiDispatch", "Essentials", "Fleet", "Zones", "ZoneImport", "RoadGraph", "Workloads", "Geodesy", "TestSupport"]),
        // The child process of the ledger crash test: pays until it is killed.
        .executableTarget(name: "LedgerCrashWorker", dependencies: ["Services", "Storage", "PostgresStorage", "SQLiteStorage"],
                          path: "Tests/LedgerCrashWorker"),
        .testTarget(name: "ServicesTests", dependencies: ["Storage", "PostgresStorage", "Services", "Fares", "Fleet", "TaxiDispatch", "Geodesy", "CityModel", "Essentials", "SQLiteStorage", "RoadGraph", "CitySimulation", "TestSupport"]),
        .testTarget(name: "FaresTests", dependencies: ["Fares", "Zones", "ZoneImport", "Fleet", "RoadGraph", "Geodesy", "TestSupport"]),
        .testTarget(name: "WayfareAPITests", dependencies: ["WayfareAPI", "Services", "GeoJSON", "Geodesy", "Essentials"]),
        .testTarget(name: "WayfareServerTests", dependencies: [ "WayfareServer", "WayfareDemo", "ServiceSimulation", "CityFolder", "Services", "Storage", "GeoJSON", "TestSupport", "ZoneImport", "Zones", "RoadGraph",
                                                              "Geocoding", "Geodesy", "TaxiDispatch",
                                                              .product(name: "HummingbirdTesting", package: "hummingbird"),
                                                              .product(name: "Logging", package: "swift-log"),
                                                              .product(name: "Crypto", package: "swift-crypto"), .product(name: "Hummingbird", package: "hummingbird"), "SQLiteStorage"]),
        .testTarget(name: "WayfareCLITests", dependencies: ["WayfareCLI", "BackendExample", "Geodesy", "GeoJSON", "Zones", "RoadGraph", "Fleet", "PostgresStorage", "TestSupport", "Essentials"]),
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
