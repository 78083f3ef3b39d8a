import Testing
import Workloads
import Geodesy
import TestSupport
@testable import RoadGraph

/// The distance metric's goal-directed hierarchy search: its straight-line bound never
/// exceeds a node's true cost to the goal (checked against a Dijkstra over every node), and
/// the search it orders finds the oracle's cost while settling fewer nodes than the plain
/// search on the same hierarchy.
@Suite struct GoalDirectedTests {
    /// Each node's cost to `target` over the distance metric's integer weights, by a
    /// Dijkstra on the reversed edges written apart from the router.
    static func costs(to target: Int, in g: RoadNetwork) -> [Double] {
        var reversed = [[(to: Int, cost: Double)]](repeating: [], count: g.nodeCount)
        for e in 0..<g.edgeCount { reversed[Int(g.head[e])].append((Int(g.tail[e]), Double(g.lengthDm[e]))) }
        return exactDijkstra(adjacency: reversed, from: target).cost
    }

    static func expectBoundHolds(in g: RoadNetwork, targets: Int, seed: UInt64) {
        let ch = g.hierarchies[1]
        #expect(ch.unitByRank.count == g.nodeCount)
        var rng = SeededRandom(seed: seed)
        var tight = 0.0, compared = 0
        for _ in 0..<targets {
            let t = Int.random(in: 0..<g.nodeCount, using: &rng)
            let bound = StraightLineBound(towards: g.coordinate(ofNode: t), scale: g.heuristicScale[1], units: ch.unitByRank)
            let truth = costs(to: t, in: g)
            for v in 0..<g.nodeCount where truth[v].isFinite {
                let b = Double(bound(Int(ch.rank[v])))
                #expect(b <= truth[v], "node \(v) to \(t): bound \(b) dm, cost \(truth[v]) dm")
                if truth[v] > 10_000 { tight += b / truth[v]; compared += 1 }
            }
        }
        // A bound of zero would pass the check above: it must also be worth having.
        #expect(compared > 0 && tight / Double(compared) > 0.5, "mean bound / cost \(tight / Double(max(1, compared)))")
    }

    @Test func theBoundNeverExceedsTheCostOnAGrid() {
        Self.expectBoundHolds(in: SyntheticGrid(nodes: 10_000, seed: 3).network().0, targets: 4, seed: 8)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func theBoundNeverExceedsTheCostInMonaco() throws {
        Self.expectBoundHolds(in: try importReal("monaco/monaco.osm.pbf"), targets: 4, seed: 9)
    }

    @Test func shortestRoutesAreTheOraclesAndSettleFewerNodes() throws {
        let g = SyntheticGrid(nodes: 10_000, seed: 4).network().0
        var plainNetwork = g
        plainNetwork.hierarchies[1].unitByRank = []  // the same hierarchy, searched without the bound
        let oracle = OracleDijkstra(g)
        let aimed = Router(network: g), plain = Router(network: plainNetwork)
        var settledAimed = 0, settledPlain = 0
        for (a, b) in g.randomPairs(100, seed: 6) {
            let s = try aimed.snap(a), t = try aimed.snap(b)
            let expected = oracle.cost(s, t, .distance)
            let route = try? aimed.route(from: s, to: t, metric: .distance)
            settledAimed += aimed.settled
            let plainRoute = try? plain.route(from: s, to: t, metric: .distance)
            settledPlain += plain.settled
            #expect(route?.cost == expected && plainRoute?.cost == expected, "\(a) → \(b)")
        }
        #expect(Double(settledAimed) < 0.8 * Double(settledPlain), "settled \(settledAimed) aimed, \(settledPlain) plain")
    }
}
