import Foundation
import Geodesy
import Essentials
import SpatialIndex

/// The two costs a route can minimise.
public enum Metric: String, Sendable, CaseIterable {
    /// Travel time (milliseconds on edges, seconds in answers).
    case time
    /// Length (decimetres on edges, metres in answers).
    case distance

    /// Its slot in the network's arrays kept per metric (`hierarchies`, `heuristicScale`).
    var index: Int { self == .time ? 0 : 1 }
}

/// An immutable road network ready for routing: junctions, directed edges as flat arrays
/// (forward and backward CSR), each edge's geometry and street name, and a contraction
/// hierarchy per metric.
///
/// `Sendable` because it is a value of arrays that are never mutated after construction:
/// any number of threads may route on one shared network, each with its own
/// `RouteWorkspace`.
///
/// Units: edge weights are integers so every algorithm adds exactly the same numbers and
/// their answers can be compared for equality — length in decimetres, time in
/// milliseconds, each rounded to the nearest unit so that a route's cost carries no bias
/// that grows with its edge count (see `EdgeCosts` for the one exception, which keeps
/// the straight-line heuristic admissible).
public struct RoadNetwork: Sendable {
    // Nodes (junctions; a junction split for turn restrictions has one node per way in).
    /// Latitude and longitude in 1e-7 degrees, as OSM stores them.
    var latE7: [Int32]
    var lonE7: [Int32]

    // Edges, sorted by tail: edge e runs tail[e] → head[e].
    var firstOut: [UInt32]
    var head: [UInt32]
    var tail: [UInt32]
    var lengthDm: [UInt32]
    var timeMs: [UInt32]
    /// The part of each edge's `timeMs` that is the turn onto it, paid on entering the
    /// edge at its tail (empty when the network prices no turns: `CarProfile.turnCosts`).
    /// A route that starts partway along an edge pays none of it; one that ends partway
    /// pays all of it. See `Router.partialCost`.
    var turnMs: [UInt32] = []
    /// The piece of geometry an edge runs along; the top bit set means against the
    /// piece's point order.
    var edgePiece: [UInt32]
    // Backward CSR: the edges into node v are inEdge[firstIn[v] ..< firstIn[v + 1]].
    var firstIn: [UInt32]
    var inEdge: [UInt32]

    // Geometry pieces: points pieceStart[p] ..< pieceStart[p + 1], first and last being
    // the end nodes. Edges in both directions of one street share a piece.
    package internal(set) var pieceStart: [UInt32]
    var pointLatE7: [Int32]
    var pointLonE7: [Int32]
    /// Index into `names` (0 is the unnamed street "").
    var pieceName: [UInt32]
    /// The edges that run along piece p: pieceEdges[pieceEdgeStart[p] ..< pieceEdgeStart[p + 1]].
    var pieceEdgeStart: [UInt32]
    var pieceEdges: [UInt32]
    var names: [String]
    /// The pieces of toll ways (sorted) and each one's OSM way id: what a route pays for.
    var tollPieces: [UInt32] = []
    var tollWayIDs: [Int64] = []

    /// A contraction hierarchy per metric, in `Metric.allCases` order.
    var hierarchies: [ContractionHierarchy]

    // Derived at load, not stored: unit vectors for the A* heuristic, the heuristic's
    // scale per metric, and the snapping index.
    var unitX: [Double] = [], unitY: [Double] = [], unitZ: [Double] = []
    /// Cost units per metre of straight line that no edge beats, per metric.
    var heuristicScale: [Double] = [0, 0]
    var segments = SegmentTree()

    static let reversedBit: UInt32 = 1 << 31
    static let none = UInt32.max

