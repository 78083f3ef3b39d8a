import Essentials
import Foundation
import Geodesy
import SpatialIndex

/// How a route is searched. All three return exactly the same cost.
public enum RoutingAlgorithm: String, Sendable, CaseIterable {
    /// Plain Dijkstra: the oracle.
    case dijkstra
    /// A* with the straight-line distance (divided by the network's top speed for time).
    case astar
    /// Bidirectional search on the contraction hierarchy, with stall-on-demand; for the
    /// distance metric, aimed at the goal by landmarks (`LandmarkTable`).
    case hierarchy
}

/// How one-to-many ETAs are searched. Both give exactly the same answers.
public enum ETAAlgorithm: String, Sendable, CaseIterable {
    /// Upward search from the pickup on the contraction hierarchy, then one walk up from
    /// all the cabs that shares the nodes they have in common: the default.
    case hierarchy
    /// One plain backward Dijkstra from the pickup until every cab is reached or the time
    /// limit passed: the baseline (it settles most of a city for a 30-minute limit).
    case backwardSearch
}

/// Why a route or an ETA cannot be given.
public enum RouteError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The point is farther than the snapping limit from every drivable road.
    case noRoadNearby(Coordinate, limitMetres: Double)
    /// Both ends are on roads, but no road leads from the first to the second (possible
    /// only in a graph that is not strongly connected, such as a crafted file).
    case noRoute(from: Coordinate, to: Coordinate)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .noRoadNearby(c, limit): "no road within \(Int(limit)) m of \(c)"
        case let .noRoute(a, b): "no route from \(a) to \(b)"
        }
    }
}

/// A coordinate snapped onto the nearest drivable road.
public struct Snap: Sendable, Equatable {
    /// The point on the road.
    public var coordinate: Coordinate
    /// Distance from the given coordinate to the road, in metres.
    public var metres: Double
    /// The geometry piece, the global index of the segment's first point, and the
    /// position along the piece (0 at its first point, 1 at its last).
    var piece: Int
    var segment: Int
    var fraction: Double
}

/// A route between two coordinates.
public struct Route: Sendable {
    /// Length in metres and travel time in seconds, snapped ends included.
    public var distanceMetres: Double
    /// Travel time in seconds, snapped ends included.
    public var durationSeconds: Double
    /// How far each end was from the road it was snapped to.
    public var fromSnapMetres: Double
    /// How far the destination was from the road it was snapped to.
    public var toSnapMetres: Double
    /// The path, from the snapped start to the snapped end.
    public var geometry: [Coordinate]
    /// The named streets driven, in order, each once per stretch.
    public var streets: [String]
    /// The OSM ids of the toll ways driven (`toll=yes`), each once, in the order reached:
    /// what the fare's toll line prices.
    public var tollWays: [Int64] = []
    /// The cost the search minimised, in the metric's units (ms or dm).
    public var cost: UInt32
    /// Nodes the search settled: a measure of its work.
    public var settled: Int
}

/// An estimated arrival from one cab.
public struct ETA: Sendable, Equatable {
    /// Driving time in seconds and the length of that fastest path in metres.
    public var seconds: Double
    /// The length of that fastest path, in metres.
    public var metres: Double
    /// An ETA of `seconds` along `metres` of road.
    public init(seconds: Double, metres: Double) { self.seconds = seconds; self.metres = metres }
}

/// A routing workspace over one shared network: snapping, one-to-one routes and
/// one-to-many ETAs.
///
/// Not `Sendable`: it owns the mutable search state (distance arrays stamped by a
/// generation counter, so nothing is cleared between queries, and heaps that keep their
/// capacity). Give each thread its own `Router`; they share the network's storage. After
/// the first few queries a search allocates nothing but the arrays of the `Route` it
/// returns.
public final class Router {
    /// The shared network this router searches.
    public let network: RoadNetwork

