import Foundation
import Testing
import Workloads
import Geodesy
import OSM
import BinaryFile
import TestSupport
@testable import RoadGraph

/// A textbook Dijkstra written apart from the router, the oracle every algorithm must
/// match: its own adjacency (from the edge arrays), its own seeds (from a scan of every
/// edge) and its own heap.
struct OracleDijkstra {
    let g: RoadNetwork
    let adjacency: [[Int]]

    init(_ g: RoadNetwork) {
        self.g = g
        var adj = [[Int]](repeating: [], count: g.nodeCount)
        for e in 0..<g.edgeCount { adj[Int(g.tail[e])].append(e) }
        adjacency = adj
    }

    func cost(_ s: Snap, _ t: Snap, _ metric: Metric) -> UInt32? {
        func w(_ e: Int) -> UInt32 { metric == .time ? g.timeMs[e] : g.lengthDm[e] }
        func part(_ x: Double, _ e: Int) -> UInt32 { UInt32((max(0, x) * Double(w(e))).rounded(.toNearestOrEven)) }
        var dist = [UInt64](repeating: .max, count: g.nodeCount)
        // A sorted array (largest first) as the queue: slow but obviously right.
        var heap: [(UInt64, Int)] = []
        func push(_ c: UInt64, _ v: Int) {
            var lo = 0, hi = heap.count
            while lo < hi { let m = (lo + hi) / 2; if heap[m].0 > c { lo = m + 1 } else { hi = m } }
            heap.insert((c, v), at: lo)
        }
        var best = UInt64.max
        var arrive: [Int: UInt64] = [:]
        for e in 0..<g.edgeCount {
            let piece = Int(g.edgePiece[e] & ~RoadNetwork.reversedBit), reversed = g.edgePiece[e] & RoadNetwork.reversedBit != 0
            if piece == s.piece {
                let c = UInt64(part(reversed ? s.fraction : 1 - s.fraction, e)), v = Int(g.head[e])
                if c < dist[v] { dist[v] = c; push(c, v) }
            }
            if piece == t.piece {
                let c = UInt64(part(reversed ? 1 - t.fraction : t.fraction, e)), v = Int(g.tail[e])
                arrive[v] = min(arrive[v] ?? .max, c)
            }
            // A point on a piece's end is at that junction.
            let first = Int(reversed ? g.head[e] : g.tail[e]), last = Int(reversed ? g.tail[e] : g.head[e])
            if piece == s.piece, s.fraction == 0 || s.fraction == 1 {
                let v = s.fraction == 0 ? first : last
                dist[v] = 0; push(0, v)
            }
            if piece == t.piece, t.fraction == 0 || t.fraction == 1 { arrive[t.fraction == 0 ? first : last] = 0 }
            if piece == s.piece && piece == t.piece {
                let ahead = reversed ? s.fraction - t.fraction : t.fraction - s.fraction
                if ahead >= 0 { best = min(best, UInt64(part(ahead, e))) }
            }
        }
        while !heap.isEmpty {
            let (d, u) = heap.removeLast()
            guard d == dist[u] else { continue }
            if let a = arrive[u] { best = min(best, d + a) }
            for e in adjacency[u] {
                let x = Int(g.head[e]), nd = d + UInt64(w(e))
                if nd < dist[x] { dist[x] = nd; push(nd, x) }
            }
        }
        return best == .max ? nil : UInt32(best)
    }
}

func importReal(_ relative: String) throws -> RoadNetwork {
    try RoadNetwork.importOSM(path: SharedData.path(relative)).0
}

