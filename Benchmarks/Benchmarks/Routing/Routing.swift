import Benchmark
import CitySimulation
import Workloads
import Foundation
import Geodesy
import RoadGraph

// Routing on real and synthetic graphs. Each timed iteration is one query from coordinates
// to the finished answer (snapping, search, path unpacking, geometry), cycling through
// 1,000 seeded pairs, so ordo-one's p50/p99 are per-query figures. The plain A* and
// Dijkstra runs in the same process are the baselines.
//
// ordo-one runs each benchmark in a process of its own, so every graph is a lazily built
// global: a process builds only the graph its benchmark uses.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
private let monacoPath = root.appendingPathComponent("Data/monaco/monaco.osm.pbf").path
private let helsinkiPath = root.deletingLastPathComponent().appendingPathComponent("shared/data/helsinki/helsinki.osm.pbf").path
private let monaco: RoadNetwork = describe("Monaco", try! RoadNetwork.importOSM(path: monacoPath).0, since: Date())
private let grid10k = grid(10_000), grid100k = grid(100_000), grid1M = grid(1_000_000)

private func describe(_ name: String, _ g: RoadNetwork, since start: Date) -> RoadNetwork {
    print("\(name): \(g.nodeCount) nodes, \(g.edgeCount) edges, built in \(String(format: "%.1f", Date().timeIntervalSince(start))) s, "
          + "\(g.memoryBytes / g.nodeCount) bytes per node in memory")
    return g
}

/// The seeded grid of about `size` nodes. Contracting 1M nodes takes minutes, so that one
/// is cached in the temporary folder (keyed by size, seed, file version and the cost rounding,
/// "nearest" since costs stopped rounding up) and reused by
/// the benchmark processes that follow. The cache may also be the same grid made by
/// `wayfare graph grid --nodes 1000000 --seed 42` and `graph import` (its CSV rounds
/// lengths to centimetres and times to milliseconds).
private func grid(_ size: Int) -> RoadNetwork {
    let cache = (NSTemporaryDirectory() as NSString).appendingPathComponent("wayfare-grid-\(size)-seed42-v\(GraphFile.version)-nearest.wfg")
    let start = Date()
    if size >= 1_000_000, let g = try? GraphFile.read(path: cache) { return describe("Grid \(size) (cached)", g, since: start) }
    let g = describe("Grid \(size)", SyntheticGrid(nodes: size, seed: 42).network().0, since: start)
    if size >= 1_000_000 { try? GraphFile.write(g, to: cache) }
    return g
}

/// A router and its inputs, made on a benchmark's first run and kept for its later ones:
/// ordo-one calls the closure once per sample, and a fresh router per sample would measure
/// its first-use growth instead of the steady state. `@unchecked Sendable` because ordo-one
/// runs one benchmark's samples one after another on one thread.
private final class Workload: @unchecked Sendable {
    private let make: () -> (Router, [(Coordinate, Coordinate)])
    private var made: (router: Router, pairs: [(Coordinate, Coordinate)])?
    var next = 0
    init(_ make: @escaping () -> (Router, [(Coordinate, Coordinate)])) { self.make = make }
    var value: (router: Router, pairs: [(Coordinate, Coordinate)]) {
        if let made { return made }
        made = make()
        return made!
    }
}

/// One benchmark per algorithm, each routing the same 1,000 seeded pairs in turn by
/// `metric` (the fastest route unless told; "shortest" in the name for the distance metric).
private func queryBenchmarks(_ name: String, _ network: @escaping @Sendable () -> RoadNetwork, algorithms: [RoutingAlgorithm],
                             metric: Metric = .time) {
    for algorithm in algorithms {
        let workload = Workload { let g = network(); return (Router(network: g), g.randomPairs(1000, seed: 42)) }
        Benchmark("\(name): \(metric == .time ? "route" : "shortest route") \(algorithm)", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
            warmupIterations: 100, maxDuration: .seconds(4), maxIterations: 20_000)) { benchmark in
            let (router, od) = workload.value
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let (a, b) = od[workload.next % od.count]
                workload.next += 1
                blackHole(try? router.route(from: a, to: b, metric: metric, algorithm: algorithm))
            }
        }
    }
}

/// The many-to-one ETAs of the workload's first 50 origins to each destination in turn, with
/// each algorithm (the hierarchy and its baseline) in the same process.
private func etaBenchmarks(_ name: String, _ workload: Workload, iterations: Int) {
    for algorithm in ETAAlgorithm.allCases {
        Benchmark("\(name) (\(algorithm), 30 min)", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 10,
            maxDuration: .seconds(4), maxIterations: iterations)) { benchmark in
            let (router, pairs) = workload.value
            let cabs = pairs.prefix(50).map(\.0)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try? router.etas(to: pairs[workload.next % pairs.count].1, from: cabs, algorithm: algorithm))
                workload.next += 1
            }
        }
    }
}

/// Map matching a cab's 30-minute shift (one report every 5 s, σ 15 m, from the simulator's
/// tour of Monaco), and as the baseline in the same process the billing it replaced: a
/// route between each pair of consecutive reports.
private let shiftTrace: [TracePoint] = {
    let tour = GPSTraces.tour(on: monaco, seconds: 1800, seed: 1)
    var random = SeededRandom(seed: 1)
    return GPSTraces.reports(along: tour.path, durationSeconds: tour.durationSeconds, every: 5, noiseMetres: 15, using: &random)
        .filter { ($0.time ?? 0) <= 1800 }
}()