    // The search state below is `@exclusivity(unchecked)`: only this router's own methods
    // touch it, on the one thread that owns the router, and none of them holds a mutating
    // access to one of these properties across a call that touches the same property (the
    // overlap the runtime checks for cannot happen). The hierarchy search and the path
    // assembly also move the arrays they loop over into locals; the baselines (Dijkstra,
    // A*) work on the stored sides. The checks were a tenth of a map match's instructions
    // (callgrind, σ 15 m every 5 s on Monaco).
    /// The two directions of a search: from the start (forward) and from the end (backward).
    @exclusivity(unchecked) var forward: SearchSide, backward: SearchSide
    /// Path lengths (dm) of the one-to-many searches: to the pickup from each node the
    /// backward search reached, and from each node the hierarchy walk finished.
    @exclusivity(unchecked) var lengthB: [UInt32], lengthF: [UInt32]
    @exclusivity(unchecked) var walkStack: [UInt32] = []
    @exclusivity(unchecked) var generation: UInt32 = 0
    @exclusivity(unchecked) var sourceSeeds: [Seed] = [], targetSeeds: [Seed] = []
    @exclusivity(unchecked) var edges: [UInt32] = [], unpackStack: [UInt32] = [], chain: [UInt32] = []
    @exclusivity(unchecked) var pointRuns: [PointRun] = [], streets: [String] = []
    @exclusivity(unchecked) var cabSeeds: [Seed] = [], cabSeedStart: [Int] = []
    @exclusivity(unchecked) var hits: [SegmentHit] = []
    /// `nearestPieces`' slot of each piece in `hits`, valid where `pieceStamp` equals
    /// `pieceGeneration`.
    @exclusivity(unchecked) var pieceSlot: [Int32] = [], pieceStamp: [UInt32] = [], pieceGeneration: UInt32 = 0
    /// The many-to-many's buckets (`table(from:to:limitSeconds:)`): per node the first entry
    /// of its list, valid where `bucketStamp` equals `bucketGeneration`; and the nodes one
    /// upward search settled.
    @exclusivity(unchecked) var buckets: [BucketEntry] = [], bucketHead: [Int32] = [], bucketStamp: [UInt32] = []
    @exclusivity(unchecked) var bucketGeneration: UInt32 = 0, settledNodes: [UInt32] = []
    /// The routes of the last `localTable`.
    @exclusivity(unchecked) var tablePaths = TablePaths()
    /// Nodes settled by the last search.
    @exclusivity(unchecked) public internal(set) var settled = 0
    /// Whether a path's reads are asked for ahead (`RoadNetwork.readsAhead`; tests turn it
    /// off to compare).
    @exclusivity(unchecked) var readsAhead: Bool

    static let seedBit: UInt32 = 1 << 31

    /// A seed of a search: a node reached from a snapped point (or reaching one) at `cost`,
    /// along `edge`.
    struct Seed { var node: UInt32; var cost: UInt32; var edge: UInt32 }

    /// A router over `network`, with scratch space for its node count (a few arrays of
    /// 4 bytes per node). Make one per thread.
    public init(network: RoadNetwork) {
        self.network = network
        let n = network.nodeCount
        forward = SearchSide(nodeCount: n); backward = SearchSide(nodeCount: n)
        lengthB = .init(onHugePages: 0, count: n); lengthF = .init(onHugePages: 0, count: n)
        readsAhead = network.readsAhead
    }

    func nextGeneration() {
        generation &+= 1
        if generation == 0 {
            forward.resetStamps(); backward.resetStamps()
            generation = 1
        }
    }

    // MARK: Seeds

    /// The cost of `share` (0…1) of an edge costing `w`, to the nearest unit like the edge
    /// costs themselves (`EdgeCosts`), so a point snapped a hair off a junction costs
    /// nothing extra.
    @inline(__always) static func partial(_ share: Double, _ w: UInt32) -> UInt32 {
        UInt32(min(Double(UInt32.max - 1), (max(0, share) * Double(w)).rounded(.toNearestOrEven)))
    }

