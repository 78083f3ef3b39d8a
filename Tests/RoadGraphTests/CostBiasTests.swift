import Testing
import Workloads
import Geodesy
import TestSupport
@testable import RoadGraph

/// Costs without bias: routes on a seeded grid against a Dijkstra in `Double`
/// (`exactDijkstra`) over the generator's own edge list (the lengths and times a CSV file would carry), written apart
/// from the network's integer arrays. Rounding every edge up, as an earlier version did,
/// made distances 1.1e-3 long in the median; rounding to nearest leaves only noise.
@Suite struct CostBiasTests {
    /// Shortest costs from `source` over the grid's edges, in the file's units.
    static func exactDijkstra(_ grid: SyntheticGrid, from source: Int, cost: (SyntheticGrid.Edge) -> Double) -> [Double] {
        var adjacency = [[(to: Int, cost: Double)]](repeating: [], count: grid.coordinates.count)
        for e in grid.edges { adjacency[e.from].append((e.to, cost(e))) }
        return RoadGraphTests.exactDijkstra(adjacency: adjacency, from: source).cost
    }

    @Test func gridRoutesCarryNoRoundingBias() throws {
        let grid = SyntheticGrid(nodes: 40_000, seed: 11)
        let (g, _) = grid.network()
        let router = Router(network: g)
        var rng = SeededRandom(seed: 5)
        var relative: [Metric: [Double]] = [.time: [], .distance: []]
        var sources = 0
        while sources < 25 {
            let s = Int.random(in: 0..<grid.coordinates.count, using: &rng)
            let exactTime = Self.exactDijkstra(grid, from: s) { $0.timeSeconds }
            // A node outside the kept strongly connected part reaches few others.
            guard exactTime.filter(\.isFinite).count > grid.coordinates.count / 2 else { continue }
            sources += 1
            let exactLength = Self.exactDijkstra(grid, from: s) { $0.lengthMetres }
            for _ in 0..<8 {
                let t = Int.random(in: 0..<grid.coordinates.count, using: &rng)
                guard t != s, exactTime[t].isFinite, exactTime[t] > 60 else { continue }
                let from = try router.snap(grid.coordinates[s]), to = try router.snap(grid.coordinates[t])
                let fast = try router.route(from: from, to: to, metric: .time)
                let short = try router.route(from: from, to: to, metric: .distance)
                relative[.time]!.append((fast.durationSeconds - exactTime[t]) / exactTime[t])
                relative[.distance]!.append((short.distanceMetres - exactLength[t]) / exactLength[t])
            }
        }
        for (metric, errors) in relative {
            #expect(errors.count >= 150)
            let sorted = errors.sorted(), median = sorted[sorted.count / 2]
            let largest = sorted.map(abs).max() ?? .infinity
            // The bound the issue states, and a tail bound: each route crosses dozens of
            // edges, each off by at most half a unit (5 cm, 0.5 ms).
            #expect(abs(median) <= 1e-5, "\(metric): median relative difference \(median)")
            #expect(largest <= 1e-4, "\(metric): largest relative difference \(largest)")
        }
    }
}