/// The length of a polyline, in metres.
func length(_ line: [Coordinate]) -> Double {
    zip(line, line.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
}

@Suite struct RealCityRoutingTests {
    /// 1,000 seeded pairs per city and metric: Dijkstra, A* and the hierarchy all return
    /// the oracle's cost; the route's geometry runs between the snapped ends and is as
    /// long as its reported distance.
    func checkAgainstOracle(_ g: RoadNetwork, pairs: Int, seed: UInt64) throws {
        let oracle = OracleDijkstra(g)
        let router = Router(network: g)
        var routed = 0
        // Random points near roads, plus junctions themselves (snapped onto a piece's end).
        var rng = SeededRandom(seed: seed)
        let junctions = (0..<100).map { _ in (g.coordinate(ofNode: Int.random(in: 0..<g.nodeCount, using: &rng)),
                                               g.coordinate(ofNode: Int.random(in: 0..<g.nodeCount, using: &rng))) }
        for (a, b) in g.randomPairs(pairs, seed: seed) + junctions {
            let s = try router.snap(a), t = try router.snap(b)
            for metric in Metric.allCases {
                let expected = oracle.cost(s, t, metric)
                for algorithm in RoutingAlgorithm.allCases {
                    let r = try? router.route(from: s, to: t, metric: metric, algorithm: algorithm)
                    #expect(r?.cost == expected, "\(algorithm) \(metric) \(a) → \(b)")
                    guard let r else { continue }
                    routed += 1
                    #expect(r.geometry.first == s.coordinate && r.geometry.last == t.coordinate)
                    let drawn = length(r.geometry)
                    // Each edge length is rounded to the decimetre; the snapped fractions are planar.
                    #expect(abs(drawn - r.distanceMetres) <= 0.1 * Double(r.geometry.count) + 0.002 * drawn, "drawn \(drawn) m, reported \(r.distanceMetres) m")
                    if metric == .time { #expect(abs(r.durationSeconds - Double(r.cost) / 1000) < 1e-9) }
                }
            }
        }
        #expect(routed > pairs * 5)  // nearly every pair has a route in a strongly connected graph
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoMatchesDijkstra() throws {
        try checkAgainstOracle(try importReal("monaco/monaco.osm.pbf"), pairs: 1000, seed: 42)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func helsinkiMatchesDijkstra() throws {
        try checkAgainstOracle(try importReal("helsinki/helsinki.osm.pbf"), pairs: 1000, seed: 7)
    }

    /// No route drives a private way, or a one-way street against its direction: checked
    /// on the drawn geometry against the ways as libosmium-verified OSM gives them.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoRoutesKeepOneWaysAndAvoidPrivateRoads() throws {
        let path = SharedData.path("monaco/monaco.osm.pbf")
        var ways: [OSMWay] = [], coordinates: [Int64: SIMD2<Int32>] = [:]
        try PBFReader(path: path).forEachBlock { b in
            ways += b.ways.filter { $0.tags["highway"] != nil }
            for n in b.nodes { coordinates[n.id] = SIMD2(Int32((n.latitude * 1e7).rounded()), Int32((n.longitude * 1e7).rounded())) }
        }
        var forbidden = Set<SIMD4<Int32>>()  // consecutive point pairs no route may drive
        var privateWays = 0, oneWays = 0
        for w in ways {
            let isPrivate = ["private", "no"].contains(w.tags["access"] ?? "") && w.tags["motorcar"] == nil && w.tags["motor_vehicle"] == nil
            let oneway = w.tags["oneway"] == "yes"
            guard isPrivate || oneway else { continue }
            if isPrivate { privateWays += 1 } else { oneWays += 1 }
            let pts = w.nodes.compactMap { coordinates[$0] }
            for (a, b) in zip(pts, pts.dropFirst()) {
                forbidden.insert(SIMD4(b.x, b.y, a.x, a.y))
                if isPrivate { forbidden.insert(SIMD4(a.x, a.y, b.x, b.y)) }
            }
        }
        #expect(privateWays > 50 && oneWays > 300)
        let g = try RoadNetwork.importOSM(path: path).0
        let router = Router(network: g)
        var checkedSegments = 0
        for (a, b) in g.randomPairs(500, seed: 3) {
            let r = try router.route(from: a, to: b)
            let e7 = r.geometry.dropFirst().dropLast().map { SIMD2(Int32(($0.latitude * 1e7).rounded()), Int32(($0.longitude * 1e7).rounded())) }
            for (p, q) in zip(e7, e7.dropFirst()) {
                checkedSegments += 1
                let wrong = forbidden.contains(SIMD4(p.x, p.y, q.x, q.y))
                #expect(!wrong, "route \(a) → \(b) drives \(p) → \(q) against a one-way or on a private way")
            }
        }
        #expect(checkedSegments > 10_000)
    }

    /// The one-to-many ETAs, with either algorithm, are exactly the one-to-one fastest
    /// routes, and the time limit cuts off exactly the cabs slower than it.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage), arguments: ETAAlgorithm.allCases)
    func etasEqualOneToOneRoutes(algorithm: ETAAlgorithm) throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        let router = Router(network: g)
        let cabs = g.randomPairs(50, seed: 9).map(\.0)
        for (pickup, _) in g.randomPairs(20, seed: 10) {
            for limit in [1800.0, 120] {
                let etas = try router.etas(to: pickup, from: cabs, limitSeconds: limit, algorithm: algorithm)
                for (cab, eta) in zip(cabs, etas) {
                    let r = try router.route(from: cab, to: pickup, metric: .time)
                    if r.durationSeconds <= limit {
                        #expect(eta?.seconds == r.durationSeconds)
                        #expect(abs((eta?.metres ?? 0) - r.distanceMetres) < 0.05 * r.distanceMetres + 1)
                    } else {
                        #expect(eta == nil)
                    }
                }
            }
        }
    }

    /// The hierarchy's many-to-one against the textbook Dijkstra (its own adjacency and
    /// heap), on Monaco: 5 pickups × 50 cabs, every cab the same answer in milliseconds.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func hierarchyETAsMatchTheTextbookDijkstra() throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        try expectETAsMatchOracle(g, cabs: 50, pickups: 5, seed: 21)
    }

    /// The test kit's bundled (Monaco) graph is not needed for this one: a 20,000-node
    /// perturbed grid with one-way streets, where each cab's search space differs more.
    @Test func hierarchyETAsMatchTheTextbookDijkstraOnAGrid() throws {
        let (g, _) = SyntheticGrid(nodes: 20_000, seed: 4).network()
        try expectETAsMatchOracle(g, cabs: 40, pickups: 3, seed: 22)
    }

    /// The matcher's many-to-many table (buckets on the hierarchy) against the textbook
    /// Dijkstra, pair by pair: sources × targets, each pair the same milliseconds, twice
    /// 8 × 11 on Monaco; and a time limit cuts off exactly the pairs slower than it.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func manyToManyTableMatchesTheTextbookDijkstra() throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        try expectTableMatchesOracle(g, seed: 31)
        try expectTableMatchesOracle(g, seed: 32)
    }

    private func expectTableMatchesOracle(_ g: RoadNetwork, seed: UInt64) throws {
        let router = Router(network: g), oracle = OracleDijkstra(g)
        let pairs = g.randomPairs(8, seed: seed)
        let sources = try pairs.map { try router.snap($0.0) }, targets = try pairs.map { try router.snap($0.1) }
        // Targets on the sources' own streets too: the direct way along one piece.
        let near = try sources.prefix(3).map { s in
            let ahead = g.pointCoordinate(s.segment + 1)
            return try router.snap(Coordinate(unchecked: (s.coordinate.latitude + ahead.latitude) / 2, (s.coordinate.longitude + ahead.longitude) / 2))
        }
        let allTargets = targets + near
        let truths = sources.map { s in allTargets.map { t in oracle.cost(s, t, .time) } }
        for limit in [1e9, 90] {
            let table = router.table(from: sources, to: allTargets, limitSeconds: limit)
            // The plain Dijkstra's table (for short steps), with no length bound: the same.
            var local: [Router.TableCell] = []
            router.localTable(from: sources[...], to: allTargets[...], limitSeconds: limit, maxLengthDm: .max, into: &local)
            var cut = 0, kept = 0
            for i in sources.indices {
                for j in allTargets.indices {
                    let truth = truths[i][j].flatMap { Double($0) <= limit * 1000 ? $0 : nil }
                    let answer = table[i * allTargets.count + j]
                    #expect(answer.map { UInt32(($0.seconds * 1000).rounded()) } == truth, "\(i) → \(j) within \(limit) s")
                    let cell = local[i * allTargets.count + j]
                    #expect((cell.ms == .max ? nil : cell.ms) == truth, "local \(i) → \(j) within \(limit) s")
                    expectPathFollows(router, cell: i * allTargets.count + j, from: sources[i], to: allTargets[j], ms: cell.ms)
                    if truth == nil { cut += 1 } else { kept += 1 }
                }
            }
            #expect(kept > 0)
            if limit < 1000 { #expect(cut > 0) }
        }
        // With a length bound: every pair whose fastest route is shorter is still exact;
        // the others are either not found or found along a slower route whose two halves
        // (up from the source, up from the target) are each within the bound.
        let maxLength = 12_000.0  // dm
        var cells: [Router.TableCell] = []
        router.table(from: sources[...], to: allTargets[...], limitSeconds: 1e9, maxLengthDm: UInt32(maxLength), into: &cells)
        // The plain Dijkstra's: a route found is never longer than the bound.
        var local: [Router.TableCell] = []
        router.localTable(from: sources[...], to: allTargets[...], limitSeconds: 1e9, maxLengthDm: UInt32(maxLength), into: &local)
        var within = 0, beyond = 0
        for (i, s) in sources.enumerated() {
            for (j, t) in allTargets.enumerated() {
                let cell = cells[i * allTargets.count + j], localCell = local[i * allTargets.count + j]
                guard let fastest = try? router.route(from: s, to: t) else {
                    #expect(cell.ms == .max && localCell.ms == .max)
                    continue
                }
                if fastest.distanceMetres * 10 < maxLength - 10 {
                    #expect(cell.ms == truths[i][j], "\(i) → \(j) within \(maxLength) dm")
                    #expect(localCell.ms == truths[i][j], "local \(i) → \(j) within \(maxLength) dm")
                    within += 1
                } else {
                    #expect(cell.ms == .max || (Double(cell.dm) <= 2 * maxLength && cell.ms >= truths[i][j] ?? 0))
                    #expect(localCell.ms == .max || (Double(localCell.dm) <= maxLength && localCell.ms >= truths[i][j] ?? 0))
                    beyond += 1
                }
            }
        }
        #expect(within > 0 && beyond > 0)
        // A smaller table after the larger ones (its scratch arrays are kept and never
        // shrink): the same cells, each with its own route, none of the larger's left over.
        let few = Array(allTargets.suffix(2))
        var small: [Router.TableCell] = []
        router.localTable(from: sources[1..<2], to: few[...], limitSeconds: 1e9, maxLengthDm: .max, into: &small)
        #expect(small.count == few.count)
        for (j, cell) in small.enumerated() {
            #expect((cell.ms == .max ? nil : cell.ms) == truths[1][allTargets.count - 2 + j], "small 1 → \(j)")
            expectPathFollows(router, cell: j, from: sources[1], to: few[j], ms: cell.ms)
        }
    }

    @Test("the plain many-to-many searched in a given order, leaving out targets a source cannot serve: the wanted cells exact, the rest without a route",
          .enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func localTableWithPruning() throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        let router = Router(network: g)
        let pairs = g.randomPairs(6, seed: 33)
        let sources = try pairs.map { try router.snap($0.0) }, targets = try pairs.map { try router.snap($0.1) }
        var full: [Router.TableCell] = []
        router.localTable(from: sources[...], to: targets[...], limitSeconds: 1e9, maxLengthDm: .max, into: &full)
        #expect(full.contains { $0.ms != .max })
        // Rows backwards; row 1 wants every other target, row 3 none (not searched).
        func wants(_ i: Int, _ j: Int) -> Bool { i == 3 ? false : i == 1 ? j.isMultiple(of: 2) : true }
        var pruned: [Router.TableCell] = [], done: [Int] = []
        router.localTable(from: sources[...], to: targets[...], limitSeconds: 1e9, maxLengthDm: .max, into: &pruned,
                          order: Array(sources.indices.reversed()),
                          wanted: { i, wanted in for j in targets.indices { wanted[j] = wants(i, j) } },
                          rowDone: { i, cells in
                              done.append(i)
                              #expect(cells.count == targets.count)
                              for (j, cell) in zip(targets.indices, cells) {
                                  #expect(cell.ms == (wants(i, j) ? full[i * targets.count + j].ms : .max), "row \(i), target \(j)")
                              }
                          })
        #expect(done == [5, 4, 2, 1, 0], "rows in the order given, row 3 skipped")
        for i in sources.indices {
            for j in targets.indices {
                #expect(pruned[i * targets.count + j].ms == (wants(i, j) ? full[i * targets.count + j].ms : .max))
                if wants(i, j) { expectPathFollows(router, cell: i * targets.count + j, from: sources[i], to: targets[j], ms: pruned[i * targets.count + j].ms) }
            }
        }
    }

    @Test("a segment's length on the plane of its latitude is the great circle's within 1e-6, however far north the segments walk")
    func segmentLengthsMatchTheGreatCircle() {
        var rng = SeededRandom(seed: 7)
        for latitude in [0.0, 43.73, 60.17, 70] {
            var near = Matcher.Latitude.unset, a = Coordinate(unchecked: latitude, 7.42)
            var planar = 0.0, sphere = 0.0
            // A walk of 400 segments of up to a kilometre, mostly north: the latitude kept in
            // `near` is refreshed as it goes.
            for _ in 0..<400 {
                let metres = Double(rng.next() % 1000) + 0.01, bearing = Double(rng.next() % 120) - 60
                let b = a.destination(bearing: bearing, distance: metres)
                let one = Matcher.segmentMetres(a, b, near: &near), truth = a.distance(to: b)
                #expect(abs(one - truth) <= 1e-6 * truth + 1e-9, "\(a) → \(b): \(one) against \(truth)")
                planar += one; sphere += truth
                a = b
            }
            #expect(abs(planar - sphere) <= 1e-7 * sphere, "a walk from \(latitude)°: \(planar) against \(sphere)")
        }
    }

    /// The route `localTable` left for a cell: its edges join head to tail, and driven
    /// from `s` to `t` they take the cell's time (to a millisecond for each partly driven end).
    private func expectPathFollows(_ router: Router, cell: Int, from s: Snap, to t: Snap, ms: UInt32) {
        let paths = router.tablePaths, count = Int(paths.count[cell]), start = Int(paths.start[cell])
        guard ms != .max else { #expect(count == 0); return }
        #expect(count > 0)
        guard count > 0 else { return }
        let edges = Array(paths.edges[start..<(start + count)]), g = router.network
        let inner = edges.filter { $0 != RoadNetwork.none }
        for (a, b) in zip(inner, inner.dropFirst()) { #expect(g.head[Int(a)] == g.tail[Int(b)], "edges \(a) → \(b) do not join") }
        router.edges = edges
        let route = router.assemble(from: s, to: t, cost: 0, direct: paths.direct[cell], named: false)
        #expect(abs(route.durationSeconds * 1000 - Double(ms)) <= 2, "cell \(cell): \(route.durationSeconds) s against \(ms) ms")
    }

    private func expectETAsMatchOracle(_ g: RoadNetwork, cabs count: Int, pickups: Int, seed: UInt64) throws {
        let router = Router(network: g), oracle = OracleDijkstra(g)
        let cabs = try g.randomPairs(count, seed: seed).map { try router.snap($0.0) }
        var compared = 0
        for (pickup, _) in g.randomPairs(pickups, seed: seed + 1) {
            let t = try router.snap(pickup)
            let etas = router.etas(to: t, from: cabs, limitSeconds: 1e9, algorithm: .hierarchy)
            for (s, eta) in zip(cabs, etas) {
                let truth = oracle.cost(s, t, .time)
                #expect(eta.map { UInt32(($0.seconds * 1000).rounded()) } == truth)
                compared += 1
            }
        }
        #expect(compared == count * pickups)
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func graphFileRoundTrips() throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        let folder = TemporaryFolder()
        let path = folder.path("monaco.wfg")
        try GraphFile.write(g, to: path)
        // Written piece by piece from the network's own arrays, the file is byte for byte
        // the encoding made whole in memory.
        #expect(try BinaryFile.readBytes(path: path) == GraphFile.encode(g))
        let h = try GraphFile.read(path: path)
        #expect(h.nodeCount == g.nodeCount && h.edgeCount == g.edgeCount && h.names == g.names)
        let r1 = Router(network: g), r2 = Router(network: h)
        for (a, b) in g.randomPairs(50, seed: 5) {
            let x = try r1.route(from: a, to: b), y = try r2.route(from: a, to: b)
            #expect(x.cost == y.cost && x.geometry == y.geometry && x.streets == y.streets)
        }
    }

    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func coordinatesInTheSeaAreAClearError() throws {
        let router = Router(network: try importReal("monaco/monaco.osm.pbf"))
        let sea = Coordinate(unchecked: 43.72, 7.46)  // 2 km off Monaco's coast
        #expect(throws: RouteError.noRoadNearby(sea, limitMetres: 1000)) { try router.route(from: sea, to: Coordinate(unchecked: 43.7393, 7.4277)) }
        #expect(RouteError.noRoadNearby(sea, limitMetres: 1000).description == "no road within 1000 m of 43.72,7.46")
        #expect(throws: RouteError.self) { try router.etas(to: sea, from: []) }
    }

    /// Many threads route at once on one shared network, each with its own router, and
    /// agree with a single thread.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func concurrentRoutersShareOneNetwork() async throws {
        let g = try importReal("monaco/monaco.osm.pbf")
        let pairs = g.randomPairs(200, seed: 77)
        let serial = Router(network: g)
        let expected = try pairs.map { try serial.route(from: $0.0, to: $0.1).cost }
        let results = await withTaskGroup(of: [UInt32?].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let router = Router(network: g)
                    return pairs.map { (try? router.route(from: $0.0, to: $0.1))?.cost }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for r in results { #expect(r == expected) }
    }
}
