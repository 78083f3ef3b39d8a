import Testing
import Workloads
import Geodesy
import TestSupport
@testable import RoadGraph

/// The landmarks' bound (ALT) on a hierarchy: it never exceeds a true cost (checked
/// against a Dijkstra over every node, written apart), it is feasible on every arc a search
/// follows, and the searches it orders find the oracle's cost while settling fewer nodes.
@Suite struct LandmarkTests {
    /// Each node's cost to (`reversed`) or from `node` over a metric's integer weights.
    static func costs(_ node: Int, reversed: Bool, in g: RoadNetwork, _ metric: Metric) -> [Double] {
        var adjacency = [[(to: Int, cost: Double)]](repeating: [], count: g.nodeCount)
        for e in 0..<g.edgeCount {
            let w = Double(metric == .time ? g.timeMs[e] : g.lengthDm[e])
            if reversed { adjacency[Int(g.head[e])].append((Int(g.tail[e]), w)) } else { adjacency[Int(g.tail[e])].append((Int(g.head[e]), w)) }
        }
        return exactDijkstra(adjacency: adjacency, from: node).cost
    }

    /// A seed for `node` at a cost, as the router plants them (by rank).
    static func seedAt(_ node: Int, cost: UInt32 = 0, in ch: ContractionHierarchy) -> Router.Seed {
        Router.Seed(node: ch.rank[node], cost: cost, edge: RoadNetwork.none)
    }

    /// Checks both sides' bounds for a few random ends, each given by two or three seeds at
    /// random costs as the router plants them (a point along an edge, or a junction): each
    /// bound at most the true cost from the source or to the target, tight on average, and
    /// feasible on every arc; and at an end with one seed, the bound at that seed is its cost.
    static func expectBoundHolds(in g: RoadNetwork, ends: Int, seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        for metric in Metric.allCases {
            let ch = g.hierarchies[metric.index]
            #expect(ch.landmarks.count == 16 && ch.landmarks.isConsistent(nodeCount: g.nodeCount))
            var tight = [0.0, 0.0], compared = [0, 0]
            for _ in 0..<ends {
                func end() -> [(node: Int, cost: UInt32)] {
                    (0..<Int.random(in: 2...3, using: &rng)).map { _ in
                        (Int.random(in: 0..<g.nodeCount, using: &rng), UInt32.random(in: 0..<2_000, using: &rng))
                    }
                }
                let s = end(), t = end()
                let source = s.map { seedAt($0.node, cost: $0.cost, in: ch) }, target = t.map { seedAt($0.node, cost: $0.cost, in: ch) }
                // As the router makes them: the source side with the target side's landmarks.
                guard let toT = LandmarkBound(ch.landmarks, targets: target, sources: source),
                      let fromS = LandmarkBound(sources: source, sameLandmarksAs: toT)
                else { Issue.record("no bound"); return }
                // The true costs: the least over the end's seeds.
                var costToT = [Double](repeating: .infinity, count: g.nodeCount), costFromS = costToT
                for z in t { for (v, c) in costs(z.node, reversed: true, in: g, metric).enumerated() { costToT[v] = min(costToT[v], c + Double(z.cost)) } }
                for y in s { for (v, c) in costs(y.node, reversed: false, in: g, metric).enumerated() { costFromS[v] = min(costFromS[v], c + Double(y.cost)) } }
                for v in 0..<g.nodeCount {
                    let r = Int(ch.rank[v])
                    let bt = Double(toT(r)), bs = Double(fromS(r))
                    #expect(bt <= costToT[v], "\(metric) node \(v) to \(t): bound \(bt), cost \(costToT[v])")
                    #expect(bs <= costFromS[v], "\(metric) node \(v) from \(s): bound \(bs), cost \(costFromS[v])")
                    if costToT[v] > 5_000 { tight[0] += bt / costToT[v]; compared[0] += 1 }
                    if costFromS[v] > 5_000 { tight[1] += bs / costFromS[v]; compared[1] += 1 }
                }
                // One seed: at the seed, both terms of every landmark come to its cost.
                let one = [target[0]], other = [source[0]]
                if let b = LandmarkBound(ch.landmarks, targets: one, sources: other),
                   let c = LandmarkBound(sources: other, sameLandmarksAs: b) {
                    #expect(b(Int(one[0].node)) == one[0].cost && c(Int(other[0].node)) == other[0].cost, "\(metric): a seed's own bound")
                } else { Issue.record("no bound") }
                // Feasible: along every arc a side follows, the bound falls by at most the
                // arc's weight, so a search ordered by it settles each node at its cost.
                for u in 0..<g.nodeCount {
                    for k in Int(ch.upFirst[u])..<Int(ch.upFirst[u + 1]) {
                        let a = ch.up[k]
                        #expect(Int64(toT(u)) <= Int64(a.weight) + Int64(toT(Int(a.node))), "\(metric) up arc \(u) → \(a.node)")
                    }
                    for k in Int(ch.downFirst[u])..<Int(ch.downFirst[u + 1]) {
                        let a = ch.down[k]
                        #expect(Int64(fromS(u)) <= Int64(a.weight) + Int64(fromS(Int(a.node))), "\(metric) down arc \(a.node) → \(u)")
                    }
                }
            }
            // A bound of zero would pass the checks above: it must also be worth having. (It is
            // looser here than in a route: the four landmarks are chosen for the pair, and an
            // end's seeds lie far apart: measured 0.59–0.77.)
            for side in 0..<2 {
                let mean = tight[side] / Double(max(1, compared[side]))
                #expect(compared[side] > 0 && mean > 0.5, "\(metric), \(side == 0 ? "to the target" : "from the source"): mean bound / cost \(mean)")
            }
        }
    }

