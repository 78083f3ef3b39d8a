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
            g.arcs.withUnsafeBufferPointer { arcs in
                g.slots.withUnsafeBufferPointer { slots in
                    search.run(ArcView(arcs: arcs, slots: slots), from: source, skipping: skip, targets: unique,
                               heaviestFirst: heaviestFirst, wanted: { wanted[$0] }, base: base, maxSettled: .max)
                }
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
        // The same arcs seen from their heads, as `Contractor.into` holds them.
        var indegree = [Int32](repeating: 0, count: n)
        for u in 0..<n { for k in g.range(u) { indegree[Int(g.arcs[k].node)] += 1 } }
        var into = ArcLists(degrees: indegree)
        for u in 0..<n { for k in g.range(u) { into.append(HierarchyArc(node: UInt32(u), weight: g.arcs[k].weight, edge: 0), to: Int(g.arcs[k].node)) } }
        var rng = SeededRandom(seed: 8)
        var search = WitnessSearch(nodeCount: n)
        var accepted = 0, onlyByTheLastArc = 0
        for _ in 0..<300 {
            guard let (source, skip, unique) = Self.randomSearch(n, targets: 6...6, using: &rng) else { continue }
            let heaviestFirst = unique.indices.sorted { unique[$0].weight > unique[$1].weight }
            let base = UInt32(Int.random(in: 0..<40, using: &rng))
            let settled = 1 + Int.random(in: 0..<6, using: &rng)
            let verdicts: [Bool] = g.arcs.withUnsafeBufferPointer { arcs in
                g.slots.withUnsafeBufferPointer { slots in
                    search.run(ArcView(arcs: arcs, slots: slots), from: source, skipping: skip, targets: unique,
                               heaviestFirst: heaviestFirst, wanted: { _ in true }, base: base, maxSettled: settled)
                    return into.arcs.withUnsafeBufferPointer { inArcs in
                        into.slots.withUnsafeBufferPointer { inSlots in
                            unique.map { search.witnesses(Int($0.node), within: base + $0.weight,
                                                          into: ArcView(arcs: inArcs, slots: inSlots), skipping: skip) }
                        }
                    }
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
}