    /// The OSM way id of piece `p` when it is a toll way (binary search of the sorted list).
    func tollWay(ofPiece p: UInt32) -> Int64? {
        var lo = 0, hi = tollPieces.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tollPieces[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        return lo < tollPieces.count && tollPieces[lo] == p ? tollWayIDs[lo] : nil
    }

    /// The street geometry, one polyline per piece (both directions of a street share one):
    /// what a map draws.
    package func streetPolylines() -> [[Coordinate]] {
        (0..<pieceCount).map { p in
            (Int(pieceStart[p])..<Int(pieceStart[p + 1])).map { i in
                Coordinate(unchecked: Double(pointLatE7[i]) / 1e7, Double(pointLonE7[i]) / 1e7)
            }
        }
    }

    /// How many pieces of toll ways the network has.
    public var tollPieceCount: Int { tollPieces.count }

    /// Junctions (search nodes).
    public var nodeCount: Int { latE7.count }
    /// Directed edges.
    public var edgeCount: Int { head.count }
    /// Geometry pieces (streets between junctions).
    public var pieceCount: Int { pieceName.count }

    /// The coordinate of node `v`.
    public func coordinate(ofNode v: Int) -> Coordinate {
        Coordinate(unchecked: Double(latE7[v]) * 1e-7, Double(lonE7[v]) * 1e-7)
    }

    @inline(__always) func weight(_ e: Int, _ metric: Metric) -> UInt32 {
        metric == .time ? timeMs[e] : lengthDm[e]
    }

    package func pointCoordinate(_ k: Int) -> Coordinate {
        Coordinate(unchecked: Double(pointLatE7[k]) * 1e-7, Double(pointLonE7[k]) * 1e-7)
    }

    /// Bytes held in memory by the network (arrays only).
    public var memoryBytes: Int {
        func b<T>(_ a: [T]) -> Int { a.count * MemoryLayout<T>.stride }
        var total = b(latE7) + b(lonE7) + b(firstOut) + b(head) + b(tail) + b(lengthDm) + b(timeMs) + b(turnMs) + b(edgePiece)
        total += b(firstIn) + b(inEdge) + b(pieceStart) + b(pointLatE7) + b(pointLonE7) + b(pieceName)
        total += b(pieceEdgeStart) + b(pieceEdges) + names.reduce(0) { $0 + $1.utf8.count + 16 }
        total += hierarchies.reduce(0) { $0 + $1.memoryBytes }
        total += b(unitX) * 3 + segments.memoryBytes
        return total
    }

    /// Fills the derived arrays: unit vectors, heuristic scales and the snapping index.
    mutating func prepare() {
        let n = nodeCount
        unitX = .init(repeating: 0, count: n); unitY = unitX; unitZ = unitX
        for v in 0..<n {
            (unitX[v], unitY[v], unitZ[v]) = Self.unitVector(latitude: Double(latE7[v]) * 1e-7, longitude: Double(lonE7[v]) * 1e-7)
        }
        // The heuristic multiplies the straight-line (chord) distance by the smallest ratio
        // cost / geometric length over all edges, so it never overestimates, whatever the
        // source of the weights (OSM or a CSV with its own lengths and times).
        var scale = [Double.infinity, Double.infinity]
        for p in 0..<pieceCount {
            let metres = pieceMetres(p)
            guard metres > 0 else { continue }
            for k in Int(pieceEdgeStart[p])..<Int(pieceEdgeStart[p + 1]) {
                let e = Int(pieceEdges[k])
                scale[0] = min(scale[0], Double(timeMs[e]) / metres)
                scale[1] = min(scale[1], Double(lengthDm[e]) / metres)
            }
        }
        // A margin for the chord-versus-haversine and rounding differences. The scale comes
        // from file data, so it is clamped: no real road costs more than 10 s or 10 m a metre
        // at its cheapest, and a lower bound may always be smaller.
        heuristicScale = scale.map { $0.isFinite ? min($0 * 0.999, Self.maximumHeuristicScale) : 0 }
        segments = SegmentTree(latE7: pointLatE7, lonE7: pointLonE7, lineStart: pieceStart)
        for i in hierarchies.indices { hierarchies[i].deriveShortcutLengths(lengthDm) }
    }

    /// The length of piece `p`'s polyline in metres (great-circle, point to point).
    func pieceMetres(_ p: Int) -> Double {
        Self.polylineMetres(latE7: pointLatE7, lonE7: pointLonE7, Int(pieceStart[p])..<Int(pieceStart[p + 1]))
    }

    /// The length in metres of the polyline through points `range` (great-circle, point to
    /// point).
    static func polylineMetres(latE7: [Int32], lonE7: [Int32], _ range: Range<Int>) -> Double {
        var metres = 0.0
        for k in range.dropLast() {
            metres += Coordinate(unchecked: Double(latE7[k]) * 1e-7, Double(lonE7[k]) * 1e-7)
                .distance(to: Coordinate(unchecked: Double(latE7[k + 1]) * 1e-7, Double(lonE7[k + 1]) * 1e-7))
        }
        return metres
    }

    /// The largest heuristic scale used (cost units per metre).
    static let maximumHeuristicScale = 10_000.0

    /// The point at `latitude`, `longitude` (degrees) on the unit sphere: the space of the
    /// straight-line heuristics, where the chord between two points bounds their distance.
    static func unitVector(latitude: Double, longitude: Double) -> (x: Double, y: Double, z: Double) {
        let φ = latitude * .pi / 180, λ = longitude * .pi / 180
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    /// Straight-line lower bound on the cost from node v to the point (x, y, z),
    /// saturating below `UInt32.max` (a lower bound may be smaller than the truth).
    @inline(__always) func heuristic(_ v: Int, _ x: Double, _ y: Double, _ z: Double, _ scale: Double) -> UInt32 {
        let dx = unitX[v] - x, dy = unitY[v] - y, dz = unitZ[v] - z
        let h = (dx * dx + dy * dy + dz * dz).squareRoot() * Earth.meanRadius * scale
        return h < 4e9 ? UInt32(h) : 4_000_000_000
    }
}

/// A network under construction, before components, CSR arrays and hierarchies.
struct NetworkDraft {
    var latE7: [Int32] = []
    var lonE7: [Int32] = []
    var pieceStart: [UInt32] = [0]
    var pointLatE7: [Int32] = []
    var pointLonE7: [Int32] = []
    var pieceName: [UInt32] = []
    var names: [String] = [""]
    var edges: [DraftEdge] = []
    /// The OSM way of each piece drawn along a toll way.
    var tollWay: [UInt32: Int64] = [:]

    struct DraftEdge {
        var tail: UInt32
        var head: UInt32
        var piece: UInt32  // with RoadNetwork.reversedBit when against the points
        /// Exact costs as the source gives them; rounded to integer units only when the
        /// network is built (`EdgeCosts`), so that no rule is applied twice.
        var lengthMetres: Double
        var timeSeconds: Double
        /// The part of `timeSeconds` that is the turn onto the edge, paid on entering it
        /// (`NetworkDraft.priceTurns`).
        var turnSeconds = 0.0
    }

    mutating func addNode(latE7: Int32, lonE7: Int32) -> UInt32 {
        self.latE7.append(latE7); self.lonE7.append(lonE7)
        return UInt32(self.latE7.count - 1)
    }

    mutating func addPiece(lat: some Sequence<Int32>, lon: some Sequence<Int32>, name: UInt32) -> UInt32 {
        pointLatE7.append(contentsOf: lat); pointLonE7.append(contentsOf: lon)
        pieceStart.append(UInt32(pointLatE7.count)); pieceName.append(name)
        return UInt32(pieceName.count - 1)
    }

    /// Pieces drawn from one node to another that carry one edge so far, waiting for the
    /// opposite edge: keyed by (first node, last node), the earliest in `unpaired` and any
    /// later ones (parallel rows) in `unpairedMore`, in the order they came. Why not an
    /// array per key: a million-row file allocated and freed one for nearly every street.
    var unpaired: [UInt64: UInt32] = [:], unpairedMore: [UInt64: [UInt32]] = [:]

    /// Frees the pieces still waiting for an opposite edge, once every edge is added: they
    /// stay one-way.
    mutating func stopPairing() { unpaired = [:]; unpairedMore = [:] }

    /// Adds one directed edge given as its own row (as CSV exports and the synthetic grid
    /// give them), drawn along `lat`/`lon` (E7, from its tail's point to its head's). When
    /// an edge runs the other way along the same geometry as an earlier single edge, both
    /// share that one piece, as an OSM two-way street does. Why: a point snapped onto a
    /// two-way street must be able to leave (and be reached) both ways, and a point on a
    /// junction must not be tied to one arbitrary row.
    mutating func addEdge(tail: UInt32, head: UInt32, lat: [Int32], lon: [Int32], lengthMetres: Double, timeSeconds: Double) {
        addEdge(tail: tail, head: head, along: lat, lon, lengthMetres: lengthMetres, timeSeconds: timeSeconds)
    }

    /// `addEdge(tail:head:lat:lon:lengthMetres:timeSeconds:)` for an edge drawn straight
    /// from its tail to its head, without building arrays for its two points.
    mutating func addStraightEdge(tail: UInt32, head: UInt32, lengthMetres: Double, timeSeconds: Double) {
        let lat = TwoPoints(latE7[Int(tail)], latE7[Int(head)]), lon = TwoPoints(lonE7[Int(tail)], lonE7[Int(head)])
        addEdge(tail: tail, head: head, along: lat, lon, lengthMetres: lengthMetres, timeSeconds: timeSeconds)
    }

    private mutating func addEdge<Points: RandomAccessCollection<Int32>>(tail: UInt32, head: UInt32, along lat: Points, _ lon: Points,
                                                                          lengthMetres: Double, timeSeconds: Double) {
        let back = UInt64(head) << 32 | UInt64(tail)
        // Whether piece p is drawn along the same points, the other way.
        func sameWayBack(_ p: UInt32) -> Bool {
            let a = Int(pieceStart[Int(p)]), b = Int(pieceStart[Int(p) + 1])
            return b - a == lat.count && zip(pointLatE7[a..<b].reversed(), lat).allSatisfy({ $0 == $1 })
                && zip(pointLonE7[a..<b].reversed(), lon).allSatisfy({ $0 == $1 })
        }
        if let first = unpaired[back] {
            var shared: UInt32?
            if sameWayBack(first) {
                shared = first
                if var more = unpairedMore[back] {
                    unpaired[back] = more.removeFirst()
                    unpairedMore[back] = more.isEmpty ? nil : more
                } else {
                    unpaired[back] = nil
                }
            } else if var more = unpairedMore[back], let k = more.firstIndex(where: sameWayBack) {
                shared = more.remove(at: k)
                unpairedMore[back] = more.isEmpty ? nil : more
            }
            if let p = shared {
                edges.append(.init(tail: tail, head: head, piece: p | RoadNetwork.reversedBit, lengthMetres: lengthMetres, timeSeconds: timeSeconds))
                return
            }
        }
        let p = addPiece(lat: lat, lon: lon, name: 0), key = UInt64(tail) << 32 | UInt64(head)
        if unpaired[key] == nil { unpaired[key] = p } else { unpairedMore[key, default: []].append(p) }
        edges.append(.init(tail: tail, head: head, piece: p, lengthMetres: lengthMetres, timeSeconds: timeSeconds))
    }

    /// An edge's two points, as a collection that needs no allocation.
    private struct TwoPoints: RandomAccessCollection {
        let atTail: Int32, atHead: Int32
        init(_ atTail: Int32, _ atHead: Int32) { self.atTail = atTail; self.atHead = atHead }
        var startIndex: Int { 0 }
        var endIndex: Int { 2 }
        subscript(i: Int) -> Int32 { i == 0 ? atTail : atHead }
    }
}

/// What building a network kept and dropped.
public struct BuildReport: Sendable, Equatable {
    /// Nodes and directed edges in the largest strongly connected component, which is kept.
    public var nodes = 0, edges = 0
    /// Smaller components dropped, and their nodes.
    public var droppedComponents = 0, droppedNodes = 0
    /// Shortcuts added by the contraction hierarchies (both metrics).
    public var shortcuts = 0
    /// Shortcuts per metric, in `Metric.allCases` order.
    public var shortcutsPerMetric: [Int] = []
    /// Each phase of the import and its wall-clock seconds, in the order they ran (the two
    /// metrics' contractions run at once, one per core).
    public var phases: [Phase] = []
    /// Turn restrictions applied, and those skipped (via ways, ways outside the extract…).
    public var restrictionsApplied = 0, restrictionsSkipped = 0
    /// Ways whose posted `maxspeed` was below the profile's minimum and was replaced by
    /// the class default.
    public var implausibleSpeeds = 0

    /// One phase of an import and how long it took.
    public struct Phase: Sendable, Equatable {
        /// What ran: "nodes", "edges", "ways", "layout", "contraction (time)"…
        public var name: String
        /// Wall-clock seconds.
        public var seconds: Double
        /// The process's peak resident memory when the phase ended, in bytes (Linux's
        /// `VmHWM`; nil where the system does not say).
        public var peakBytes: Int?

        /// A phase that ended now: its peak memory is read from the system.
        package init(name: String, seconds: Double, peakBytes: Int? = Self.peakResidentBytes()) {
            self.name = name; self.seconds = seconds; self.peakBytes = peakBytes
        }

        /// The process's peak resident memory so far, from `/proc/self/status`.
        package static func peakResidentBytes() -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                  let kB = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
            return kB * 1024
        }
    }

    /// Records the phase `name` as ending now, timed from `start`, and restarts `start` for
    /// the next phase: the one way every import times its phases.
    mutating func endPhase(_ name: String, startedAt start: inout ContinuousClock.Instant) {
        let now = ContinuousClock.now
        phases.append(Phase(name: name, seconds: (now - start).inSeconds))
        start = now
    }
}


extension RoadNetwork {
    /// Keeps the largest strongly connected component of a draft, lays it out as CSR
    /// arrays and contracts it for both metrics, telling `progress` how far contraction
    /// has got (the mean of the two metrics' shares).
    /// The draft is left empty: its arrays are released before contraction (at a million
    /// nodes, hundreds of megabytes of the import's peak).
    init(emptying draft: inout NetworkDraft, report: inout BuildReport, progress: ImportProgress? = nil) {
        var phaseStart = ContinuousClock.now
        let n = draft.latE7.count
        let component = StrongComponents.largest(nodeCount: n, edges: draft.edges)
        var newIndex = [UInt32](repeating: Self.none, count: n)
        var kept = 0
        for v in 0..<n where component.member[v] {
            newIndex[v] = UInt32(kept); kept += 1
        }
        report.droppedComponents = component.count - (n > 0 ? 1 : 0)
        report.droppedNodes = n - kept
        latE7 = []; lonE7 = []
        latE7.reserveCapacity(kept); lonE7.reserveCapacity(kept)
        for v in 0..<n where component.member[v] { latE7.append(draft.latE7[v]); lonE7.append(draft.lonE7[v]) }

        var edges = draft.edges.filter { newIndex[Int($0.tail)] != Self.none && newIndex[Int($0.head)] != Self.none }
        for i in edges.indices {
            edges[i].tail = newIndex[Int(edges[i].tail)]; edges[i].head = newIndex[Int(edges[i].head)]
        }
        // Counting sort by tail keeps the draft's order within a node (deterministic files).
        var first = [UInt32](repeating: 0, count: kept + 1)
        for e in edges { first[Int(e.tail) + 1] += 1 }
        for v in 0..<kept { first[v + 1] += first[v] }
        var slot = first
        var order = [Int](repeating: 0, count: edges.count)
        for (i, e) in edges.enumerated() { order[Int(slot[Int(e.tail)])] = i; slot[Int(e.tail)] += 1 }
        firstOut = first
        head = order.map { edges[$0].head }
        tail = order.map { edges[$0].tail }
        var exactLength = order.map { edges[$0].lengthMetres }, exactTime = order.map { edges[$0].timeSeconds }
        var exactTurn = edges.contains { $0.turnSeconds > 0 } ? order.map { edges[$0].turnSeconds } : []
        var draftPiece = order.map { edges[$0].piece }
        edges = []; order = []

        // Only pieces some kept edge runs along survive, renumbered in order.
        var pieceIndex = [UInt32](repeating: Self.none, count: draft.pieceName.count)
        for p in draftPiece { pieceIndex[Int(p & ~Self.reversedBit)] = 0 }
        pieceStart = [0]; pointLatE7 = []; pointLonE7 = []; pieceName = []
        var nameIndex = [UInt32](repeating: Self.none, count: draft.names.count)
        names = [""]; nameIndex[0] = 0
        for p in 0..<draft.pieceName.count where pieceIndex[p] != Self.none {
            pieceIndex[p] = UInt32(pieceName.count)
            let r = Int(draft.pieceStart[p])..<Int(draft.pieceStart[p + 1])
            pointLatE7 += draft.pointLatE7[r]; pointLonE7 += draft.pointLonE7[r]
            pieceStart.append(UInt32(pointLatE7.count))
            let d = Int(draft.pieceName[p])
            if nameIndex[d] == Self.none { nameIndex[d] = UInt32(names.count); names.append(draft.names[d]) }
            pieceName.append(nameIndex[d])
            if let way = draft.tollWay[UInt32(p)] { tollPieces.append(pieceIndex[p]); tollWayIDs.append(way) }
        }
        draft = NetworkDraft()
        edgePiece = draftPiece.map { pieceIndex[Int($0 & ~Self.reversedBit)] | ($0 & Self.reversedBit) }
        draftPiece = []
        pieceEdgeStart = [UInt32](repeating: 0, count: pieceName.count + 1)
        for p in edgePiece { pieceEdgeStart[Int(p & ~Self.reversedBit) + 1] += 1 }
        for p in 0..<pieceName.count { pieceEdgeStart[p + 1] += pieceEdgeStart[p] }
        var pieceSlot = pieceEdgeStart
        pieceEdges = [UInt32](repeating: 0, count: edgePiece.count)
        for (e, p) in edgePiece.enumerated() {
            let q = Int(p & ~Self.reversedBit)
            pieceEdges[Int(pieceSlot[q])] = UInt32(e); pieceSlot[q] += 1
        }

        // Costs to integer units, once the geometry each edge runs along is known.
        let (starts, lats, lons) = (pieceStart, pointLatE7, pointLonE7)
        do {
            let pieceLength = (0..<pieceName.count).map { Self.polylineMetres(latE7: lats, lonE7: lons, Int(starts[$0])..<Int(starts[$0 + 1])) }
            let metres = edgePiece.map { pieceLength[Int($0 & ~Self.reversedBit)] }
            lengthDm = EdgeCosts.units(exactLength, perValue: 10, metres: metres)
            timeMs = EdgeCosts.units(exactTime, perValue: 1000, metres: metres)
            // A turn's part, to the nearest millisecond, never more than the edge's whole time.
            let times = timeMs
            turnMs = zip(exactTurn, times).map { min($1, UInt32(($0 * 1000).rounded())) }
        }
        // Released here, not at the end of the function: contraction comes next.
        exactLength = []; exactTime = []; exactTurn = []

        firstIn = [UInt32](repeating: 0, count: kept + 1)
        for h in head { firstIn[Int(h) + 1] += 1 }
        for v in 0..<kept { firstIn[v + 1] += firstIn[v] }
        var inSlot = firstIn
        inEdge = [UInt32](repeating: 0, count: head.count)
        for e in head.indices { let h = Int(head[e]); inEdge[Int(inSlot[h])] = UInt32(e); inSlot[h] += 1 }

        report.endPhase("layout", startedAt: &phaseStart)

        // Three jobs on the two cores: each metric's contraction, and the distance metric's
        // landmarks (the time metric has none: `LandmarkTable.count`), which need only the
        // graph. Dispatch hands the jobs out in order, so the landmarks start on the core the
        // first contraction to finish frees: the time metric's, a third of the way through
        // the distance metric's on the 1M grid, where the landmarks used to follow it.
        let (tails, heads, weights, nodes) = (tail, head, [timeMs, lengthDm], kept)
        let (latitudes, longitudes) = (latE7, lonE7)
        let adjacency = LandmarkGraph(firstOut: firstOut, head: head, firstIn: firstIn, inEdge: inEdge, tail: tail)
        let landmarkCounts = Metric.allCases.map(LandmarkTable.count(for:))
        enum Job { case contract(Int), landmarks(Int) }
        // The longer contraction first (distance: `Metric.allCases` is time, distance).
        let jobs: [Job] = Metric.allCases.indices.reversed().map { .contract($0) }
            + Metric.allCases.indices.filter { landmarkCounts[$0] > 0 }.map { .landmarks($0) }
        var built = [ContractionHierarchy](repeating: ContractionHierarchy(), count: weights.count)
        var tables = [LandmarkTable](repeating: LandmarkTable(), count: weights.count)
        var seconds = [Double](repeating: 0, count: weights.count), landmarkSeconds = seconds
        // Each metric's share done; the caller hears their mean, one call at a time.
        let shares = Locked([Double](repeating: 0, count: weights.count))
        let sharing = CoreSharing(jobs: jobs.count)
        nonisolated(unsafe) let tell = progress  // called only under `shares`' lock
        built.withUnsafeMutableBufferPointer { buffer in
          tables.withUnsafeMutableBufferPointer { tableBuffer in
            seconds.withUnsafeMutableBufferPointer { secondsBuffer in
              landmarkSeconds.withUnsafeMutableBufferPointer { landmarkBuffer in
                // Each job writes only its own slots.
                nonisolated(unsafe) let (out, table, took, tookLandmarks) = (buffer, tableBuffer, secondsBuffer, landmarkBuffer)
                DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
                    defer { sharing.finish() }
                    let start = ContinuousClock.now
                    switch jobs[job] {
                    case .contract(let i):
                        // Each metric's own share is told as well as their mean: the mean alone
                        // hid which metric was still at work.
                        let share = { @Sendable (done: Double) in
                            shares.withLock { s in
                                s[i] = done
                                let each = zip(Metric.allCases, s).map { "\($0.rawValue) \(Int($1 * 100)) %" }
                                tell?("contracting (\(each.joined(separator: ", ")))", s.reduce(0, +) / Double(s.count))
                            }
                        }
                        let positions = ContractionHierarchy.lowerBoundPositions(latE7: latitudes, lonE7: longitudes, tail: tails,
                                                                                 head: heads, weight: weights[i])
                        out[i] = ContractionHierarchy(nodeCount: nodes, tail: tails, head: heads, weight: weights[i],
                                                      limits: .for(Metric.allCases[i]), positions: positions, sharing: sharing,
                                                      progress: share)
                        share(1)
                        took[i] = (ContinuousClock.now - start).inSeconds
                    case .landmarks(let i):
                        table[i] = LandmarkTable(count: landmarkCounts[i], graph: adjacency, weight: weights[i])
                        tookLandmarks[i] = (ContinuousClock.now - start).inSeconds
                    }
                }
              }
            }
          }
        }
        for i in built.indices where tables[i].count > 0 {
            tables[i].reorder(byRank: built[i].rank)
            swap(&built[i].landmarks, &tables[i])
        }
        hierarchies = built
        for (i, metric) in Metric.allCases.enumerated() {
            report.phases.append(.init(name: "contraction (\(metric.rawValue))", seconds: seconds[i]))
            if landmarkCounts[i] > 0 { report.phases.append(.init(name: "landmarks (\(metric.rawValue))", seconds: landmarkSeconds[i])) }
        }
        report.nodes = kept
        report.edges = head.count
        report.shortcutsPerMetric = hierarchies.map(\.shortcutCount)
        report.shortcuts = report.shortcutsPerMetric.reduce(0, +)
        phaseStart = ContinuousClock.now
        prepare()
        report.endPhase("snapping index", startedAt: &phaseStart)
    }
}

