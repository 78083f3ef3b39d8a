import Geodesy
import Testing
@testable import RoadGraph

/// The witness search of contraction against a textbook Dijkstra written here: every
/// target it waits for gets the verdict the exact distance gives (a path within `base` plus
/// the target's own arc, or none), and every node nearer than `base` its exact distance
/// (what the dominance rule reads). The search's limit falls as the heaviest targets are
/// settled, so a wrong limit, or a node left unqueued at the limit itself, fails here.
@Suite struct WitnessSearchTests {
    /// A seeded random graph of `n` nodes, each with a few arcs of small integer weights
    /// (so that ties and distances exactly at a limit are common).
    static func graph(_ n: Int, seed: UInt64) -> ArcLists {
        var rng = SeededRandom(seed: seed)
        var lists = ArcLists(degrees: [Int32](repeating: 0, count: n))
        for u in 0..<n {
            for _ in 0..<(2 + Int.random(in: 0..<4, using: &rng)) {
                let x = Int.random(in: 0..<n, using: &rng)
                guard x != u else { continue }
                lists.append(HierarchyArc(node: UInt32(x), weight: UInt32(1 + Int.random(in: 0..<30, using: &rng)), edge: 0), to: u)
            }
        }
        return lists
    }

    /// The same arcs seen from their heads, as `Contractor.into` holds them.
    static func reversed(_ g: ArcLists) -> ArcLists {
        let n = g.slots.count
        var indegree = [Int32](repeating: 0, count: n)
        for u in 0..<n { for k in g.range(u) { indegree[Int(g.arcs[k].node)] += 1 } }
        var into = ArcLists(degrees: indegree)
        for u in 0..<n { for k in g.range(u) { into.append(HierarchyArc(node: UInt32(u), weight: g.arcs[k].weight, edge: 0), to: Int(g.arcs[k].node)) } }
        return into
    }

    /// Distances from `source` without entering `skip`: the textbook O(n²) Dijkstra.
    static func oracle(_ g: ArcLists, from source: Int, skipping skip: Int) -> [UInt32] {
        let n = g.slots.count
        var dist = [UInt32](repeating: .max, count: n), done = [Bool](repeating: false, count: n)
        dist[source] = 0
        while true {
            var u = -1
            for x in 0..<n where !done[x] && dist[x] != .max && (u < 0 || dist[x] < dist[u]) { u = x }
            guard u >= 0 else { return dist }
            done[u] = true
            for k in g.range(u) where Int(g.arcs[k].node) != skip {
                let x = Int(g.arcs[k].node)
                dist[x] = min(dist[x], dist[u] + g.arcs[k].weight)
            }
        }
    }

    /// A random search on `n` nodes: its source, the node it skips, and `count` targets at
    /// random weights, one per node and none the skipped one, as a node's out-arcs are (nil
    /// when the source would be skipped).
    static func randomSearch(_ n: Int, targets count: ClosedRange<Int>, using rng: inout SeededRandom)
        -> (source: Int, skip: Int, targets: [HierarchyArc])? {
        let source = Int.random(in: 0..<n, using: &rng), skip = Int.random(in: 0..<n, using: &rng)
        guard skip != source else { return nil }
        let targets = (0..<Int.random(in: count, using: &rng)).map { _ in
            HierarchyArc(node: UInt32(Int.random(in: 0..<n, using: &rng)), weight: UInt32(Int.random(in: 0..<60, using: &rng)), edge: 0)
        }
        var seen = Set<UInt32>()
        return (source, skip, targets.filter { seen.insert($0.node).inserted && Int($0.node) != skip })
    }

    @Test func verdictsMatchTheExactDistances() {
        let n = 400
        let g = Self.graph(n, seed: 21)
        var rng = SeededRandom(seed: 5)
        var search = WitnessSearch(nodeCount: n)
        var checkedTargets = 0, atTheirBound = 0
        for _ in 0..<150 {
            guard let (source, skip, unique) = Self.randomSearch(n, targets: 1...12, using: &rng) else { continue }
            // Some targets not waited for.
            let wanted = unique.map { _ in Int.random(in: 0..<4, using: &rng) != 0 }
            let heaviestFirst = unique.indices.sorted { unique[$0].weight > unique[$1].weight }
            let base = UInt32(Int.random(in: 0..<40, using: &rng))
            g.withView { graph in
                search.run(graph, from: source, skipping: skip, targets: unique,
                           heaviestFirst: heaviestFirst, wanted: { wanted[$0] }, base: base, maxSettled: .max)
            }
            let exact = Self.oracle(g, from: source, skipping: skip)
            for (j, t) in unique.enumerated() where wanted[j] {
                let bound = base + t.weight, x = Int(t.node)
                #expect((search.distance(x) <= bound) == (exact[x] <= bound), "target \(x): bound \(bound), exact \(exact[x])")
                checkedTargets += 1
                if exact[x] == bound { atTheirBound += 1 }
            }
            for x in 0..<n where x != skip && exact[x] < base {
                #expect(search.distance(x) == exact[x], "node \(x) below the base")
            }
        }
        // The cases that matter were met: enough targets, some exactly at their bound.
        #expect(checkedTargets > 300 && atTheirBound > 3)
    }