    /// The cost of `share` (0…1) of edge e for `metric`, driven from its tail (`fromTail`:
    /// the turn onto it is paid whole) or from a point partway along it (no turn was made).
    /// Where the network prices no turns, or for the distance metric, it is `partial`.
    @inline(__always) func partialCost(_ e: Int, _ metric: Metric, share: Double, fromTail: Bool) -> UInt32 {
        let g = network, w = g.weight(e, metric)
        guard metric == .time, !g.turnMs.isEmpty else { return Self.partial(share, w) }
        let turn = g.turnMs[e], driven = Self.partial(share, w - turn)  // turn ≤ w: checked at load
        return fromTail ? plus(turn, driven) : driven
    }

    /// Seeds for leaving a snapped point (towards each edge's head) or for arriving at one
    /// (from each edge's tail), along every edge that runs on its piece. A point snapped
    /// onto a piece's end is at a junction, so that junction is also a seed at no cost
    /// (with no edge): from there every way out is open.
    ///
    /// A search on a contraction hierarchy passes its `rank`: the seeds' nodes are then
    /// ranks, the numbering its arrays use (nil: the network's node ids).
    func seeds(of snap: Snap, metric: Metric, leaving: Bool, ranks: [UInt32]?, into out: inout [Seed]) {
        let g = network
        @inline(__always) func number(_ v: UInt32) -> UInt32 { ranks?[Int(v)] ?? v }
        for k in Int(g.pieceEdgeStart[snap.piece])..<Int(g.pieceEdgeStart[snap.piece + 1]) {
            let e = Int(g.pieceEdges[k])
            let reversed = g.edgePiece[e] & RoadNetwork.reversedBit != 0
            // Leaving, the car starts partway along the edge: no turn onto it. Arriving, it
            // turned onto the edge at its tail.
            let cost = partialCost(e, metric, share: share(of: snap, leaving: leaving, along: e), fromTail: !leaving)
            out.append(Seed(node: number(leaving ? g.head[e] : g.tail[e]), cost: cost, edge: UInt32(e)))
            if snap.fraction == 0 { out.append(Seed(node: number(reversed ? g.head[e] : g.tail[e]), cost: 0, edge: RoadNetwork.none)) }
            if snap.fraction == 1 { out.append(Seed(node: number(reversed ? g.tail[e] : g.head[e]), cost: 0, edge: RoadNetwork.none)) }
        }
    }

    /// The cheapest way from s to t without leaving their shared piece, if they share one
    /// and an edge on it runs from s towards t.
    func direct(_ s: Snap, _ t: Snap, metric: Metric) -> (cost: UInt32, edge: UInt32)? {
        guard s.piece == t.piece else { return nil }
        let g = network
        var best: (cost: UInt32, edge: UInt32)?
        for k in Int(g.pieceEdgeStart[s.piece])..<Int(g.pieceEdgeStart[s.piece + 1]) {
            let e = Int(g.pieceEdges[k])
            let reversed = g.edgePiece[e] & RoadNetwork.reversedBit != 0
            let ahead = reversed ? s.fraction - t.fraction : t.fraction - s.fraction
            guard ahead >= 0 else { continue }
            let c = partialCost(e, metric, share: ahead, fromTail: false)
            if best == nil || c < best!.cost { best = (c, UInt32(e)) }
        }
        return best
    }

    // MARK: One-to-one

    /// The best route between two coordinates, each snapped to the nearest road within
    /// `maxSnapMetres`: `RouteError.noRoadNearby` when an end is farther from every road,
    /// `RouteError.noRoute` when no road leads from one to the other.
    public func route(from origin: Coordinate, to destination: Coordinate, metric: Metric = .time,
                      algorithm: RoutingAlgorithm = .hierarchy, maxSnapMetres: Double = 1000) throws(RouteError) -> Route {
        let s = try snap(origin, within: maxSnapMetres)
        let t = try snap(destination, within: maxSnapMetres)
        return try route(from: s, to: t, metric: metric, algorithm: algorithm)
    }

    /// The best route between two snapped points; `RouteError.noRoute` when none exists.
    public func route(from s: Snap, to t: Snap, metric: Metric = .time,
                      algorithm: RoutingAlgorithm = .hierarchy) throws(RouteError) -> Route {
        try route(from: s, to: t, metric: metric, algorithm: algorithm, named: true)
    }

