import Foundation
import Geodesy
import Testing
import TestSupport
@testable import RoadGraph

/// Turn costs: OSRM's sigmoid, priced on an edge-based network (one node per junction and
/// way in), checked against an edge-based Dijkstra written here over the unpriced network.
@Suite struct TurnCostTests {
    /// OSRM car.lua's turn function, transcribed here apart from `TurnCosts`: angle in
    /// degrees, positive to the right, right-hand traffic.
    static func osrmTurnSeconds(_ angle: Double, roads: Int, uTurn: Bool) -> Double {
        guard roads > 2 || uTurn else { return 0 }
        let a = uTurn ? 180 : angle, bias = 1.075
        let sigmoid = a >= 0 ? 7.5 / (1 + exp(-((13 / bias) * a / 180 - 6.5 * bias)))
                             : 7.5 / (1 + exp(-((13 * bias) * -a / 180 - 6.5 / bias)))
        return sigmoid + (uTurn ? 20 : 0)
    }

    @Test func theSigmoidPricesTurnsAcrossTrafficHigher() {
        let c = TurnCosts()
        // Values worked out by hand from OSRM's formula.
        #expect(abs(c.seconds(angle: 90, roads: 3, uTurn: false) - 2.1053) < 1e-4)
        #expect(abs(c.seconds(angle: -90, roads: 3, uTurn: false) - 5.3947) < 1e-4)
        #expect(abs(c.seconds(angle: 0, roads: 4, uTurn: false) - 0.0069) < 1e-4)
        #expect(abs(c.seconds(angle: 12, roads: 2, uTurn: true) - 27.4548) < 1e-4)
        // A road that only changes its tags at a node costs nothing to follow, even bending.
        #expect(c.seconds(angle: -60, roads: 2, uTurn: false) == 0)
        // Driving on the left mirrors the bias.
        var left = TurnCosts(); left.leftHandDriving = true
        #expect(abs(left.seconds(angle: 90, roads: 3, uTurn: false) - c.seconds(angle: -90, roads: 3, uTurn: false)) < 1e-12)
        for a in stride(from: 0.0, through: 180, by: 5) {
            #expect(c.seconds(angle: -a, roads: 3, uTurn: false) >= c.seconds(angle: a, roads: 3, uTurn: false))
            #expect(abs(c.seconds(angle: a, roads: 3, uTurn: false) - Self.osrmTurnSeconds(a, roads: 3, uTurn: false)) < 1e-12)
        }
        #expect(c.seconds(angle: .nan, roads: 3, uTurn: false) == 0)
        // Settings that make no sense price nothing or at most an hour, never a trap later.
        var odd = TurnCosts(); odd.turnBias = 0
        #expect(odd.seconds(angle: 0, roads: 3, uTurn: false) == 0)
        odd = TurnCosts(); odd.uTurnPenaltySeconds = -100
        #expect(odd.seconds(angle: 0, roads: 3, uTurn: true) == 0)
        odd = TurnCosts(); odd.turnPenaltySeconds = .infinity
        #expect(odd.seconds(angle: 0, roads: 3, uTurn: false) == 0)
        odd = TurnCosts(); odd.uTurnPenaltySeconds = 1e12
        #expect(odd.seconds(angle: 0, roads: 3, uTurn: true) == TurnCosts.mostSeconds)
        #expect(TurnCosts.angle(arriving: 350, leaving: 80) == 90 && TurnCosts.angle(arriving: 80, leaving: 350) == -90)
        #expect(TurnCosts.angle(arriving: 0, leaving: 180) == 180)
    }

    /// The crossing of `GraphInputTests` (West, East, North and South Streets meeting at
    /// node 1, each arm about 111 m of residential street), without its restrictions.
    func crossroads(turnCosts: Bool) throws -> RoadNetwork {
        var profile = CarProfile()
        if turnCosts { profile.turnCosts = TurnCosts() }
        let folder = TemporaryFolder()
        return try RoadNetwork.importOSM(path: folder.write("cross.osm", crossingXML(restrictions: false)), profile: profile).0
    }

