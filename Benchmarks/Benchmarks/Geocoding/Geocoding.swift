import Benchmark
import Workloads
import Foundation
import Geocoding
import Geodesy
import SpatialIndex

// Geocoding on the Monaco extract plus the 144k-place gazetteer, and on the gazetteer alone,
// with queries and points drawn by the same seeded sampler as `wayfare geocoder sample`.
// Reverse iterations run 10,000 points each (per-point time = iteration time / 10,000);
// forward iterations run one query each, so ordo-one's p50/p99 are per-query figures.
// The 2-D k-d tree in raw degrees (the issue's SciPy-style baseline) runs on the same points
// in the same process.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
private let monacoPath = root.appendingPathComponent("Data/monaco/monaco.osm.pbf").path
private let gazetteerPath = root.deletingLastPathComponent().appendingPathComponent("shared/data/gazetteer/cities1000.csv").path
private let hasGazetteer = FileManager.default.fileExists(atPath: gazetteerPath)
private let pointsPerIteration = 10_000

private func table(osm: Bool, gazetteer: Bool) -> GeocoderTable {
    var b = GeocoderBuilder()
    if osm { try! b.addOSM(path: monacoPath) }
    if gazetteer && hasGazetteer { try! b.addGazetteer(path: gazetteerPath) }
    return b.build()
}

private let monacoTable = table(osm: true, gazetteer: true)
private let gazetteerTable = table(osm: false, gazetteer: true)

/// Points uniform over the globe (most fall in the sea, far from any place: the slow case).
private func globePoints(_ n: Int, seed: UInt64) -> [Coordinate] {
    var rng = SeededRandom(seed: seed)
    return (0..<n).map { _ in
        Coordinate(unchecked: asin(Double.random(in: -1...1, using: &rng)) * 180 / .pi, Double.random(in: -180..<180, using: &rng))
    }
}

let benchmarks: @Sendable () -> Void = {
    if !hasGazetteer { print("Geocoding: \(gazetteerPath) is missing; the gazetteer benchmarks run on an empty gazetteer") }
    let batch = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                        warmupIterations: 2, maxDuration: .seconds(4), maxIterations: 300)

    Benchmark("Build: Monaco PBF + gazetteer CSV to table", configuration: .init(
        metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds, warmupIterations: 0,
        maxDuration: .seconds(10), maxIterations: 5)) { _ in
        blackHole(table(osm: true, gazetteer: true))
    }
    Benchmark("Load: Monaco + gazetteer table file", configuration: .init(
        metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20)) { benchmark in
        let path = NSTemporaryDirectory() + "wayfare-bench-\(getpid()).wfgc"
        try! GeocoderFile.write(monacoTable, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        benchmark.startMeasurement()
        blackHole(try! GeocoderFile.read(path: path))
        benchmark.stopMeasurement()
    }

    let passengers = monacoTable.samplePoints(pointsPerIteration, seed: 42)
    Benchmark("Reverse: Monaco + gazetteer, points within 50 m of a street ×10k", configuration: batch) { benchmark in
        for p in passengers { blackHole(monacoTable.reverse(p)) }
    }

    let places = gazetteerTable.cityCoordinates
    let baseline = DegreeKDTree(places)
    for (name, points) in [("near places (≤ 20 km)", gazetteerTable.samplePoints(pointsPerIteration, seed: 42)),
                           ("uniform on the globe", globePoints(pointsPerIteration, seed: 42))] {
        // How often the degree-space baseline misses the nearest place on the globe.
        let wrong = points.filter { p in
            let mine = gazetteerTable.reverse(p)!.metres
            return p.distance(to: places[baseline.nearest(to: p)]) > mine + 1e-6
        }.count
        print("Gazetteer, \(name): the degree k-d tree's answer is not the nearest place for "
              + "\(wrong) of \(points.count) points (\(String(format: "%.1f", Double(wrong) * 100 / Double(points.count))) %)")
        Benchmark("Reverse: gazetteer alone (\(places.count) places), \(name) ×10k", configuration: batch) { benchmark in
            for p in points { blackHole(gazetteerTable.reverse(p)) }
        }
        Benchmark("Baseline: 2-D k-d tree in degrees, gazetteer, \(name) ×10k", configuration: batch) { benchmark in
            for p in points { blackHole(baseline.nearest(to: p)) }
        }
    }

    let queries = monacoTable.sampleQueries(2_000, seed: 42)
    final class Cursor: @unchecked Sendable { var next = 0 }  // one benchmark's samples run on one thread
    let cursor = Cursor()
    Benchmark("Forward: Monaco + gazetteer, one sampled query", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 200,
        maxDuration: .seconds(5), maxIterations: 50_000)) { benchmark in
        for _ in benchmark.scaledIterations {
            let q = queries[cursor.next % queries.count]
            cursor.next += 1
            blackHole(try? monacoTable.geocode(q.text, near: q.near, limit: 5))
        }
    }
}