    /// The best route between two snapped points, with its street names and toll ways
    /// when `named` (the matcher, which needs only the geometry and the edges, skips them).
    func route(from s: Snap, to t: Snap, metric: Metric = .time, algorithm: RoutingAlgorithm = .hierarchy,
               named: Bool) throws(RouteError) -> Route {
        sourceSeeds.removeAll(keepingCapacity: true); targetSeeds.removeAll(keepingCapacity: true)
        let hierarchy = algorithm == .hierarchy ? network.hierarchies[metric.index] : nil
        seeds(of: s, metric: metric, leaving: true, ranks: hierarchy?.rank, into: &sourceSeeds)
        seeds(of: t, metric: metric, leaving: false, ranks: hierarchy?.rank, into: &targetSeeds)
        let shortcut = direct(s, t, metric: metric)
        let found: (cost: UInt32, meet: Int)?
        switch algorithm {
        case .dijkstra: found = searchOneWay(metric: metric, direct: shortcut?.cost, goal: nil)
        case .astar: found = searchOneWay(metric: metric, direct: shortcut?.cost, goal: t.coordinate)
        case .hierarchy: found = searchHierarchy(metric: metric, direct: shortcut?.cost)
        }
        guard let (cost, meet) = found else { throw .noRoute(from: s.coordinate, to: t.coordinate) }
        edges.removeAll(keepingCapacity: true)
        if meet < 0 {
            edges.append(shortcut!.edge)
        } else {
            collectPath(meet: meet, hierarchy: hierarchy)
        }
        return assemble(from: s, to: t, cost: cost, direct: meet < 0, named: named)
    }

    /// Puts the seeds into one side of a search (pushed on its heap when `push`).
    func plant(_ seeds: [Seed], in side: inout SearchSide, push: Bool, gen: UInt32, key: (Int, UInt32) -> UInt32 = { $1 }) {
        side.heap.removeAll()
        for (i, s) in seeds.enumerated() {
            let v = Int(s.node)
            if side.labels[v].stamp != gen || s.cost < side.labels[v].dist {
                side.labels[v] = SearchSide.Label(dist: s.cost, edge: Self.seedBit | UInt32(i), node: side.labels[v].node, stamp: gen)
                if push { side.heap.push(key(v, s.cost), v) }
            }
        }
    }

    /// Each planted seed node's path length (dm) to or from `snap`: the part of the edge of
    /// its cheapest seed (the one `plant` kept in `side`), 0 for a seed at a junction.
    func plantLengths(_ seeds: [Seed], of snap: Snap, leaving: Bool, side: SearchSide, into lengths: inout [UInt32]) {
        for s in seeds {
            let v = Int(s.node), chosen = seeds[Int(side.labels[v].edge & ~Self.seedBit)]
            lengths[v] = chosen.edge == RoadNetwork.none ? 0
                : Self.partial(share(of: snap, leaving: leaving, along: Int(chosen.edge)), network.lengthDm[Int(chosen.edge)])
        }
    }

    /// A* (or Dijkstra without a goal) from the source seeds to the target seeds. Returns
    /// the cost and the node where the path meets its target seed (-1: the direct path).
    func searchOneWay(metric: Metric, direct: UInt32?, goal: Coordinate?) -> (cost: UInt32, meet: Int)? {
        let g = network
        nextGeneration()
        let gen = generation
        var gx = 0.0, gy = 0.0, gz = 0.0
        let scale = goal == nil ? 0 : g.heuristicScale[metric.index]
        if let c = goal { (gx, gy, gz) = RoadNetwork.unitVector(latitude: c.latitude, longitude: c.longitude) }
        @inline(__always) func h(_ v: Int) -> UInt32 { scale == 0 ? 0 : g.heuristic(v, gx, gy, gz, scale) }
        plant(sourceSeeds, in: &forward, push: true, gen: gen) { plus($1, h($0)) }
        plant(targetSeeds, in: &backward, push: false, gen: gen)
        var best = direct ?? .max, meet = direct == nil ? Int.min : -1
        let weights = metric == .time ? g.timeMs : g.lengthDm
        var count = 0
        while let (key, u) = forward.heap.pop() {
            if key >= best { break }
            let d = forward.labels[u].dist
            guard key == plus(d, h(u)) else { continue }
            count += 1
            if backward.labels[u].stamp == gen, plus(d, backward.labels[u].dist) < best { best = plus(d, backward.labels[u].dist); meet = u }
            for e in Int(g.firstOut[u])..<Int(g.firstOut[u + 1]) {
                let x = Int(g.head[e]), nd = plus(d, weights[e])
                // Reopening is allowed (no closed set), so the answer is exact even where
                // rounding makes the heuristic slightly inconsistent.
                if forward.improve(x, to: nd, edge: UInt32(e), from: u, gen: gen) { forward.heap.push(plus(nd, h(x)), x) }
            }
        }
        settled = count
        return meet == Int.min ? nil : (best, meet)
    }

