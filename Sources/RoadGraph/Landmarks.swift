import SpatialIndex

/// Each node's cost from and to a few landmarks, for a hierarchy's lower bounds (ALT:
/// A*, landmarks and the triangle inequality, after Goldberg and Harrelson).
///
/// For a landmark L and nodes v, z, the triangle inequality gives
/// d(v, z) ≥ d(L, z) − d(L, v) and d(v, z) ≥ d(v, L) − d(z, L). Those bounds are exact
/// wherever v lies on a shortest path between L and z, or z between v and L; landmarks on
/// the edge of the city make one or the other nearly true for most pairs. On the 1M grid's
/// distance metric, where the straight line is up to a √2 short of a route that must follow
/// the streets, they cut a route's settled nodes from 1,340 to 129 (median of 60 pairs).
///
/// Stored by rank, each rank's 2 × `count` numbers side by side: at
/// `distances[r * 2 * count + 2 * l]` the cost from landmark l to rank r, and one further
/// the cost from r to landmark l (`UInt32.max`: no path), so that a bound reads one or two
/// cache lines a node.
struct LandmarkTable: Sendable, Equatable {
    /// How many landmarks (0: none, and no bound).
    var count = 0
    /// The costs, by rank (see the type's comment).
    var distances: [UInt32] = []

    /// How many landmarks an import gives a metric's hierarchy (fewer when the network has
    /// fewer nodes: see `init(count:graph:weight:rank:)`).
    ///
    /// The distance metric: 16, the most the measurements paid for (on the 1M grid 8
    /// settled 187 nodes a route, 12 157, 16 129). The time metric: none. Its routes settle
    /// fewer nodes with them too (1M grid: 85 against 222), but are no faster (the grid's
    /// avenues already give its hierarchy a shape, and most of a time route is its path),
    /// so they would cost 128 bytes a node for nothing (docs/benchmarks.md, "Landmarks").
    static func count(for metric: Metric) -> Int { metric == .distance ? 16 : 0 }

    var memoryBytes: Int { distances.count * 4 }

    init() {}

    /// A table as a graph file holds it (checked by `isConsistent(nodeCount:)`).
    init(count: Int, distances: [UInt32]) {
        self.count = count
        self.distances = distances
    }

    /// Chooses `count` landmarks of a strongly connected graph (the import keeps only its
    /// largest strongly connected part) and records every node's cost from and to each,
    /// stored by rank.
    init(count: Int, graph: LandmarkGraph, weight: [UInt32], rank: [UInt32]) {
        self.init(count: count, graph: graph, weight: weight)
        reorder(byRank: rank)
    }

    /// The same table stored by node id rather than by rank (`reorder(byRank:)` makes it a
    /// hierarchy's). Why apart: it needs only the graph, not the hierarchy, so an import
    /// computes it beside the contraction, on the core the shorter metric frees.
    ///
    /// The choice is the farthest rule: the first landmark is the node farthest from node 0,
    /// each next one the node farthest from those chosen (by the least cost from any of
    /// them; ties to the lowest id). It spreads them round the edge of the city, where the
    /// bounds they give are tight, and it needs the searches the table needs anyway.
    init(count: Int, graph: LandmarkGraph, weight: [UInt32]) {
        let n = graph.firstOut.count - 1
        let k = min(count, n)
        guard k > 0 else { return }
        self.count = k
        let stride = 2 * k
        distances = [UInt32](repeating: .max, count: n * stride)
        var nearest = [UInt32](repeating: .max, count: n)
        var next = Self.farthest(graph.costs(from: 0, reversed: false, weight: weight))
        for l in 0..<k {
            let from = graph.costs(from: next, reversed: false, weight: weight)
            let to = graph.costs(from: next, reversed: true, weight: weight)
            for v in 0..<n {
                let at = v * stride + 2 * l
                distances[at] = from[v]
                distances[at + 1] = to[v]
                nearest[v] = min(nearest[v], from[v])
            }
            next = Self.farthest(nearest)
        }
    }

    /// Moves each node's numbers from its id's place to its rank's, in place: each cycle of
    /// the permutation is followed once. Why in place: at a million nodes the table is
    /// 128 MB, and a copy would add as much to the import's peak.
    mutating func reorder(byRank rank: [UInt32]) {
        let stride = 2 * count, n = rank.count
        guard stride > 0, distances.count == n * stride else { return }
        var placed = [Bool](repeating: false, count: n)
        var carried = [UInt32](repeating: 0, count: stride)
        distances.withUnsafeMutableBufferPointer { table in
            for start in 0..<n where !placed[start] {
                // `carried` holds node v's numbers, taken from the place they sat in.
                for j in 0..<stride { carried[j] = table[start * stride + j] }
                var v = start
                while true {
                    placed[v] = true
                    let to = Int(rank[v])
                    for j in 0..<stride { swap(&carried[j], &table[to * stride + j]) }
                    // The numbers now carried sat at place `to`: node `to`'s, unless the
                    // cycle is closed.
                    if to == start { break }
                    v = to
                }
            }
        }
    }

