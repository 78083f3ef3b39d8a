import Geodesy

/// What makes an alternative route worth offering, in the terms of Abraham, Delling,
/// Goldberg and Werneck's via-node alternatives ("Alternative routes in road networks").
public struct AlternativeSettings: Sendable, Equatable {
    /// The most of the fastest route's length an alternative may share with it (and with
    /// every other alternative offered), 0…1 (γ).
    public var maximumSharing: Double
    /// The most an alternative may take, as a multiple of the fastest route's time (1 + ε).
    public var maximumStretch: Double
    /// Local optimality (α): the stretch of the alternative around its via node, this share
    /// of the fastest route's time long, must itself be a fastest route.
    public var localOptimality: Double

    /// γ 0.8, 1 + ε 1.25, α 0.25: the values the literature and GraphHopper use.
    public init(maximumSharing: Double = 0.8, maximumStretch: Double = 1.25, localOptimality: Double = 0.25) {
        self.maximumSharing = min(1, max(0, maximumSharing))
        self.maximumStretch = max(1, maximumStretch.isFinite ? maximumStretch : 1.25)
        self.localOptimality = min(1, max(0, localOptimality))
    }
}

extension Router {
    /// The fastest route and up to `count − 1` admissible alternatives, fastest first.
    ///
    /// Both ends' upward searches on the time hierarchy run to the stretch bound; every node
    /// both reach is a possible via node, its path the fastest from the start to it and from
    /// it to the end. Candidates are tried cheapest first and kept when they pass the three
    /// tests: they share at most ``AlternativeSettings/maximumSharing`` of their length with
    /// each route already kept, take at most ``AlternativeSettings/maximumStretch`` times the
    /// fastest route's time, and are locally optimal (the stretch around the via node, α of
    /// the fastest route's time long, is a fastest route: a one-to-one query checks it).
    public func routes(from origin: Coordinate, to destination: Coordinate, count: Int,
                       settings: AlternativeSettings = AlternativeSettings(), maxSnapMetres: Double = 1000) throws(RouteError) -> [Route] {
        let s = try snap(origin, within: maxSnapMetres), t = try snap(destination, within: maxSnapMetres)
        let best = try route(from: s, to: t)
        guard count > 1 else { return [best] }
        let bestEdges = edges.filter { $0 != RoadNetwork.none }
        let bound = UInt32(min(Double(UInt32.max - 1), Double(best.cost) * settings.maximumStretch))
        let candidates = viaPaths(from: s, to: t, bound: bound, limit: 24)
        var kept: [(route: Route, edges: [UInt32])] = [(best, bestEdges)]
        let network = self.network
        func length(_ path: [UInt32]) -> Double { path.reduce(0.0) { $0 + Double(network.lengthDm[Int($1)]) } }
        for candidate in candidates where kept.count < count {
            let path = candidate.edges.filter { $0 != RoadNetwork.none }
            let total = length(path)
            guard total > 0 else { continue }
            // Limited sharing with every route kept, counted by street and direction, not by
            // edge: where turns are priced, one street driven the same way is a different edge
            // for each way the route came in by.
            let shares = kept.allSatisfy { other in
                let set = Set(other.edges.map { network.edgePiece[Int($0)] })
                let shared = path.reduce(0.0) { set.contains(network.edgePiece[Int($1)]) ? $0 + Double(network.lengthDm[Int($1)]) : $0 }
                return shared <= settings.maximumSharing * min(total, length(other.edges))
            }
            guard shares, isLocallyOptimal(path, via: candidate.viaOffset, window: Double(best.cost) * settings.localOptimality) else { continue }
            edges = candidate.edges
            kept.append((assemble(from: s, to: t, cost: candidate.cost, direct: false), path))
        }
        return kept.map(\.route)
    }