    /// Bidirectional upward search on the hierarchy, with stall-on-demand; the seeds' nodes
    /// are ranks, and so is the meeting node. Where the hierarchy has landmarks (an
    /// import gives the distance metric's), each side's queue is ordered by cost plus their
    /// lower bound on the rest of the way to the other end (`LandmarkBound`), and stops once
    /// that reaches the best route found: a node whose cost and rest of the way cannot beat
    /// it is never settled.
    func searchHierarchy(metric: Metric, direct: UInt32?) -> (cost: UInt32, meet: Int)? {
        let ch = network.hierarchies[metric.index]
        if let towardsTarget = LandmarkBound(ch.landmarks, targets: targetSeeds, sources: sourceSeeds),
           let towardsSource = LandmarkBound(sources: sourceSeeds, sameLandmarksAs: towardsTarget) {
            return searchHierarchy(ch, direct: direct, towardsTarget: towardsTarget, towardsSource: towardsSource)
        }
        return searchHierarchy(ch, direct: direct, towardsTarget: NoBound(), towardsSource: NoBound())
    }

    /// The search itself, specialised per kind of bound (`NoBound`: the plain search).
    func searchHierarchy<Bound: CostBound>(_ ch: ContractionHierarchy, direct: UInt32?,
                                           towardsTarget: Bound, towardsSource: Bound) -> (cost: UInt32, meet: Int)? {
        nextGeneration()
        let gen = generation
        plant(sourceSeeds, in: &forward, push: true, gen: gen) { plus($1, towardsTarget($0)) }
        plant(targetSeeds, in: &backward, push: true, gen: gen) { plus($1, towardsSource($0)) }
        var best = direct ?? .max, meet = direct == nil ? Int.min : -1
        var count = 0
        // Both sides are moved into locals for the loop and back at the end: worked on in
        // the router's storage, each settled node retained and released the other side's
        // arrays and checked their uniqueness again (a quarter of the search's
        // instructions; docs/benchmarks.md, "Counted in instructions").
        var f = SearchSide.empty, b = SearchSide.empty
        swap(&f, &forward); swap(&b, &backward)
        defer { swap(&f, &forward); swap(&b, &backward) }
        while true {
            let fk = f.heap.peekKey ?? .max, bk = b.heap.peekKey ?? .max
            if min(fk, bk) >= best { break }
            // The forward side climbs `up` arcs and is stalled by `down` ones; the backward
            // side the other way round.
            if fk <= bk {
                count += f.settleNext(other: b, arcs: ch.upFirst, ch.up, stall: ch.downFirst, ch.down,
                                      bound: towardsTarget, gen: gen, best: &best, meet: &meet)
            } else {
                count += b.settleNext(other: f, arcs: ch.downFirst, ch.down, stall: ch.upFirst, ch.up,
                                      bound: towardsSource, gen: gen, best: &best, meet: &meet)
            }
        }
        settled = count
        return meet == Int.min ? nil : (best, meet)
    }