    /// The extra arc into the target (`witnesses(_:within:into:skipping:)`) after a search
    /// stopped early: every witness it accepts is a real path within the bound that avoids
    /// the skipped node (the exact distance proves it), and it accepts exactly the targets
    /// that the search's labels and one in-arc reach, counted here from the forward lists.
    /// It must find some the labels alone miss, or the rule does nothing.
    @Test func aWitnessMayEndWithOneArcIntoTheTarget() {
        let n = 400
        let g = Self.graph(n, seed: 33)
        let into = Self.reversed(g)
        var rng = SeededRandom(seed: 8)
        var search = WitnessSearch(nodeCount: n)
        var accepted = 0, onlyByTheLastArc = 0
        for _ in 0..<300 {
            guard let (source, skip, unique) = Self.randomSearch(n, targets: 6...6, using: &rng) else { continue }
            let heaviestFirst = unique.indices.sorted { unique[$0].weight > unique[$1].weight }
            let base = UInt32(Int.random(in: 0..<40, using: &rng))
            let settled = 1 + Int.random(in: 0..<6, using: &rng)
            let verdicts: [Bool] = g.withView { graph in
                search.run(graph, from: source, skipping: skip, targets: unique,
                           heaviestFirst: heaviestFirst, wanted: { _ in true }, base: base, maxSettled: settled)
                return into.withView { incoming in
                    unique.map { search.witnesses(Int($0.node), within: base + $0.weight, into: incoming, skipping: skip) }
                }
            }
            let exact = Self.oracle(g, from: source, skipping: skip)
            for (j, t) in unique.enumerated() {
                let w = Int(t.node), bound = base + t.weight
                // What the labels and one arc into w reach, from the forward lists.
                var reached = search.distance(w) <= bound
                for y in 0..<n where y != skip && search.distance(y) != .max {
                    for k in g.range(y) where Int(g.arcs[k].node) == w && search.distance(y) + g.arcs[k].weight <= bound { reached = true }
                }
                #expect(verdicts[j] == reached, "target \(w): bound \(bound)")
                if verdicts[j] {
                    #expect(exact[w] <= bound, "target \(w): no path within \(bound), exact \(exact[w])")
                    accepted += 1
                    if search.distance(w) > bound { onlyByTheLastArc += 1 }
                }
            }
        }
        #expect(accepted > 100 && onlyByTheLastArc > 20, "accepted \(accepted), by the last arc \(onlyByTheLastArc)")
    }

    /// A bound summed past 32 bits saturates at `UInt32.max`: an unreached target, or one
    /// whose in-neighbours were never reached, is still no witness (the unreached distance
    /// is `UInt32.max` too, and used to pass as within it).
    @Test func aSaturatedBoundAcceptsNoUnreachedNode() {
        var lists = ArcLists(degrees: [1, 1, 1, 0])
        lists.append(HierarchyArc(node: 1, weight: 5, edge: 0), to: 0)
        lists.append(HierarchyArc(node: 3, weight: 5, edge: 1), to: 1)
        lists.append(HierarchyArc(node: 3, weight: 5, edge: 2), to: 2)
        let into = Self.reversed(lists)
        var search = WitnessSearch(nodeCount: 4)
        let targets = [HierarchyArc(node: 3, weight: .max, edge: 0)]
        lists.withView { graph in into.withView { incoming in
            // From 0 skipping 1: node 3 is out of reach (2 is, but nothing leads to it).
            search.run(graph, from: 0, skipping: 1, targets: targets, heaviestFirst: [0], wanted: { _ in true },
                       base: .max, maxSettled: .max, incoming: incoming)
            #expect(!search.witnesses(3, within: .max, into: incoming, skipping: 1))
            // Skipping 2 instead, 3 is reached through 1: a witness at any bound.
            search.run(graph, from: 0, skipping: 2, targets: targets, heaviestFirst: [0], wanted: { _ in true },
                       base: .max, maxSettled: .max, incoming: incoming)
            #expect(search.witnesses(3, within: .max, into: incoming, skipping: 2))
        } }
    }

