import Benchmark
import Workloads
import Foundation
import Geodesy
import Zones
import ZoneImport

// Zone lookup on the 263 NYC taxi zones (EPSG:2263, transformed by Wayfare's PROJ code) with
// 1,000,000 seeded points, 70 % inside zones: Wayfare's cell cover against the plain GEOS
// baseline (STR tree of envelopes + prepared covers), measured in the same process.
// One iteration is one pass over all points, so p50/p99 are per pass; points/s = 1e6 / time.

private let dataRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/data")
private let nycPath = dataRoot.appendingPathComponent("nyc/taxi-zones.epsg2263.geojson").path

private struct Workload {
    let set: ZoneSet
    let longitudes: [Double]
    let latitudes: [Double]
}

private func loadWorkload() -> Workload? {
    guard FileManager.default.fileExists(atPath: nycPath) else {
        print("skipped: \(nycPath) is missing (../shared/data)")
        return nil
    }
    guard let (set, _) = try? ZoneImporter.load(zonesAt: nycPath,
                                                options: ZoneImportOptions(idField: "LocationID", nameField: "zone"))
    else { return nil }
    let points = ZoneSampler.points(in: set, count: 1_000_000, insideShare: 0.7, seed: 42)
    return Workload(set: set, longitudes: points.map(\.longitude), latitudes: points.map(\.latitude))
}

let benchmarks: @Sendable () -> Void = {
    guard let work = loadWorkload() else { return }
    let config = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 30)

    Benchmark("Zone lookup: engine cell cover (1M points)", configuration: config) { benchmark in
        var out: [Int32] = []
        out.reserveCapacity(work.longitudes.count)
        benchmark.startMeasurement()
        work.set.zoneIndices(longitudes: work.longitudes, latitudes: work.latitudes, into: &out)
        benchmark.stopMeasurement()
        blackHole(out)
    }

    Benchmark("Zone lookup: engine exact scan, no cover (1M points)",
              configuration: .init(metrics: [.wallClock, .throughput], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(10), maxIterations: 3)) { benchmark in
        // Every zone's exact test in turn, lowest index first, through the public API.
        var hits = 0
        for k in work.longitudes.indices {
            let p = Coordinate(unchecked: work.latitudes[k], work.longitudes[k])
            hits &+= work.set.zones.first(where: { work.set.covers(p, zone: $0) })?.index ?? -1
        }
        blackHole(hits)
    }

    Benchmark("Zone lookup: GEOS STR tree + prepared covers (1M points)",
              configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .milliseconds,
                                   warmupIterations: 0, maxDuration: .seconds(10), maxIterations: 5)) { benchmark in
        let baseline = try GEOSZoneLocator(work.set)
        benchmark.startMeasurement()
        var hits = 0
        for k in work.longitudes.indices {
            hits &+= baseline.zoneIndex(longitude: work.longitudes[k], latitude: work.latitudes[k])
        }
        benchmark.stopMeasurement()
        blackHole(hits)
    }

    Benchmark("Zone import: NYC EPSG:2263 with checks and cover",
              configuration: .init(metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds,
                                   warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)) { _ in
        let result = try ZoneImporter.load(zonesAt: nycPath, options: ZoneImportOptions(idField: "LocationID", nameField: "zone"))
        blackHole(result.0.zones.count)
    }
}