    /// Fills `edges` with the network edges of the path through `meet`: the source seed's
    /// edge, the searched edges (shortcuts unpacked, all of them together: see
    /// `expandShortcuts`), then the target seed's edge.
    func collectPath(meet: Int, hierarchy: ContractionHierarchy?) {
        chain.removeAll(keepingCapacity: true)
        var v = meet
        while forward.labels[v].edge & Self.seedBit == 0 { chain.append(forward.labels[v].edge); v = Int(forward.labels[v].node) }
        edges.append(sourceSeeds[Int(forward.labels[v].edge & ~Self.seedBit)].edge)
        edges.append(contentsOf: chain.reversed())
        v = meet
        while backward.labels[v].edge & Self.seedBit == 0 { edges.append(backward.labels[v].edge); v = Int(backward.labels[v].node) }
        edges.append(targetSeeds[Int(backward.labels[v].edge & ~Self.seedBit)].edge)
        hierarchy?.expandShortcuts(in: &edges, ahead: readsAhead, scratch: &unpackStack, stack: &chain)
    }

    /// Builds the answer from `edges`: the first and last are driven partly (from and to
    /// the snapped points; `none` when the point is at a junction), or the only one from s
    /// to t on a direct path.
    func assemble(from s: Snap, to t: Snap, cost: UInt32, direct: Bool, named: Bool = true) -> Route {
        let g = network
        // The buffers are moved into locals for the assembly (and back into the router at
        // the end), so that each append is a plain local write, not an access to the
        // router's storage. The points are gathered as runs and copied once at the end.
        var runs: [PointRun] = [], streets: [String] = []
        swap(&runs, &self.pointRuns); swap(&streets, &self.streets)
        defer { swap(&runs, &self.pointRuns); swap(&streets, &self.streets) }
        runs.removeAll(keepingCapacity: true)
        streets.removeAll(keepingCapacity: true)
        var dm: UInt32 = 0, ms: UInt32 = 0
        var tolls: [Int64] = []
        // The name of the piece before: a piece with the same name index has the same
        // name, so it needs neither the string nor the comparison (most pieces of a route).
        var lastName = -1
        func add(_ e: Int, share: Double, fromTail: Bool = true) {
            dm = plus(dm, Self.partial(share, g.lengthDm[e])); ms = plus(ms, partialCost(e, .time, share: share, fromTail: fromTail))
            guard named else { return }
            let p = g.edgePiece[e] & ~RoadNetwork.reversedBit
            let n = Int(g.pieceName[Int(p)])
            if n != lastName {
                lastName = n
                let name = g.names[n]
                if !name.isEmpty && streets.last != name { streets.append(name) }
            }
            if !g.tollPieces.isEmpty, let way = g.tollWay(ofPiece: p), !tolls.contains(way) { tolls.append(way) }
        }
        func points(_ from: Int, through to: Int) { runs.append(PointRun(from: from, to: to)) }
        func piece(_ e: Int) -> (first: Int, last: Int, reversed: Bool) {
            let p = g.edgePiece[e], q = Int(p & ~RoadNetwork.reversedBit)
            return (Int(g.pieceStart[q]), Int(g.pieceStart[q + 1]) - 1, p & RoadNetwork.reversedBit != 0)
        }
        let ahead = !direct && readsAhead
        if ahead { g.prefetchForAssembly(startOf: edges) }
        if direct {
            let e = Int(edges[0]), (_, _, reversed) = piece(e)
            add(e, share: abs(t.fraction - s.fraction), fromTail: false)
            if reversed { if s.segment > t.segment { points(s.segment, through: t.segment + 1) } }
            else if t.segment > s.segment { points(s.segment + 1, through: t.segment) }
        } else {
            for (i, e32) in edges.enumerated() where e32 != RoadNetwork.none {
                if ahead { g.prefetchForAssembly(edges, at: i) }
                let e = Int(e32), (first, last, reversed) = piece(e)
                if i == 0 {
                    add(e, share: reversed ? s.fraction : 1 - s.fraction, fromTail: false)
                    if reversed { points(s.segment, through: first) } else { points(s.segment + 1, through: last) }
                } else if i == edges.count - 1 {
                    add(e, share: reversed ? 1 - t.fraction : t.fraction)
                    if reversed { points(last, through: t.segment + 1) } else { points(first, through: t.segment) }
                } else {
                    add(e, share: 1)
                    if reversed { points(last, through: first) } else { points(first, through: last) }
                }
            }
        }
        let geometry = g.geometry(from: s.coordinate, runs: runs, to: t.coordinate)
        return Route(distanceMetres: Double(dm) / 10, durationSeconds: Double(ms) / 1000,
                     fromSnapMetres: s.metres, toSnapMetres: t.metres, geometry: geometry, streets: streets, tollWays: tolls,
                     cost: cost, settled: settled)
    }