    static func gridWithLandmarks(nodes: Int, seed: UInt64) -> RoadNetwork {
        var g = SyntheticGrid(nodes: nodes, seed: seed).network().0
        g.chooseLandmarks(count: 16)
        return g
    }

    @Test func theBoundHoldsOnAGrid() {
        Self.expectBoundHolds(in: Self.gridWithLandmarks(nodes: 4_000, seed: 3), ends: 3, seed: 8)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func theBoundHoldsInMonaco() throws {
        var g = try importReal("monaco/monaco.osm.pbf")
        g.chooseLandmarks(count: 16)
        Self.expectBoundHolds(in: g, ends: 3, seed: 9)
    }

    @Test func routesAreTheOraclesAndSettleFewerNodes() throws {
        let g = Self.gridWithLandmarks(nodes: 10_000, seed: 4)
        var without = g
        for i in without.hierarchies.indices { without.hierarchies[i].landmarks = LandmarkTable() }
        let oracle = OracleDijkstra(g)
        let aimed = Router(network: g), plain = Router(network: without)
        for metric in Metric.allCases {
            var settledAimed = 0, settledPlain = 0
            for (a, b) in g.randomPairs(100, seed: 6) {
                let s = try aimed.snap(a), t = try aimed.snap(b)
                let expected = oracle.cost(s, t, metric)
                let route = try? aimed.route(from: s, to: t, metric: metric)
                settledAimed += aimed.settled
                let plainRoute = try? plain.route(from: s, to: t, metric: metric)
                settledPlain += plain.settled
                #expect(route?.cost == expected && plainRoute?.cost == expected, "\(metric) \(a) → \(b)")
            }
            // Without landmarks the distance metric is aimed by the straight line, the time
            // metric not at all. Measured: 0.08× and 0.23× the nodes.
            #expect(Double(settledAimed) < (metric == .distance ? 0.2 : 0.4) * Double(settledPlain), "\(metric): settled \(settledAimed) with landmarks, \(settledPlain) without")
        }
    }

    @Test func theImportGivesTheDistanceMetricLandmarksAndTheFileKeepsThem() throws {
        let imported = SyntheticGrid(nodes: 2_500, seed: 5).network().0
        #expect(imported.hierarchies[Metric.time.index].landmarks == LandmarkTable())
        #expect(imported.hierarchies[Metric.distance.index].landmarks.count == 16)
        // The same choice every time.
        var chosen = imported
        chosen.chooseLandmarks(count: 16)
        #expect(chosen.hierarchies[Metric.distance.index].landmarks == imported.hierarchies[Metric.distance.index].landmarks)
        let back = try GraphFile.decode(GraphFile.encode(chosen), path: "grid.wfg")
        #expect(back.hierarchies.map(\.landmarks) == chosen.hierarchies.map(\.landmarks))
    }

    /// A table computed by node id, as the import computes it beside the contraction, then
    /// moved to rank order in place: each node's numbers land at its rank, over a random
    /// permutation's many cycles and fixed points.
    @Test func reorderingMovesEachNodesNumbersToItsRank() {
        let n = 1_000, count = 3, stride = 2 * count
        var rng = SeededRandom(seed: 17)
        let byNode = (0..<n * stride).map { _ in UInt32.random(in: 0..<1_000_000, using: &rng) }
        var rank = (0..<n).map { UInt32($0) }
        rank.shuffle(using: &rng)
        for v in 0..<10 { rank.swapAt(v, Int(rank.firstIndex(of: UInt32(v))!)) }  // a few fixed points
        var table = LandmarkTable(count: count, distances: byNode)
        table.reorder(byRank: rank)
        for v in 0..<n {
            let r = Int(rank[v])
            #expect(Array(table.distances[r * stride..<(r + 1) * stride]) == Array(byNode[v * stride..<(v + 1) * stride]), "node \(v)")
        }
    }

    @Test func aTableOfTheWrongSizeIsRefused() {
        var g = Self.gridWithLandmarks(nodes: 900, seed: 7)
        g.hierarchies[1].landmarks.distances.removeLast()
        #expect(throws: GraphError.self) { try GraphFile.decode(GraphFile.encode(g), path: "bad.wfg") }
        g.hierarchies[1].landmarks = LandmarkTable(count: 100, distances: [])
        #expect(throws: GraphError.self) { try GraphFile.decode(GraphFile.encode(g), path: "bad.wfg") }
    }

    /// Each term of the bound on its own, with one landmark and numbers worked by hand:
    /// towards a target seeded at rank 2 (cost 5), d(v, t) ≥ d(L, t) − d(L, v) and
    /// d(v, t) ≥ d(v, L) − d(t, L); from a source seeded at rank 0 (cost 7), the mirror.
    @Test func eachTermIsItsTriangleInequality() throws {
        func bound(from: [UInt32], to: [UInt32], towardsTarget: Bool, at v: Int) throws -> UInt32 {
            let table = LandmarkTable(count: 1, distances: zip(from, to).flatMap { [$0, $1] })
            let target = Router.Seed(node: 2, cost: 5, edge: 0), source = Router.Seed(node: 0, cost: 7, edge: 0)
            let b = try #require(LandmarkBound(table, targets: [target], sources: [source]))
            if towardsTarget { return b(v) }
            let fromSource = try #require(LandmarkBound(sources: [source], sameLandmarksAs: b))
            return fromSource(v)
        }
        // The costs from the landmark decide: (60 + 5) − 0, (60 + 5) − 10; 60 − (0 − 7).
        let fromWins = (from: [UInt32]([0, 10, 60]), to: [UInt32]([40, 30, 0]))
        #expect(try bound(from: fromWins.from, to: fromWins.to, towardsTarget: true, at: 0) == 65)
        #expect(try bound(from: fromWins.from, to: fromWins.to, towardsTarget: true, at: 1) == 55)
        #expect(try bound(from: fromWins.from, to: fromWins.to, towardsTarget: false, at: 2) == 67)
        // The costs to the landmark decide: 80 − (0 − 5); (80 + 7) − 0.
        let toWins = (from: [UInt32]([0, 10, 30]), to: [UInt32]([80, 30, 0]))
        #expect(try bound(from: toWins.from, to: toWins.to, towardsTarget: true, at: 0) == 85)
        #expect(try bound(from: toWins.from, to: toWins.to, towardsTarget: false, at: 2) == 87)
        // Never below zero.
        #expect(try bound(from: toWins.from, to: toWins.to, towardsTarget: false, at: 0) == 7)
    }

    @Test func aCraftedTableCannotMakeABoundTrap() {
        let g = Self.gridWithLandmarks(nodes: 900, seed: 7)
        var ch = g.hierarchies[0]
        for i in ch.landmarks.distances.indices { ch.landmarks.distances[i] = i % 3 == 0 ? .max : UInt32(i % 7) }
        let s = Self.seedAt(1, cost: .max, in: ch), t = Self.seedAt(2, cost: .max, in: ch)
        guard let b = LandmarkBound(ch.landmarks, targets: [t], sources: [s]),
              let c = LandmarkBound(sources: [s], sameLandmarksAs: b) else { Issue.record("no bound"); return }
        for v in 0..<g.nodeCount { _ = b(v); _ = c(v) }
        // Seeds past the table give no bound rather than reading outside it.
        let outside = Router.Seed(node: 1_000_000, cost: 0, edge: 0)
        #expect(LandmarkBound(ch.landmarks, targets: [outside], sources: [s]) == nil)
        #expect(LandmarkBound(sources: [outside], sameLandmarksAs: b) == nil)
    }
}