    /// A seeded random city of `n` nodes in a few kilometres: each node's arcs go to nodes
    /// near it, at their straight line (haversine, in dm), half of them times 1 to 1.6, as
    /// streets wind.
    static func city(_ n: Int, seed: UInt64) -> (lists: ArcLists, latE7: [Int32], lonE7: [Int32], tail: [UInt32], head: [UInt32], weight: [UInt32]) {
        var rng = SeededRandom(seed: seed)
        let latE7 = (0..<n).map { _ in Int32(520_000_000 + Int.random(in: 0..<300_000, using: &rng)) }
        let lonE7 = (0..<n).map { _ in Int32(44_000_000 + Int.random(in: 0..<500_000, using: &rng)) }
        func metres(_ a: Int, _ b: Int) -> Double {
            Coordinate(unchecked: Double(latE7[a]) * 1e-7, Double(lonE7[a]) * 1e-7)
                .distance(to: Coordinate(unchecked: Double(latE7[b]) * 1e-7, Double(lonE7[b]) * 1e-7))
        }
        var tail: [UInt32] = [], head: [UInt32] = [], weight: [UInt32] = []
        for u in 0..<n {
            let near = (0..<n).filter { $0 != u }.sorted { metres(u, $0) < metres(u, $1) }.prefix(5)
            for x in near where Double.random(in: 0..<1, using: &rng) < 0.8 {
                tail.append(UInt32(u)); head.append(UInt32(x))
                // Some straight, so that some paths are nearly as short as their line.
                let winding = Bool.random(using: &rng) ? 1 : Double.random(in: 1...1.6, using: &rng)
                weight.append(UInt32((metres(u, x) * 10 * winding).rounded(.up)))
            }
        }
        var degree = [Int32](repeating: 0, count: n)
        for t in tail { degree[Int(t)] += 1 }
        var lists = ArcLists(degrees: degree)
        for e in tail.indices { lists.append(HierarchyArc(node: head[e], weight: weight[e], edge: UInt32(e)), to: Int(tail[e])) }
        return (lists, latE7, lonE7, tail, head, weight)
    }

    /// The straight-line bound (`ContractionHierarchy.lowerBoundPositions`) against a
    /// textbook Dijkstra: no path is shorter than the line between its ends. And a search
    /// that skips the nodes it rules out, with no limit on its settled nodes, gives every
    /// target the exact verdict and settles far fewer nodes than the same search without
    /// the bound. Were it to skip a node on a witness, or skip none, this fails: with the
    /// lines taken 5 % too long it fails 4 expectations.
    @Test func theStraightLineRulesOutNodesButNoWitness() {
        let n = 500
        let c = Self.city(n, seed: 12)
        let positions = ContractionHierarchy.lowerBoundPositions(latE7: c.latE7, lonE7: c.lonE7, tail: c.tail, head: c.head, weight: c.weight)
        #expect(positions.count == n)
        let into = Self.reversed(c.lists)
        var rng = SeededRandom(seed: 3)
        var plain = WitnessSearch(nodeCount: n), aimed = WitnessSearch(nodeCount: n)
        var settledPlain = 0, settledAimed = 0, witnessed = 0, refused = 0, tightest = Float.infinity
        for _ in 0..<150 {
            guard let (source, skip, unique) = Self.randomSearch(n, targets: 2...8, using: &rng) else { continue }
            let exact = Self.oracle(c.lists, from: source, skipping: skip)
            for x in 0..<n where exact[x] != .max && exact[x] > 0 {
                let e = positions[x] - positions[source], line = (e * e).sum().squareRoot()
                #expect(line <= Float(exact[x]), "node \(x): line \(line) dm, path \(exact[x]) dm")
                tightest = min(tightest, Float(exact[x]) / line)
            }
            // Bounds within 5 % of the exact distances, where a node ruled out wrongly would
            // change a verdict.
            let base = UInt32(Int.random(in: 0..<2_000, using: &rng))
            let targets = unique.map { t in
                let near = Double(min(exact[Int(t.node)], 100_000)) * Double.random(in: 0.95...1.05, using: &rng)
                return HierarchyArc(node: t.node, weight: UInt32(max(0, near - Double(base))), edge: 0)
            }
            let heaviestFirst = targets.indices.sorted { targets[$0].weight > targets[$1].weight }
            c.lists.withView { graph in into.withView { incoming in positions.withUnsafeBufferPointer { places in
                plain.run(graph, from: source, skipping: skip, targets: targets, heaviestFirst: heaviestFirst,
                          wanted: { _ in true }, base: base, maxSettled: .max)
                aimed.run(graph, from: source, skipping: skip, targets: targets, heaviestFirst: heaviestFirst,
                          wanted: { _ in true }, base: base, maxSettled: .max, incoming: incoming, positions: places)
                for t in targets {
                    let w = Int(t.node), bound = base + t.weight
                    let verdict = aimed.witnesses(w, within: bound, into: incoming, skipping: skip)
                    #expect(verdict == (exact[w] <= bound), "target \(w): bound \(bound), exact \(exact[w])")
                    if verdict { witnessed += 1 } else { refused += 1 }
                }
            } } }
            settledPlain += plain.lastSettled; settledAimed += aimed.lastSettled
        }
        // Both verdicts met, the bound within a few per cent of the closest path, and the
        // search ruled out many nodes. Measured: 0.58x the settled nodes.
        #expect(witnessed > 100 && refused > 100, "witnessed \(witnessed), refused \(refused)")
        #expect(tightest < 1.05, "the straight line is \(tightest)x short of the closest path")
        #expect(Double(settledAimed) < 0.75 * Double(settledPlain), "settled \(settledAimed) with the bound, \(settledPlain) without")
    }
}