    @Test func aTurnIsPaidWholeWhereverTheRouteEnds() throws {
        let plain = try crossroads(turnCosts: false), priced = try crossroads(turnCosts: true)
        let west = Coordinate(unchecked: 60.0, 24.999)
        // Half way along each arm, and a hair past the junction (the turn made, no street driven).
        let ends: [(Coordinate, Double, String)] = [
            (Coordinate(unchecked: 60.0005, 25.0), 5.3947, "left, north"),
            (Coordinate(unchecked: 59.9995, 25.0), 2.1053, "right, south"),
            (Coordinate(unchecked: 60.0, 25.001), 0.0069, "straight, east"),
            (Coordinate(unchecked: 60.00001, 25.0), 5.3947, "left, just past the junction"),
        ]
        for (end, turn, what) in ends {
            for algorithm in RoutingAlgorithm.allCases {
                let before = try Router(network: plain).route(from: west, to: end, algorithm: algorithm)
                let after = try Router(network: priced).route(from: west, to: end, algorithm: algorithm)
                #expect(abs(after.durationSeconds - before.durationSeconds - turn) <= 0.002, "\(what), \(algorithm)")
                #expect(after.distanceMetres == before.distanceMetres && after.geometry == before.geometry, "\(what)")
            }
        }
        // Leaving from a point partway along an arm pays no turn: from just past the
        // junction on North, back to the junction side of North's middle.
        let start = Coordinate(unchecked: 60.00001, 25.0), middle = Coordinate(unchecked: 60.0005, 25.0)
        #expect(try Router(network: priced).route(from: start, to: middle).durationSeconds
                == Router(network: plain).route(from: start, to: middle).durationSeconds)
        // The distance metric prices no turn.
        #expect(try Router(network: priced).route(from: west, to: ends[0].0, metric: .distance).durationSeconds
                == Router(network: priced).route(from: west, to: ends[0].0).durationSeconds)
        // The file keeps the turns; one dearer than its edge is refused.
        let back = try GraphFile.decode(GraphFile.encode(priced), path: "memory")
        #expect(back.turnMs == priced.turnMs && !back.turnMs.isEmpty && plain.turnMs.isEmpty)
        var crafted = priced
        if let e = crafted.turnMs.indices.first(where: { crafted.turnMs[$0] > 0 }) { crafted.turnMs[e] = crafted.timeMs[e] + 1 }
        #expect(throws: GraphError.self) { try GraphFile.decode(GraphFile.encode(crafted), path: "crafted") }
    }

    /// The oracle: a Dijkstra whose states are the unpriced network's edges (arriving at the
    /// edge's head), each move onto the next edge paying OSRM's turn, computed here from the
    /// network's own geometry; against routes on the priced network, every algorithm.
    @Test(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
    func monacoRoutesMatchAnEdgeBasedDijkstra() throws {
        let path = SharedData.path("monaco/monaco.osm.pbf")
        let plain = try RoadNetwork.importOSM(path: path).0
        var profile = CarProfile(); profile.turnCosts = TurnCosts()
        let priced = try RoadNetwork.importOSM(path: path, profile: profile).0
        let g = plain, m = g.edgeCount
        // Where a piece's travel starts and ends, and which way it points there.
        func points(_ e: Int) -> [Coordinate] {
            let p = Int(g.edgePiece[e] & ~RoadNetwork.reversedBit)
            var c = (Int(g.pieceStart[p])..<Int(g.pieceStart[p + 1])).map { g.pointCoordinate($0) }
            if g.edgePiece[e] & RoadNetwork.reversedBit != 0 { c.reverse() }
            var distinct: [Coordinate] = []
            for x in c where distinct.last != x { distinct.append(x) }
            return distinct
        }
        func bearing(_ a: Coordinate, _ b: Coordinate) -> Double {
            atan2((b.longitude - a.longitude) * cos(a.latitude * .pi / 180), b.latitude - a.latitude) * 180 / .pi
        }
        let drawn = (0..<m).map(points)
        var roadsAt: [String: Set<UInt32>] = [:]
        func place(_ v: UInt32) -> String { "\(g.latE7[Int(v)]),\(g.lonE7[Int(v)])" }
        for e in 0..<m {
            for v in [g.tail[e], g.head[e]] { roadsAt[place(v), default: []].insert(g.edgePiece[e] & ~RoadNetwork.reversedBit) }
        }
        func turn(_ e: Int, _ f: Int) -> Double {
            let a = drawn[e], b = drawn[f]
            guard a.count >= 2, b.count >= 2 else { return 0 }
            var angle = bearing(b[0], b[1]) - bearing(a[a.count - 2], a[a.count - 1])
            while angle > 180 { angle -= 360 }
            while angle <= -180 { angle += 360 }
            let uTurn = g.edgePiece[e] & ~RoadNetwork.reversedBit == g.edgePiece[f] & ~RoadNetwork.reversedBit
            return Self.osrmTurnSeconds(angle, roads: roadsAt[place(g.head[e])]!.count, uTurn: uTurn)
        }
        var next = [[(to: Int, cost: Double)]](repeating: [], count: m + 1)
        for e in 0..<m {
            let v = Int(g.head[e])
            for f in Int(g.firstOut[v])..<Int(g.firstOut[v + 1]) {
                next[e].append((f, turn(e, f) + Double(g.timeMs[f]) / 1000))
            }
        }
        let router = Router(network: g), pricedRouter = Router(network: priced)
        // The share of edge e from the snapped point to its head.
        func toHead(_ s: Snap, _ e: Int) -> Double { g.edgePiece[e] & RoadNetwork.reversedBit != 0 ? s.fraction : 1 - s.fraction }
        func edges(of s: Snap) -> [Int] { (Int(g.pieceEdgeStart[s.piece])..<Int(g.pieceEdgeStart[s.piece + 1])).map { Int(g.pieceEdges[$0]) } }
        var rng = SeededRandom(seed: 33)
        var checked = 0, turned = 0
        while checked < 150 {
            // Midpoints of two random pieces, so that both ends lie partway along an edge.
            let p = Int.random(in: 0..<g.pieceName.count, using: &rng), q = Int.random(in: 0..<g.pieceName.count, using: &rng)
            guard p != q else { continue }
            func middle(_ p: Int) -> Coordinate {
                let a = g.pointCoordinate(Int(g.pieceStart[p])), b = g.pointCoordinate(Int(g.pieceStart[p]) + 1)
                return Coordinate(unchecked: (a.latitude + b.latitude) / 2, (a.longitude + b.longitude) / 2)
            }
            let s = try router.snap(middle(p)), t = try router.snap(middle(q))
            guard s.piece != t.piece, s.fraction > 0, s.fraction < 1, t.fraction > 0, t.fraction < 1 else { continue }
            next[m] = edges(of: s).map { ($0, toHead(s, $0) * Double(g.timeMs[$0]) / 1000) }
            let cost = exactDijkstra(adjacency: next, from: m).cost
            var best = Double.infinity
            for f in edges(of: t) {
                let v = Int(g.tail[f]), driven = (1 - toHead(t, f)) * Double(g.timeMs[f]) / 1000
                for k in Int(g.firstIn[v])..<Int(g.firstIn[v + 1]) {
                    let e = Int(g.inEdge[k])
                    best = min(best, cost[e] + turn(e, f) + driven)
                }
            }
            guard best.isFinite else { continue }
            checked += 1
            for algorithm in RoutingAlgorithm.allCases {
                let r = try pricedRouter.route(from: s.coordinate, to: t.coordinate, algorithm: algorithm)
                // Each edge's time and turn are rounded to the millisecond.
                #expect(abs(r.durationSeconds - best) <= 0.001 * Double(r.geometry.count + 2), "\(algorithm): \(r.durationSeconds) s against \(best) s")
            }
            // ETAs and tables seed the same way: each equals the route exactly.
            let route = try pricedRouter.route(from: s.coordinate, to: t.coordinate)
            let ps = try pricedRouter.snap(s.coordinate), pt = try pricedRouter.snap(t.coordinate)
            for algorithm in ETAAlgorithm.allCases {
                #expect(pricedRouter.etas(to: pt, from: [ps], limitSeconds: 36_000, algorithm: algorithm)[0]?.seconds == route.durationSeconds)
            }
            #expect(pricedRouter.table(from: [ps], to: [pt], limitSeconds: 36_000)[0]?.seconds == route.durationSeconds)
            let unpriced = try router.route(from: s.coordinate, to: t.coordinate)
            if unpriced.durationSeconds + 1 < best { turned += 1 }
        }
        // Most routes turn somewhere that costs at least a second.
        #expect(turned > checked / 2)
    }
}