    // MARK: One-to-many

    /// The fastest arrival at `pickup` from each cab, cut off at `limitSeconds`: nil for a
    /// cab that cannot arrive in time or is farther than `maxSnapMetres` from a road. The
    /// pickup itself must be near a road (`RouteError.noRoadNearby`). Each answer equals the
    /// one-to-one fastest route's duration exactly, whichever algorithm.
    public func etas(to pickup: Coordinate, from cabs: [Coordinate], limitSeconds: Double = 1800,
                     maxSnapMetres: Double = 1000, algorithm: ETAAlgorithm = .hierarchy) throws(RouteError) -> [ETA?] {
        let t = try snap(pickup, within: maxSnapMetres)
        var snaps: [Snap?] = []
        snaps.reserveCapacity(cabs.count)
        for c in cabs { snaps.append(try? snap(c, within: maxSnapMetres)) }
        return etas(to: t, from: snaps, limitSeconds: limitSeconds, algorithm: algorithm)
    }

    /// `etas(to:from:limitSeconds:maxSnapMetres:algorithm:)` for points already snapped: a
    /// dispatcher snaps each cab once per position report and keeps the snap, so a decision
    /// pays only for the search. A nil snap gives a nil answer.
    public func etas(to t: Snap, from cabs: [Snap?], limitSeconds: Double = 1800,
                     algorithm: ETAAlgorithm = .hierarchy) -> [ETA?] {
        let limit = UInt32(min(Double(UInt32.max - 1), max(0, limitSeconds * 1000)))
        nextGeneration()
        let gen = generation
        // The hierarchy's searches number nodes by rank; the baseline by node id.
        let ranks = algorithm == .hierarchy ? network.hierarchies[Metric.time.index].rank : nil
        cabSeeds.removeAll(keepingCapacity: true); cabSeedStart.removeAll(keepingCapacity: true)
        for s in cabs {
            cabSeedStart.append(cabSeeds.count)
            if let s { seeds(of: s, metric: .time, leaving: true, ranks: ranks, into: &cabSeeds) }
        }
        cabSeedStart.append(cabSeeds.count)
        targetSeeds.removeAll(keepingCapacity: true)
        seeds(of: t, metric: .time, leaving: false, ranks: ranks, into: &targetSeeds)
        plant(targetSeeds, in: &backward, push: true, gen: gen)
        let g = network
        plantLengths(targetSeeds, of: t, leaving: false, side: backward, into: &lengthB)
        // Afterwards, for a cab seed's node v: `cost(v)` is the time from v to the pickup
        // and `length(v)` that path's length, or cost .max when v cannot arrive in time.
        let cost: (Int) -> UInt32, length: (Int) -> UInt32
        switch algorithm {
        case .hierarchy:
            hierarchyToTarget(limit: limit, gen: gen)
            cost = { [forward] v in forward.labels[v].stamp == gen ? forward.labels[v].dist : .max }
            length = { [lengthF] v in lengthF[v] }
        case .backwardSearch:
            backwardToCabs(limit: limit, gen: gen)
            cost = { [backward] v in backward.labels[v].stamp == gen ? backward.labels[v].dist : .max }
            length = { [lengthB] v in lengthB[v] }
        }
        var answers: [ETA?] = []
        answers.reserveCapacity(cabs.count)
        for (i, s) in cabs.enumerated() {
            guard let s else { answers.append(nil); continue }
            var best: (ms: UInt32, dm: UInt32)?
            for seed in cabSeeds[cabSeedStart[i]..<cabSeedStart[i + 1]] {
                let rest = cost(Int(seed.node))
                guard rest != .max else { continue }
                let ms = plus(seed.cost, rest)
                let start = seed.edge == RoadNetwork.none ? 0 : Self.partial(share(of: s, leaving: true, along: Int(seed.edge)), g.lengthDm[Int(seed.edge)])
                let dm = plus(start, length(Int(seed.node)))
                if best == nil || ms < best!.ms { best = (ms, dm) }
            }
            if let (ms, e) = direct(s, t, metric: .time), best == nil || ms < best!.ms {
                best = (ms, Self.partial(abs(t.fraction - s.fraction), g.lengthDm[Int(e)]))
            }
            if let b = best, b.ms <= limit { answers.append(ETA(seconds: Double(b.ms) / 1000, metres: Double(b.dm) / 10)) }
            else { answers.append(nil) }
        }
        return answers
    }