    /// The node with the greatest finite cost (the lowest id among equals; 0 when none).
    static func farthest(_ cost: [UInt32]) -> Int {
        var best = 0, bestCost: UInt32 = 0
        for (v, c) in cost.enumerated() where c != .max && c > bestCost { best = v; bestCost = c }
        return best
    }

    /// Whether the table fits a hierarchy of `n` nodes: a file's table is checked before a
    /// search indexes it.
    func isConsistent(nodeCount n: Int) -> Bool {
        count >= 0 && count <= 64 && (count == 0 ? distances.isEmpty : distances.count == n * 2 * count)
    }
}

/// The adjacency a landmark's searches follow both ways: the network's forward and backward
/// CSR arrays.
struct LandmarkGraph: Sendable {
    var firstOut: [UInt32], head: [UInt32], firstIn: [UInt32], inEdge: [UInt32], tail: [UInt32]

    /// Each node's cost from `source` (`reversed`: to it), `UInt32.max` where there is no
    /// path: a plain Dijkstra on the shared heap.
    func costs(from source: Int, reversed: Bool, weight: [UInt32]) -> [UInt32] {
        var cost = [UInt32](repeating: .max, count: firstOut.count - 1)
        guard source < cost.count else { return cost }
        var heap = MinHeap()
        cost[source] = 0
        heap.push(0, source)
        while let (d, u) = heap.pop() {
            guard d == cost[u] else { continue }
            if reversed {
                for k in Int(firstIn[u])..<Int(firstIn[u + 1]) {
                    let e = Int(inEdge[k]), x = Int(tail[e]), c = plus(d, weight[e])
                    if c < cost[x] { cost[x] = c; heap.push(c, x) }
                }
            } else {
                for e in Int(firstOut[u])..<Int(firstOut[u + 1]) {
                    let x = Int(head[e]), c = plus(d, weight[e])
                    if c < cost[x] { cost[x] = c; heap.push(c, x) }
                }
            }
        }
        return cost
    }
}

/// The landmarks' lower bound on the cost between a hierarchy's rank and one end of a
/// query, given by its seeds (ranks, each with its cost to or from the end).
///
/// Towards a target whose seeds z cost c_z to reach it, for rank v and landmark l:
/// d(v, t) ≥ P_l − d(L, v) with P_l = min_z (d(L, z) + c_z), and
/// d(v, t) ≥ d(v, L) − Q_l with Q_l = max_z (d(z, L) − c_z).
/// From a source whose seeds y cost c_y from it, the mirror image:
/// d(s, v) ≥ d(L, v) − P_l with P_l = max_y (d(L, y) − c_y), and
/// d(s, v) ≥ Q_l − d(v, L) with Q_l = min_y (d(y, L) + c_y).
/// Each term follows from the triangle inequality over the graph's own integer weights, the
/// weights the hierarchy's arcs add up, so the bound is feasible on every arc (an arc's
/// weight is at least the difference of its ends' bounds) and a search ordered by it
/// settles each node at its true cost.
///
/// `UInt32.max` in the table is no path, taken as a very large cost: a term that then comes
/// out large still holds (a node that cannot reach the landmark while the end can cannot
/// reach the end), one that comes out negative says nothing. Arithmetic is in `Int64`, so
/// no table, honest or crafted, can make it trap.
struct LandmarkBound: CostBound {
    let table: [UInt32]
    let stride: Int
    /// The active landmarks' offsets (2 l) within a rank's numbers.
    let o0, o1, o2, o3: Int
    let p, q: SIMD4<Int64>
    /// +1 towards a target, −1 from a source.
    let sign: Int64

    /// The bound towards the target whose seeds are `targets`, using the four landmarks
    /// that bound the cost from `sources` (the other end's seeds) to it best; the source's
    /// side takes the same ones (`init(sources:sameLandmarksAs:)`). Nil when the table is
    /// empty or either end has no seeds.
    init?(_ landmarks: LandmarkTable, targets ends: [Router.Seed], sources others: [Router.Seed]) {
        let k = landmarks.count, stride = 2 * k, t = landmarks.distances
        guard k > 0, !ends.isEmpty, !others.isEmpty,
              ends.allSatisfy({ (Int($0.node) + 1) * stride <= t.count }), others.allSatisfy({ (Int($0.node) + 1) * stride <= t.count })
        else { return nil }
        // The four best landmarks so far, best first, by how well each bounds the cost
        // between the two ends: its bound at the other end's seeds (plus their costs), the
        // least over them. Kept in lanes, not arrays: a route makes two of these, and
        // allocating made a small city's route a fifth slower.
        var scores = SIMD4<Int64>(repeating: -1), ps = SIMD4<Int64>(), qs = SIMD4<Int64>(), offsets = SIMD4<Int64>()
        for l in 0..<k {
            let (pl, ql) = Self.constants(t, stride: stride, landmark: l, ends: ends, towardsTarget: true)
            var score = Int64.max
            for y in others {
                let at = Int(y.node) * stride + 2 * l
                let term = max(0, pl - Int64(t[at]), Int64(t[at + 1]) - ql)
                score = min(score, term + Int64(y.cost))
            }
            // Into its place among the four; equals keep the lower landmark first, so the
            // choice is deterministic.
            var lane = Self.lanes
            while lane > 0 && score > scores[lane - 1] { lane -= 1 }
            guard lane < Self.lanes else { continue }
            var j = Self.lanes - 1
            while j > lane { scores[j] = scores[j - 1]; ps[j] = ps[j - 1]; qs[j] = qs[j - 1]; offsets[j] = offsets[j - 1]; j -= 1 }
            scores[lane] = score; ps[lane] = pl; qs[lane] = ql; offsets[lane] = Int64(2 * l)
        }
        // Fewer than four landmarks: the best one fills the lanes left.
        for lane in min(k, Self.lanes)..<Self.lanes { ps[lane] = ps[0]; qs[lane] = qs[0]; offsets[lane] = offsets[0] }
        (o0, o1, o2, o3) = (Int(offsets[0]), Int(offsets[1]), Int(offsets[2]), Int(offsets[3]))
        p = ps
        q = qs
        self.table = t
        self.stride = stride
        self.sign = 1
    }