/// Strongly connected components (Tarjan's algorithm, iterative so deep road chains
/// cannot overflow the stack).
enum StrongComponents {
    struct Largest { var member: [Bool]; var count: Int }

    static func largest(nodeCount n: Int, edges: [NetworkDraft.DraftEdge]) -> Largest {
        var first = [Int](repeating: 0, count: n + 1)
        for e in edges { first[Int(e.tail) + 1] += 1 }
        for v in 0..<n { first[v + 1] += first[v] }
        var next = first
        var adj = [Int](repeating: 0, count: edges.count)
        for e in edges { adj[next[Int(e.tail)]] = Int(e.head); next[Int(e.tail)] += 1 }

        var index = [Int](repeating: -1, count: n), low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n), comp = [Int](repeating: -1, count: n)
        var stack: [Int] = [], call: [(v: Int, k: Int)] = []
        var counter = 0, components = 0
        var sizes: [Int] = []
        for root in 0..<n where index[root] < 0 {
            call.append((root, first[root]))
            index[root] = counter; low[root] = counter; counter += 1
            stack.append(root); onStack[root] = true
            while let (v, k) = call.last {
                if k < first[v + 1] {
                    call[call.count - 1].k += 1
                    let w = adj[k]
                    if index[w] < 0 {
                        index[w] = counter; low[w] = counter; counter += 1
                        stack.append(w); onStack[w] = true
                        call.append((w, first[w]))
                    } else if onStack[w] {
                        low[v] = min(low[v], index[w])
                    }
                    continue
                }
                call.removeLast()
                if let parent = call.last { low[parent.v] = min(low[parent.v], low[v]) }
                if low[v] == index[v] {
                    var size = 0
                    while true {
                        let w = stack.removeLast()
                        onStack[w] = false; comp[w] = components; size += 1
                        if w == v { break }
                    }
                    sizes.append(size); components += 1
                }
            }
        }
        let best = sizes.indices.max { sizes[$0] < sizes[$1] } ?? -1
        return Largest(member: comp.map { $0 == best }, count: components)
    }
}

extension RoadNetwork {
    /// A network from nodes and directed edges given one row per direction, each drawn
    /// straight between its nodes (opposite rows share a piece, as in `importCSV`). For the
    /// test kit's synthetic cities; files go through `importCSV`.
    package static func build(nodes: [Coordinate], edges: [(from: Int, to: Int, lengthMetres: Double, timeSeconds: Double)]) -> (RoadNetwork, BuildReport) {
        var d = NetworkDraft()
        for c in nodes { _ = d.addNode(latE7: Int32((c.latitude * 1e7).rounded()), lonE7: Int32((c.longitude * 1e7).rounded())) }
        for e in edges where e.from != e.to && nodes.indices.contains(e.from) && nodes.indices.contains(e.to) {
            d.addStraightEdge(tail: UInt32(e.from), head: UInt32(e.to), lengthMetres: e.lengthMetres, timeSeconds: e.timeSeconds)
        }
        d.stopPairing()
        var report = BuildReport()
        return (RoadNetwork(emptying: &d, report: &report), report)
    }
}
