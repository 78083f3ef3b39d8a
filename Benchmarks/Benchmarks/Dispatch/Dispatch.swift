import Benchmark
import Fleet
import Foundation
import Geodesy
import RoadGraph
import TaxiDispatch
import Workloads
import ZoneImport
import Zones

// One dispatch decision, through the `Dispatcher` a backend calls: zone lookup, candidate
// filter over the pickup zone's queue, road ETAs for up to 50 candidates on the hierarchy,
// and the first offer, each timed iteration being `request` then `cancel` of one customer
// (the cancel, a few microseconds, frees the cab for the next). The fleet is registered on
// random junctions, available, reported once; the clock is virtual and moves only 0.1 s
// after they report (so the fleet publishes), so nothing goes stale. The fastest-arrival policy is measured beside the default.
//
// Each benchmark runs in its own process, so the cities are lazily built globals.

private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
private let monacoData = root.appendingPathComponent("Data/monaco")

private struct City: @unchecked Sendable { let zones: ZoneSet; let graph: RoadNetwork }

private let monaco: City = {
    let zones = try! ZoneImporter.load(zonesAt: monacoData.appendingPathComponent("wards.geojson").path,
                                       serviceAreasAt: monacoData.appendingPathComponent("communes.geojson").path).0
    return City(zones: zones, graph: try! RoadNetwork.importOSM(path: monacoData.appendingPathComponent("monaco.osm.pbf").path).0)
}()

/// The 1M-node grid (cached in the temporary folder like the routing benchmark's) with
/// square 10 km zones.
private let grid1M: City = {
    let cache = (NSTemporaryDirectory() as NSString).appendingPathComponent("wayfare-grid-1000000-seed42-v\(GraphFile.version)-nearest.wfg")
    let grid = SyntheticGrid(nodes: 1_000_000, seed: 42)
    let graph: RoadNetwork
    if let g = try? GraphFile.read(path: cache) { graph = g } else {
        graph = grid.network().0
        try? GraphFile.write(graph, to: cache)
    }
    let zonesPath = (NSTemporaryDirectory() as NSString).appendingPathComponent("wayfare-grid-1000000-zones-10km.geojson")
    try! grid.squareZonesGeoJSON(sideKm: 10).write(toFile: zonesPath, atomically: true, encoding: .utf8)
    return City(zones: try! ZoneImporter.load(zonesAt: zonesPath).0, graph: graph)
}()

/// A dispatcher with its fleet and pickups, made on the first run and kept. `@unchecked
/// Sendable`: ordo-one runs one benchmark's samples one after another on one thread.
private final class Workload: @unchecked Sendable {
    private let make: () -> (Dispatcher, [Coordinate])
    private var made: (Dispatcher, [Coordinate])?
    var next = 0
    init(_ make: @escaping () -> (Dispatcher, [Coordinate])) { self.make = make }
    var value: (Dispatcher, [Coordinate]) {
        if let made { return made }
        made = make()
        return made!
    }
}

/// A dispatcher on `city` with `cabs` available cabs on random junctions, and 1,000
/// pickups: on junctions, within `spread` metres of the graph's centre when given.
private func workload(_ city: @escaping @Sendable () -> City, cabs: Int, policy: any DispatchPolicy, spread: Double? = nil) -> Workload {
    Workload {
        let c = city()
        let scheduler = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        let d = try! Dispatcher(zones: c.zones, network: c.graph, policy: policy, scheduler: scheduler)
        var rng = SeededRandom(seed: 42)
        let junctions = (0..<c.graph.nodeCount).map { c.graph.coordinate(ofNode: $0) }
            .filter { c.zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) >= 0 }
        try! d.register((0..<cabs).map { CabProfile(id: "cab\($0)", type: .sedan, seats: 4) })
        for i in 0..<cabs {
            try! d.report(cab: "cab\(i)", position: junctions[Int.random(in: 0..<junctions.count, using: &rng)], at: scheduler.now())
            try! d.setStatus(of: "cab\(i)", to: .available)
        }
        // Let the fleet publish, as it would within 50 ms in real time: the nearest-first
        // policies gather through its R-tree.
        scheduler.advance(by: 0.1)
        var pool = junctions
        if let spread {
            let centre = junctions[junctions.count / 2]
            pool = junctions.filter { $0.distance(to: centre) <= spread }
        }
        let pickups = (0..<1000).map { _ in pool[Int.random(in: 0..<pool.count, using: &rng)] }
        return (d, pickups)
    }
}

private func decisionBenchmark(_ name: String, _ w: Workload) {
    Benchmark(name, configuration: .init(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                         warmupIterations: 50, maxDuration: .seconds(5), maxIterations: 20_000)) { benchmark in
        let (d, pickups) = w.value
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let k = w.next
            w.next += 1
            if let id = try? d.request(RideRequest(customer: "p\(k)", pickup: pickups[k % pickups.count])) { try? d.cancel(id) }
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    decisionBenchmark("Dispatch decision, Monaco, 10,000 cabs, zone queue", workload({ monaco }, cabs: 10_000, policy: ZoneQueuePolicy()))
    decisionBenchmark("Dispatch decision, Monaco, 10,000 cabs, fastest arrival", workload({ monaco }, cabs: 10_000, policy: FastestArrivalPolicy()))
    // Pickups within 20 km of the centre, where the 100,000 cabs are as dense as anywhere.
    if (Int(ProcessInfo.processInfo.environment["WAYFARE_BENCH_GRID_MAX"] ?? "") ?? 1_000_000) >= 1_000_000 {
        decisionBenchmark("Dispatch decision, grid 1M, 100,000 cabs, zone queue",
                          workload({ grid1M }, cabs: 100_000, policy: ZoneQueuePolicy(), spread: 20_000))
        decisionBenchmark("Dispatch decision, grid 1M, 100,000 cabs, fastest arrival",
                          workload({ grid1M }, cabs: 100_000, policy: FastestArrivalPolicy(), spread: 20_000))
    }
}
