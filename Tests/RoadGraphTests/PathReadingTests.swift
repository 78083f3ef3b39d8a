import Testing
import Workloads
import Geodesy
@testable import RoadGraph

/// Reading a path ahead (`PathReading.swift`) changes when memory is read, never what is
/// read: each hierarchy arc unpacks, with or without it, to a path of original edges that
/// joins the arc's ends at the arc's weight, and a route is the same either way.
@Suite struct PathReadingTests {
    /// A grid large enough that a router reads ahead (74,000 edges, past the 65,536 where
    /// it starts).
    static let grid = SyntheticGrid(nodes: 20_000, seed: 11).network().0

    @Test(arguments: [Metric.time, .distance])
    func everyArcUnpacksToAPathJoiningItsEnds(metric: Metric) {
        let g = Self.grid, ch = g.hierarchies[metric == .time ? 0 : 1]
        #expect(g.readsAhead)
        let m = ch.originalEdgeCount
        var node = [Int](repeating: 0, count: g.nodeCount)  // rank → network node
        for (v, r) in ch.rank.enumerated() { node[Int(r)] = v }
        // Unpacked here by recursion, apart from the code under test.
        func unpacked(_ e: UInt32) -> [UInt32] {
            Int(e) < m ? [e] : unpacked(ch.shortcutFirst[Int(e) - m]) + unpacked(ch.shortcutSecond[Int(e) - m])
        }
        var scratch: [UInt32] = [], stack: [UInt32] = []
        var checked = 0, shortcuts = 0
        // Each up arc runs from rank r to a.node; each down arc from a.node to rank r.
        for (arcs, first, upward) in [(ch.up, ch.upFirst, true), (ch.down, ch.downFirst, false)] {
            for r in 0..<(first.count - 1) {
                for a in arcs[Int(first[r])..<Int(first[r + 1])] where r % 23 == 0 {
                    let (from, to) = upward ? (node[r], node[Int(a.node)]) : (node[Int(a.node)], node[r])
                    for ahead in [true, false] {
                        var path = [a.edge]
                        ch.expandShortcuts(in: &path, ahead: ahead, scratch: &scratch, stack: &stack)
                        #expect(path == unpacked(a.edge))
                        #expect(path.allSatisfy { Int($0) < m })
                        #expect(Int(g.tail[Int(path[0])]) == from && Int(g.head[Int(path[path.count - 1])]) == to)
                        #expect(zip(path, path.dropFirst()).allSatisfy { g.head[Int($0)] == g.tail[Int($1)] })
                        #expect(path.reduce(UInt32(0)) { plus($0, g.weight(Int($1), metric)) } == a.weight)
                    }
                    checked += 1
                    if Int(a.edge) >= m { shortcuts += 1 }
                }
            }
        }
        #expect(shortcuts > 1_000, "\(shortcuts) shortcut arcs checked")
        #expect(checked > shortcuts)
    }

    /// A path of several arcs and the seeds' missing edges (`RoadNetwork.none`) unpacks
    /// in order, each arc where it stood.
    @Test func aPathUnpacksArcByArcInOrder() {
        let ch = Self.grid.hierarchies[0], m = ch.originalEdgeCount
        let arcs = [RoadNetwork.none] + (0..<40).map { UInt32(m + $0 * 97 % ch.shortcutCount) } + [3, RoadNetwork.none]
        var expected: [UInt32] = []
        for e in arcs {
            var one = [e], scratch: [UInt32] = [], stack: [UInt32] = []
            ch.expandShortcuts(in: &one, ahead: false, scratch: &scratch, stack: &stack)
            expected += one
        }
        for ahead in [true, false] {
            var path = arcs, scratch: [UInt32] = [], stack: [UInt32] = []
            ch.expandShortcuts(in: &path, ahead: ahead, scratch: &scratch, stack: &stack)
            #expect(path == expected)
            #expect(path.first == RoadNetwork.none && path.last == RoadNetwork.none)
        }
    }

    /// Routes, alternatives included, are the same with and without reading ahead: cost,
    /// geometry, streets, edges.
    @Test func routesAreTheSameWithoutReadingAhead() throws {
        let g = Self.grid
        let ahead = Router(network: g), plain = Router(network: g)
        plain.readsAhead = false
        #expect(ahead.readsAhead)
        var routed = 0
        for (a, b) in g.randomPairs(200, seed: 3) {
            for metric in Metric.allCases {
                let x = try? ahead.route(from: a, to: b, metric: metric), y = try? plain.route(from: a, to: b, metric: metric)
                #expect(x?.cost == y?.cost && x?.geometry == y?.geometry && x?.streets == y?.streets)
                if x != nil { routed += 1 }
            }
        }
        // Alternatives unpack every candidate's path; fewer pairs, as each tries up to 24.
        for (a, b) in g.randomPairs(20, seed: 4) {
            let p = try? ahead.routes(from: a, to: b, count: 3), q = try? plain.routes(from: a, to: b, count: 3)
            #expect(p?.map(\.geometry) == q?.map(\.geometry) && p?.map(\.cost) == q?.map(\.cost))
        }
        #expect(routed > 350)
    }
}