    /// Paths through the nodes both ends' upward searches reach within `bound`, cheapest
    /// first, each unpacked to network edges (the first and last driven partly from and to
    /// the snapped points), without repeats: at most `limit`.
    func viaPaths(from s: Snap, to t: Snap, bound: UInt32, limit: Int) -> [(cost: UInt32, edges: [UInt32], viaOffset: Int)] {
        let ch = network.hierarchies[Metric.time.index]
        sourceSeeds.removeAll(keepingCapacity: true); targetSeeds.removeAll(keepingCapacity: true)
        seeds(of: s, metric: .time, leaving: true, ranks: ch.rank, into: &sourceSeeds)
        seeds(of: t, metric: .time, leaving: false, ranks: ch.rank, into: &targetSeeds)
        nextGeneration()
        let gen = generation
        plant(sourceSeeds, in: &forward, push: true, gen: gen)
        plant(targetSeeds, in: &backward, push: true, gen: gen)
        // Plain upward Dijkstra on both sides (no stall-on-demand: every distance settled is
        // the exact upward distance), to the bound.
        var settledForward: [Int] = [], settledBackward: [Int] = []
        func settle(_ side: inout SearchSide, first: [UInt32], arcs: [HierarchyArc], into settled: inout [Int]) {
            while let (d, u) = side.heap.pop() {
                if d > bound { side.heap.removeAll(); return }
                guard d == side.labels[u].dist else { continue }
                settled.append(u)
                for k in Int(first[u])..<Int(first[u + 1]) {
                    let a = arcs[k], x = Int(a.node), nd = plus(d, a.weight)
                    if nd <= bound, side.improve(x, to: nd, edge: a.edge, from: u, gen: gen) { side.heap.push(nd, x) }
                }
            }
        }
        settle(&forward, first: ch.upFirst, arcs: ch.up, into: &settledForward)
        settle(&backward, first: ch.downFirst, arcs: ch.down, into: &settledBackward)
        var via: [(cost: UInt32, node: Int)] = []
        for v in settledForward where backward.labels[v].stamp == gen {
            let c = plus(forward.labels[v].dist, backward.labels[v].dist)
            if c <= bound { via.append((c, v)) }
        }
        via.sort { $0.cost < $1.cost || ($0.cost == $1.cost && $0.node < $1.node) }
        var out: [(cost: UInt32, edges: [UInt32], viaOffset: Int)] = []
        var seen = Set<[UInt32]>()
        for (cost, v) in via where out.count < limit {
            edges.removeAll(keepingCapacity: true)
            // The via node's place in the unpacked path: after the source side's edges.
            collectPath(meet: v, hierarchy: ch)
            let path = edges
            guard seen.insert(path).inserted else { continue }
            out.append((cost, path, viaOffset(of: v, in: path, ranks: ch.rank)))
        }
        return out
    }

    /// The index in `path` of the first edge leaving the via node, given by its rank `v` in
    /// the hierarchy whose `ranks` are passed, or the middle.
    func viaOffset(of v: Int, in path: [UInt32], ranks: [UInt32]) -> Int {
        path.firstIndex { $0 != RoadNetwork.none && Int(ranks[Int(network.tail[Int($0)])]) == v } ?? path.count / 2
    }

    /// Whether the stretch of `path` around its via node, `window` milliseconds long (half
    /// each side, cut at the path's ends), is a fastest route between its ends.
    func isLocallyOptimal(_ path: [UInt32], via index: Int, window: Double) -> Bool {
        guard path.count > 2 else { return true }
        let g = network
        let at = min(max(0, index), path.count - 1)
        var first = at, before = 0.0
        while first > 0, before < window / 2 { first -= 1; before += Double(g.timeMs[Int(path[first])]) }
        var last = at, after = Double(g.timeMs[Int(path[at])])
        while last < path.count - 1, after < window / 2 { last += 1; after += Double(g.timeMs[Int(path[last])]) }
        let x = Int(g.tail[Int(path[first])]), y = Int(g.head[Int(path[last])])
        guard x != y else { return true }
        let along = path[first...last].reduce(UInt32(0)) { plus($0, g.timeMs[Int($1)]) }
        guard let fastest = nodeToNode(x, y) else { return false }
        // Equal up to the rounding of shortcut weights (a millisecond an edge at most).
        return Double(along) <= Double(fastest) + Double(last - first + 1)
    }

    /// The fastest time from node `x` to node `y` on the time hierarchy, or nil.
    func nodeToNode(_ x: Int, _ y: Int) -> UInt32? {
        let rank = network.hierarchies[Metric.time.index].rank
        sourceSeeds = [Seed(node: rank[x], cost: 0, edge: RoadNetwork.none)]
        targetSeeds = [Seed(node: rank[y], cost: 0, edge: RoadNetwork.none)]
        return searchHierarchy(metric: .time, direct: nil)?.cost
    }
}