    /// The bound from the source whose seeds are `sources`, with the landmarks `chosen`
    /// (the target's side of the same route) uses. Why the same: choosing costs a pass
    /// over every landmark, as much as a small city's search, and the landmarks that bound
    /// the cost between two ends best do so whichever end a side starts from.
    init?(sources ends: [Router.Seed], sameLandmarksAs chosen: LandmarkBound) {
        let t = chosen.table, stride = chosen.stride, towardsTarget = false
        guard !ends.isEmpty, ends.allSatisfy({ (Int($0.node) + 1) * stride <= t.count }) else { return nil }
        func constants(_ offset: Int) -> (Int64, Int64) {
            Self.constants(t, stride: stride, landmark: offset / 2, ends: ends, towardsTarget: towardsTarget)
        }
        let (p0, q0) = constants(chosen.o0), (p1, q1) = constants(chosen.o1)
        let (p2, q2) = constants(chosen.o2), (p3, q3) = constants(chosen.o3)
        (o0, o1, o2, o3) = (chosen.o0, chosen.o1, chosen.o2, chosen.o3)
        p = SIMD4(p0, p1, p2, p3)
        q = SIMD4(q0, q1, q2, q3)
        table = t
        self.stride = stride
        sign = -1
    }

    /// P and Q of landmark `l` over an end's seeds (see the type's comment); the seeds
    /// must lie within the table.
    @inline(__always)
    static func constants(_ t: [UInt32], stride: Int, landmark l: Int, ends: [Router.Seed], towardsTarget: Bool) -> (Int64, Int64) {
        var pl: Int64 = 0, ql: Int64 = 0
        for (i, z) in ends.enumerated() {
            let at = Int(z.node) * stride + 2 * l, c = Int64(z.cost)
            let from = Int64(t[at]), to = Int64(t[at + 1])
            let (pz, qz) = towardsTarget ? (from + c, to - c) : (from - c, to + c)
            if i == 0 {
                pl = pz; ql = qz
            } else if towardsTarget {
                pl = min(pl, pz); ql = max(ql, qz)
            } else {
                pl = max(pl, pz); ql = min(ql, qz)
            }
        }
        return (pl, ql)
    }

    /// How many landmarks a bound uses: those with the best bound between the query's ends
    /// (Goldberg and Werneck's active landmarks), one to a lane of the values above. Why
    /// four: on the 1M grid's distance metric four of sixteen settled 129 nodes a route,
    /// all sixteen 123, two 148.
    static let lanes = 4

    /// The bound for rank `v`.
    @inline(__always) func callAsFunction(_ v: Int) -> UInt32 {
        let base = v * stride
        let from = SIMD4(Int64(table[base + o0]), Int64(table[base + o1]), Int64(table[base + o2]), Int64(table[base + o3]))
        let to = SIMD4(Int64(table[base + o0 + 1]), Int64(table[base + o1 + 1]), Int64(table[base + o2 + 1]), Int64(table[base + o3 + 1]))
        let best = pointwiseMax((p &- from) &* sign, (to &- q) &* sign).max()
        return best <= 0 ? 0 : UInt32(clamping: best)
    }
}

extension RoadNetwork {
    /// The adjacency a landmark's searches follow.
    var landmarkGraph: LandmarkGraph {
        LandmarkGraph(firstOut: firstOut, head: head, firstIn: firstIn, inEdge: inEdge, tail: tail)
    }

    /// Gives each metric's hierarchy `count` landmarks, replacing any it has (the import
    /// chooses `LandmarkTable.count(for:)`; tests give both metrics some).
    mutating func chooseLandmarks(count: Int) {
        let graph = landmarkGraph
        for (i, metric) in Metric.allCases.enumerated() where i < hierarchies.count {
            hierarchies[i].landmarks = LandmarkTable(count: count, graph: graph, weight: metric == .time ? timeMs : lengthDm,
                                                     rank: hierarchies[i].rank)
        }
    }
}
