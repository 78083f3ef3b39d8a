import Benchmark
import Fleet
import Foundation
import Geodesy
import SpatialIndex
import Synchronization
import Workloads

// The R-tree on the seeded NYC-like fleet (70 % around 20 hot spots, σ ≈ 1.5 km; 30 % uniform
// in lat 40.49…40.92, lon −74.26…−73.70), against a brute-force haversine scan in the same run.
// One iteration runs 10,000 queries (or reports), so per-query time = iteration time / 10,000.

private let queriesPerIteration = 10_000

/// A benchmark that sends every query through `query` once per iteration and times only that
/// loop. `query` gets a workspace of its own (the baseline ignores it) and an output buffer.
private func queryBenchmark<Output>(_ name: String, _ config: Benchmark.Configuration, _ queries: [Coordinate],
                                    into empty: Output,
                                    _ query: @escaping @Sendable (Coordinate, SearchWorkspace, inout Output) -> Void) {
    Benchmark(name, configuration: config) { benchmark in
        let w = SearchWorkspace()
        var out = empty
        benchmark.startMeasurement()
        for q in queries { query(q, w, &out) }
        benchmark.stopMeasurement()
        blackHole(out)
    }
}

let benchmarks: @Sendable () -> Void = {
    let city = SyntheticCity(seed: 42)
    let queries = city.points(queriesPerIteration, seed: 44)
    let config = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds,
                                         warmupIterations: 2, maxDuration: .seconds(5), maxIterations: 200)

    for count in [10_000, 100_000, 1_000_000] {
        let cabs = city.points(count, seed: 43)
        let tags = [UInt32](repeating: 1, count: count), stamps = [Int64](repeating: 0, count: count)
        let payloads = (0..<Int32(count)).map { $0 }
        let built = try! RTree(coordinates: cabs, tags: tags, stamps: stamps, payloads: payloads)
        let label = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1_000)k"

        // Only the load is timed: the inputs exist before, and the tree is freed after.
        Benchmark("Fleet \(label): bulk load", configuration: .init(metrics: [.wallClock], timeUnits: .milliseconds,
                                                                   warmupIterations: 1, maxDuration: .seconds(5), maxIterations: 20)) { benchmark in
            benchmark.startMeasurement()
            let loaded = try! RTree(coordinates: cabs, tags: tags, stamps: stamps, payloads: payloads)
            benchmark.stopMeasurement()
            blackHole(loaded)
        }
        for k in [1, 10] {
            queryBenchmark("Fleet \(label): k=\(k) nearest ×10k", config, queries, into: [Neighbour]()) { q, w, out in
                built.nearest(k, to: q, into: &out, using: w)
            }
        }
        // The planar baseline (a static k-d tree in raw degrees) on the same queries, for
        // ratios that hold on a noisy machine. Its radius is 1 km as degrees of latitude.
        let planar = DegreeKDTree(cabs)
        for k in [1, 10] {
            queryBenchmark("Fleet \(label): baseline planar k-d tree k=\(k) ×10k", config, queries, into: [Int]()) { q, _, out in
                planar.nearest(k, to: q, into: &out)
            }
        }
        let degrees = 1_000 / (Earth.meanRadius * .pi / 180)
        queryBenchmark("Fleet \(label): baseline planar k-d tree radius ×10k", config, queries, into: [Int]()) { q, _, out in
            planar.within(degrees, of: q, into: &out)
        }
        queryBenchmark("Fleet \(label): radius 1 km ×10k", config, queries, into: [Neighbour]()) { q, w, out in
            built.within(1_000, of: q, into: &out, using: w)
        }
        // The same queries after every cab has moved up to 250 m (one round of reports).
        var driven = built
        for (i, p) in city.moves(of: cabs, seed: 46).enumerated() { _ = try? driven.move(EntryID(rawValue: Int32(i)), to: p, stamp: 1) }
        let afterMoves = driven
        queryBenchmark("Fleet \(label): k=10 nearest after moves ×10k", config, queries, into: [Neighbour]()) { q, w, out in
            afterMoves.nearest(10, to: q, into: &out, using: w)
        }
        Benchmark("Fleet \(label): position reports ×10k", configuration: config) { benchmark in
            var t = built
            let moved = city.moves(of: Array(cabs.prefix(queriesPerIteration)), seed: 45)
            _ = try? t.move(EntryID(rawValue: 0), to: moved[0], stamp: 1)   // copy-on-write happens here, untimed
            benchmark.startMeasurement()
            for (i, p) in moved.enumerated() { _ = try? t.move(EntryID(rawValue: Int32(i)), to: p, stamp: 1) }
            benchmark.stopMeasurement()
            blackHole(t.count)
        }
    }

    // `Fleet` itself: one writer thread streams reports (every cab to its moved position and
    // back, over and over; one per call, or 512 per call of the batch form) while the
    // measured loop runs k=10 queries with one workspace. The writer's rate and the oldest
    // data a query searched are reported beside the timings.
    for count in [100_000, 1_000_000] { for batched in [false, true] {
        let label = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1_000)k"
        let starts = city.points(count, seed: 43), moved = city.moves(of: starts, seed: 46)
        let fleet = try! Fleet()
        let now = Date()
        let handles = try! fleet.register((0..<count).map { Cab(id: "c\($0)", type: .sedan, status: .available, position: starts[$0], lastReport: now) })
        let live = Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal,
                      .custom("writer reports/s", polarity: .prefersLarger, useScalingFactor: false),
                      .custom("oldest data seen (µs)", useScalingFactor: false)],
            timeUnits: .microseconds, warmupIterations: 2, maxDuration: .seconds(5), maxIterations: 100)
        let how = batched ? "streams reports in batches of 512" : "streams reports"
        Benchmark("Fleet \(label): through Fleet, k=10 ×10k while a writer \(how)", configuration: live) { benchmark in
            let stop = StopFlag()
            let writer = WriterCount()
            let thread = Thread {
                var n = 0, round = 0
                var batch: [CabReport] = []
                let t0 = DispatchTime.now().uptimeNanoseconds
                while !stop.value.load(ordering: .relaxed) {
                    let at = Date()
                    let chunk = stride(from: (n % count), to: min(count, n % count + (batched ? 512 : 1_024)), by: 1)
                    if batched {
                        batch.removeAll(keepingCapacity: true)
                        for i in chunk { batch.append(CabReport(handles[i], position: round & 1 == 0 ? moved[i] : starts[i], at: at)) }
                        fleet.report(batch)
                        n += batch.count
                    } else {
                        for i in chunk {
                            _ = try? fleet.report(handles[i], position: round & 1 == 0 ? moved[i] : starts[i], at: at)
                            n += 1
                        }
                    }
                    if n % count == 0 { round += 1 }
                }
                writer.finish(reports: n, nanoseconds: DispatchTime.now().uptimeNanoseconds - t0)
            }
            thread.start()
            let w = FleetWorkspace()
            var found: [NearbyCab] = []
            var oldest = 0.0
            benchmark.startMeasurement()
            for q in queries {
                // Handles and distances, as the dispatcher asks (each record on demand).
                fleet.nearest(10, to: q, using: w, into: &found)
                blackHole(found)
                if let seen = w.lastSearchDataTime { oldest = max(oldest, Date().timeIntervalSince(seen)) }
            }
            benchmark.stopMeasurement()
            stop.value.store(true, ordering: .relaxed)
            let (reports, ns) = writer.wait()
            benchmark.measurement(.custom("writer reports/s", polarity: .prefersLarger, useScalingFactor: false),
                                  Int(Double(reports) / (Double(ns) / 1e9)))
            benchmark.measurement(.custom("oldest data seen (µs)", useScalingFactor: false), Int(oldest * 1e6))
        }
    } }

    let small = city.points(100_000, seed: 43)
    Benchmark("Fleet 100k: brute-force k=10 (haversine scan) ×100", configuration: .init(
        metrics: [.wallClock], timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(5), maxIterations: 5)) { _ in
        for q in queries.prefix(100) {
            var best: [Double] = []
            for c in small {
                let d = q.distance(to: c)
                if best.count < 10 { best.append(d); best.sort() } else if d < best[9] { best[9] = d; best.sort() }
            }
            blackHole(best)
        }
    }
}

/// Tells the writer thread to stop.
private final class StopFlag: Sendable {
    let value = Atomic<Bool>(false)
}

/// The writer thread's count of reports and its running time, handed over once.
private final class WriterCount: Sendable {
    private let result = Mutex<(Int, UInt64)?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func finish(reports: Int, nanoseconds: UInt64) {
        result.withLock { $0 = (reports, nanoseconds) }
        done.signal()
    }

    func wait() -> (Int, UInt64) {
        done.wait()
        return result.withLock { $0! }
    }
}