private func matchBenchmarks() {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                                warmupIterations: 3, maxDuration: .seconds(4), maxIterations: 2_000)
    Benchmark("Monaco: match a 30-minute trace (361 reports)", configuration: configuration) { benchmark in
        let matcher = Matcher(network: monaco), trace = shiftTrace
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(matcher.match(trace, settings: MatchSettings(gpsSigmaMetres: 15))) }
    }
    Benchmark("Monaco: route between consecutive reports of the same trace (baseline)", configuration: configuration) { benchmark in
        let router = Router(network: monaco), trace = shiftTrace
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for (a, b) in zip(trace, trace.dropFirst()) { blackHole(try? router.route(from: a.coordinate, to: b.coordinate)) }
        }
    }
}

/// Alternatives: up to three routes for 100 pairs of Monaco's junctions, beside the fastest
/// route alone for the same pairs (the baseline), and a cab followed along its route report
/// by report (the deviation check the server runs on every tracked report).
private let alternativePairs: [(Coordinate, Coordinate)] = GPSTraces.trips(on: monaco, count: 100, seed: 1).compactMap { r in
    r.geometry.first.flatMap { a in r.geometry.last.map { (a, $0) } }
}

private func alternativeBenchmarks() {
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                                warmupIterations: 3, maxDuration: .seconds(4), maxIterations: 2_000)
    Benchmark("Monaco: up to 3 routes for 100 pairs", configuration: configuration) { benchmark in
        let router = Router(network: monaco), pairs = alternativePairs
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { for (a, b) in pairs { blackHole(try? router.routes(from: a, to: b, count: 3)) } }
    }
    Benchmark("Monaco: the fastest route for the same 100 pairs (baseline)", configuration: configuration) { benchmark in
        let router = Router(network: monaco), pairs = alternativePairs
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { for (a, b) in pairs { blackHole(try? router.route(from: a, to: b)) } }
    }
    Benchmark("Monaco: follow a cab along an 8.7 km route (158 reports)", configuration: configuration) { benchmark in
        let matcher = Matcher(network: monaco)
        guard let route = GPSTraces.trips(on: monaco, count: 1, seed: 5, minimumMetres: 3000).first else { return }
        var random = SeededRandom(seed: 5)
        let reports = GPSTraces.reports(along: route.geometry, durationSeconds: route.durationSeconds, every: 5, noiseMetres: 10, using: &random)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            var follower = RouteFollower(route: route, to: route.geometry.last!)
            for report in reports { blackHole(follower.observe(report, matcher: matcher)) }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let importConfig = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds,
                                               warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)
    Benchmark("Overhead: an empty iteration", configuration: .init(metrics: [.wallClock, .mallocCountTotal],
                                                                  timeUnits: .microseconds, maxIterations: 20_000)) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(0) }
    }
    Benchmark("Import Monaco (PBF to contracted graph)", configuration: importConfig) { _ in
        blackHole(try? RoadNetwork.importOSM(path: monacoPath))
    }
    if FileManager.default.fileExists(atPath: helsinkiPath) {
        Benchmark("Import Helsinki (PBF to contracted graph)", configuration: importConfig) { _ in
            blackHole(try? RoadNetwork.importOSM(path: helsinkiPath))
        }
    }
    queryBenchmarks("Monaco", { monaco }, algorithms: RoutingAlgorithm.allCases)
    // The pairs' origins are 50 cabs, their destinations 100 pickups in turn: the hierarchy's
    // many-to-one, and the plain backward search as the baseline, in the same process.
    let etaWorkload = Workload { (Router(network: monaco), zip(monaco.randomPairs(100, seed: 8), monaco.randomPairs(100, seed: 7)).map { ($1.0, $0.0) }) }
    etaBenchmarks("Monaco: ETAs of 50 cabs", etaWorkload, iterations: 10_000)
    matchBenchmarks()
    alternativeBenchmarks()

    // The seeded synthetic grid city, at three sizes, to show how query time grows. The 1M
    // grid takes minutes to contract; WAYFARE_BENCH_GRID_MAX=100000 leaves it out.
    let largest = Int(ProcessInfo.processInfo.environment["WAYFARE_BENCH_GRID_MAX"] ?? "") ?? 1_000_000
    queryBenchmarks("Grid 10k", { grid10k }, algorithms: [.hierarchy, .astar, .dijkstra])
    if largest >= 100_000 {
        queryBenchmarks("Grid 100k", { grid100k }, algorithms: [.hierarchy, .astar, .dijkstra])
        // Shortest routes: the hierarchy's search aims at the goal on this metric (A* beside it).
        queryBenchmarks("Grid 100k", { grid100k }, algorithms: [.hierarchy, .astar], metric: .distance)
    }
    if largest >= 1_000_000 {
        queryBenchmarks("Grid 1M", { grid1M }, algorithms: [.hierarchy, .astar])
        queryBenchmarks("Grid 1M", { grid1M }, algorithms: [.hierarchy], metric: .distance)
        // 50 cabs and 100 pickups on junctions within 5 km of the centre (one 10 km zone's
        // worth of candidates).
        let gridETA = Workload {
            let g = grid1M
            let centre = g.coordinate(ofNode: g.nodeCount / 2)
            var rng = SeededRandom(seed: 9)
            let near = (0..<g.nodeCount).map { g.coordinate(ofNode: $0) }.filter { $0.distance(to: centre) <= 5000 }
            return (Router(network: g), (0..<100).map { _ in (near[Int.random(in: 0..<near.count, using: &rng)], near[Int.random(in: 0..<near.count, using: &rng)]) })
        }
        etaBenchmarks("Grid 1M: ETAs of 50 cabs within 5 km", gridETA, iterations: 5_000)
    }
}