/// Contraction on two threads: the dense nodes' witness searches split between two workers
/// give the very hierarchy one worker gives, arc for arc.
@Suite struct ParallelContractionTests {
    @Test(arguments: [Metric.time, .distance])
    func twoWorkersBuildTheSameHierarchyAsOne(metric: Metric) {
        let (g, _) = SyntheticGrid(nodes: 5_000, seed: 8).network()
        let weight = metric == .time ? g.timeMs : g.lengthDm
        let positions = ContractionHierarchy.lowerBoundPositions(latE7: g.latE7, lonE7: g.lonE7, tail: g.tail, head: g.head, weight: weight)
        let one = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: weight, workers: 1,
                                       limits: .for(metric), positions: positions)
        let two = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: weight, workers: 2,
                                       limits: .for(metric), positions: positions)
        // Alone on the cores: the helper spins between tasks, and lighter nodes split too.
        let alone = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: weight, workers: 2,
                                         limits: .for(metric), positions: positions, sharing: CoreSharing(jobs: 1))
        #expect(one.splitContractions == 0)
        #expect(two.splitContractions > 100, "the grid's dense nodes should have been split: \(two.splitContractions)")
        #expect(alone.splitContractions > two.splitContractions, "alone: \(alone.splitContractions)")
        for other in [two, alone] {
            #expect(one.shortcutFirst == other.shortcutFirst && one.shortcutSecond == other.shortcutSecond)
            #expect(one.upFirst == other.upFirst && one.downFirst == other.downFirst)
            #expect(one.up.map { [$0.node, $0.weight, $0.edge] } == other.up.map { [$0.node, $0.weight, $0.edge] })
            #expect(one.down.map { [$0.node, $0.weight, $0.edge] } == other.down.map { [$0.node, $0.weight, $0.edge] })
        }
    }

    /// The helper runs every task once, and its owner sees what the task wrote, whether the
    /// two spin between tasks or sleep; tasks short and long, so that each side sometimes
    /// finds the other's counter moved while spinning and sometimes sleeps first.
    @Test func theHelperRunsEachTaskOnceSpinningOrAsleep() {
        let helper = HelperThread()
        defer { helper.stop() }
        let runs = 300
        var seen = [Int](repeating: 0, count: runs)
        seen.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let slots = buffer  // each task writes its own slot, read after `wait()`
            for k in 0..<runs {
                helper.spins = k % 3 == 0 ? 0 : 2_000
                helper.run {
                    var x = UInt64(k)
                    for _ in 0..<(k % 7 == 0 ? 20_000 : k % 5) { x = x &* 6364136223846793005 &+ 1 }
                    slots[k] += x == 1 ? 100 : 1  // reads x, so the loop stays
                }
                helper.wait()
                #expect(slots[k] == 1)
            }
        }
        #expect(seen.allSatisfy { $0 == 1 })
        let sharing = CoreSharing(jobs: 3)
        #expect(!sharing.alone)
        sharing.finish(); #expect(!sharing.alone)
        sharing.finish(); #expect(sharing.alone)
    }
}

/// Renumbering the remaining nodes as they dwindle changes where they sit, not what is
/// built: the hierarchy is the same, arc for arc, with and without it (and with the
/// straight-line bound, whose positions must follow the nodes: one left behind would rule
/// out other nodes than it should).
@Suite struct CompactionTests {
    @Test(arguments: [Metric.time, .distance])
    func renumberingBuildsTheSameHierarchy(metric: Metric) {
        let (g, _) = SyntheticGrid(nodes: 5_000, seed: 8).network()
        let weight = metric == .time ? g.timeMs : g.lengthDm
        // With the straight-line bound, whose positions are renumbered too.
        let positions = ContractionHierarchy.lowerBoundPositions(latE7: g.latE7, lonE7: g.lonE7, tail: g.tail, head: g.head, weight: weight)
        let plain = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: weight,
                                         workers: 2, compactionFloor: .max, positions: positions)
        let renumbered = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: weight,
                                              workers: 2, compactionFloor: 16, positions: positions)
        #expect(plain.compactions == 0)
        // 5,000 ids, then about 1,250, 312, 78 and 19.
        #expect(renumbered.compactions >= 4, "renumbered \(renumbered.compactions) times")
        #expect(plain.rank == renumbered.rank)
        #expect(plain.shortcutFirst == renumbered.shortcutFirst && plain.shortcutSecond == renumbered.shortcutSecond)
        #expect(plain.upFirst == renumbered.upFirst && plain.downFirst == renumbered.downFirst)
        #expect(plain.up.map { [$0.node, $0.weight, $0.edge] } == renumbered.up.map { [$0.node, $0.weight, $0.edge] })
        #expect(plain.down.map { [$0.node, $0.weight, $0.edge] } == renumbered.down.map { [$0.node, $0.weight, $0.edge] })
    }
}

/// A contraction tells its progress at each whole percent of the nodes, as soon as it is
/// reached: a step of `n / 100` nodes fell just short of each percent, and the bar read one
/// percent behind.
@Suite struct ContractionProgressTests {
    @Test func eachWholePercentIsToldOnceAsItIsReached() {
        let (g, _) = SyntheticGrid(nodes: 4_990, seed: 3).network()
        let n = Double(g.nodeCount)
        var told: [Double] = []
        _ = ContractionHierarchy(nodeCount: g.nodeCount, tail: g.tail, head: g.head, weight: g.lengthDm, workers: 1,
                                 progress: { told.append($0) })
        // What the bar shows for each (`ProgressBar.update`'s rounding).
        #expect(told.map { Int($0 * 100 + 1e-9) } == Array(1...100))
        for (k, share) in zip(1..., told) {
            // No later than one node past the percent.
            #expect(share >= Double(k) / 100 - 1e-12 && share < Double(k) / 100 + 1 / n, "\(k) % told at \(share)")
        }
    }
}
