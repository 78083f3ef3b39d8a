import Benchmark
import Foundation
import Geodesy
import RoadGraph

// Routing on real and synthetic graphs. Each timed iteration is one query from coordinates
// to the finished answer (snapping, search, path unpacking, geometry), cycling through
// 1,000 seeded pairs, so ordo-one's p50/p99 are per-query figures. The plain A* and
// Dijkstra runs in the same process are the baselines.

private func pairs(_ g: RoadNetwork) -> [(Coordinate, Coordinate)] { g.randomPairs(1000, seed: 42) }

private func queryBenchmarks(_ name: String, _ g: RoadNetwork, algorithms: [RoutingAlgorithm]) {
    let od = pairs(g)
    for algorithm in algorithms {
        Benchmark("\(name): route \(algorithm)", configuration: .init(
            metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
            warmupIterations: 100, maxDuration: .seconds(4), maxIterations: 20_000)) { benchmark in
            let router = Router(network: g)
            var i = 0
            for _ in benchmark.scaledIterations {
                let (a, b) = od[i % od.count]
                i += 1
                blackHole(try? router.route(from: a, to: b, metric: .time, algorithm: algorithm))
            }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    let monacoPath = root.appendingPathComponent("Data/monaco/monaco.osm.pbf").path
    let helsinkiPath = root.deletingLastPathComponent().appendingPathComponent("shared/data/helsinki/helsinki.osm.pbf").path
    let importConfig = Benchmark.Configuration(metrics: [.wallClock, .peakMemoryResident], timeUnits: .milliseconds,
                                               warmupIterations: 1, maxDuration: .seconds(10), maxIterations: 10)
    Benchmark("Import Monaco (PBF to contracted graph)", configuration: importConfig) { _ in
        blackHole(try? RoadNetwork.importOSM(path: monacoPath))
    }
    if FileManager.default.fileExists(atPath: helsinkiPath) {
        Benchmark("Import Helsinki (PBF to contracted graph)", configuration: importConfig) { _ in
            blackHole(try? RoadNetwork.importOSM(path: helsinkiPath))
        }
    }
    guard let (monaco, _) = try? RoadNetwork.importOSM(path: monacoPath) else { return }
    print("Monaco: \(monaco.nodeCount) nodes, \(monaco.memoryBytes / monaco.nodeCount) bytes per node in memory")
    queryBenchmarks("Monaco", monaco, algorithms: RoutingAlgorithm.allCases)

    let cabs = monaco.randomPairs(50, seed: 7).map(\.0)
    let pickups = monaco.randomPairs(100, seed: 8).map(\.0)
    Benchmark("Monaco: ETAs of 50 cabs (one backward search, 30 min)", configuration: .init(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 20,
        maxDuration: .seconds(4), maxIterations: 10_000)) { benchmark in
        let router = Router(network: monaco)
        var i = 0
        for _ in benchmark.scaledIterations {
            blackHole(try? router.etas(to: pickups[i % pickups.count], from: cabs))
            i += 1
        }
    }

    // The seeded synthetic grid city, at three sizes, to show how query time grows. The 1M
    // grid takes minutes to contract; WAYFARE_BENCH_GRID_MAX=100000 leaves it out.
    let largest = Int(ProcessInfo.processInfo.environment["WAYFARE_BENCH_GRID_MAX"] ?? "") ?? 1_000_000
    for size in [10_000, 100_000, 1_000_000] where size <= largest {
        let label = size >= 1_000_000 ? "1M" : "\(size / 1000)k"
        let start = Date()
        let (grid, _) = SyntheticGrid(nodes: size, seed: 42).network()
        print("Grid \(label): \(grid.nodeCount) nodes, built and contracted in \(Int(Date().timeIntervalSince(start))) s, "
              + "\(grid.memoryBytes / grid.nodeCount) bytes per node")
        queryBenchmarks("Grid \(label)", grid, algorithms: size > 100_000 ? [.hierarchy, .astar] : [.hierarchy, .astar, .dijkstra])
    }
}
