import Testing
import Workloads
import TestSupport
@testable import RoadGraph

/// A hierarchy's arrays are numbered by rank (a node's place in the contraction order): each
/// network node has one rank, and every kept arc climbs. Routes on the ranked arrays are
/// checked against Dijkstra by the routing tests; these check the numbering itself, and that
/// a file whose ranks are not a numbering is refused.
@Suite struct RankOrderTests {
    @Test(arguments: [Metric.time, .distance])
    func everyNodeHasOneRankAndEveryArcClimbs(metric: Metric) {
        let (g, _) = SyntheticGrid(nodes: 5_000, seed: 8).network()
        let ch = g.hierarchies[metric == .time ? 0 : 1]
        #expect(ch.rank.count == g.nodeCount)
        #expect(Set(ch.rank).count == g.nodeCount && ch.rank.allSatisfy { Int($0) < g.nodeCount })
        // `up` at rank r: arcs r → x, `down` at rank r: arcs x → r, both with x above r.
        var climbing = 0
        for r in 0..<g.nodeCount {
            for k in Int(ch.upFirst[r])..<Int(ch.upFirst[r + 1]) where ch.up[k].node > UInt32(r) { climbing += 1 }
            for k in Int(ch.downFirst[r])..<Int(ch.downFirst[r + 1]) where ch.down[k].node > UInt32(r) { climbing += 1 }
        }
        #expect(climbing == ch.up.count + ch.down.count)
        // An original edge kept as an arc joins the ranks of its own ends.
        for r in 0..<g.nodeCount {
            for k in Int(ch.upFirst[r])..<Int(ch.upFirst[r + 1]) where Int(ch.up[k].edge) < g.edgeCount {
                let e = Int(ch.up[k].edge)
                #expect(ch.rank[Int(g.tail[e])] == UInt32(r) && ch.rank[Int(g.head[e])] == ch.up[k].node)
            }
        }
    }

    @Test func aFileWhoseRanksAreNoNumberingIsRefused() throws {
        var (g, _) = SyntheticGrid(nodes: 2_000, seed: 3).network()
        #expect(throws: Never.self) { try GraphFile.decode(GraphFile.encode(g), path: "grid.wfg") }
        g.hierarchies[1].rank[1] = g.hierarchies[1].rank[0]   // two nodes at one rank, one rank unused
        #expect(throws: GraphError.self) { try GraphFile.decode(GraphFile.encode(g), path: "grid.wfg") }
        g.hierarchies[1].rank[1] = UInt32(g.nodeCount)        // past the end
        #expect(throws: GraphError.self) { try GraphFile.decode(GraphFile.encode(g), path: "grid.wfg") }
    }
}