    /// The baseline: one backward Dijkstra from the planted pickup seeds over the whole
    /// graph, until every cab seed's node is settled or the limit is passed.
    func backwardToCabs(limit: UInt32, gen: UInt32) {
        let g = network
        // The seed nodes the search waits for, marked in the forward stamps (unused here).
        var waiting = 0
        for s in cabSeeds where forward.labels[Int(s.node)].stamp != gen { forward.labels[Int(s.node)].stamp = gen; waiting += 1 }
        var count = 0
        while waiting > 0, let (d, u) = backward.heap.pop() {
            if d > limit { break }
            guard d == backward.labels[u].dist else { continue }
            count += 1
            if forward.labels[u].stamp == gen { forward.labels[u].stamp = 0; waiting -= 1 }
            for k in Int(g.firstIn[u])..<Int(g.firstIn[u + 1]) {
                let e = Int(g.inEdge[k]), x = Int(g.tail[e]), nd = plus(d, g.timeMs[e])
                if backward.improve(x, to: nd, edge: UInt32(e), from: u, gen: gen) {
                    lengthB[x] = plus(lengthB[u], g.lengthDm[e])
                    backward.heap.push(nd, x)
                }
            }
        }
        settled = count
    }

    /// Many-to-one on the contraction hierarchy, in two phases.
    ///
    /// 1. From the planted pickup seeds, an upward Dijkstra along the `down` arcs (the
    ///    backward half of a hierarchy query) to the time limit: the upward distance to the
    ///    pickup of every node in its search space.
    /// 2. From each cab seed, a depth-first walk up the `up` arcs that computes, once per
    ///    node and shared by all cabs, `cost(v) = min(upward distance of v, min over arcs
    ///    v → x of weight + cost(x))`: a node's value is final when all its higher
    ///    neighbours' are. Every shortest path in a hierarchy climbs then descends, so
    ///    this is the exact fastest time from v.
    ///
    /// Why not one hierarchy query per cab: 50 cabs near one pickup climb into the same few
    /// hundred top nodes, so the shared walk does each once, with no heap at all (a RPHAST
    /// selection without its sort, since the walk's post-order already is a topological
    /// order of the arcs it uses).
    func hierarchyToTarget(limit: UInt32, gen: UInt32) {
        let ch = network.hierarchies[Metric.time.index]
        // Each phase runs in one call on the search arrays passed inout: one exclusive access
        // to the router's storage per phase instead of one per array element.
        settledNodes.removeAll(keepingCapacity: true)
        var count = ch.settleUpwards(&backward, lengths: &lengthB, originalLengths: network.lengthDm, limit: limit, gen: gen,
                                     settled: &settledNodes)
        count += ch.walkUp(from: cabSeeds, memo: &forward, lengths: &lengthF, target: backward, targetLengths: lengthB,
                           originalLengths: network.lengthDm, stack: &walkStack, gen: gen)
        settled = count
    }

    /// The share of edge e driven from a snapped point to its head (leaving) or from its
    /// tail to the point (arriving).
    func share(of s: Snap, leaving: Bool, along e: Int) -> Double {
        let toHead = network.edgePiece[e] & RoadNetwork.reversedBit != 0 ? s.fraction : 1 - s.fraction
        return leaving ? toHead : 1 - toHead
    }
}
