import Foundation

/// What turning costs a car at a junction, in seconds, as OSRM's car profile prices it:
/// a sigmoid of the turn's angle that reaches ``turnPenaltySeconds`` for the sharpest
/// turns, biased so that a turn across oncoming traffic (left where cars drive on the
/// right) costs more than one away from it, plus ``uTurnPenaltySeconds`` for turning back.
///
/// A turn is priced where it is a choice: at a junction of three roads or more, and for a
/// U-turn anywhere (a road that merely changes its name or speed limit at a node costs
/// nothing to drive straight through). Turn costs add to a route's time, never to its
/// length, so the distance metric is unaffected.
public struct TurnCosts: Sendable, Equatable {
    /// The most a turn costs before any U-turn penalty (OSRM's `turn_penalty`).
    public var turnPenaltySeconds = 7.5
    /// Added to a U-turn (OSRM's `u_turn_penalty`).
    public var uTurnPenaltySeconds = 20.0
    /// How much dearer a turn across traffic is than one of the same angle away from it
    /// (OSRM's `turn_bias`); 1 prices both alike.
    public var turnBias = 1.075
    /// True where cars drive on the left, so that right turns cross traffic.
    public var leftHandDriving = false

    /// OSRM's car profile values, for right-hand traffic.
    public init() {}

    /// The seconds a turn costs: `angle` in degrees from straight ahead (positive to the
    /// right, −180…180), `roads` the roads that meet at the junction, `uTurn` whether the
    /// car goes back along the road it came by. Always between 0 and an hour: settings that
    /// would give a negative, unbounded or undefined price (a negative penalty, a bias of 0)
    /// price nothing rather than corrupt the edge times.
    public func seconds(angle: Double, roads: Int, uTurn: Bool) -> Double {
        guard roads > 2 || uTurn, angle.isFinite else { return 0 }
        let bias = leftHandDriving ? 1 / turnBias : turnBias
        let a = uTurn ? 180 : min(180, max(-180, angle))
        // A right turn (away from traffic on the right) rises later and less steeply.
        let x = a >= 0 ? (13 / bias) * a / 180 - 6.5 * bias : (13 * bias) * -a / 180 - 6.5 / bias
        let price = turnPenaltySeconds / (1 + exp(-x)) + (uTurn ? uTurnPenaltySeconds : 0)
        return price.isFinite ? min(Self.mostSeconds, max(0, price)) : 0
    }

    /// The most one turn may cost (an hour): what keeps an edge's time and turn in 32-bit
    /// milliseconds.
    public static let mostSeconds = 3600.0

    /// The angle in degrees from straight ahead (positive to the right, −180…180) between
    /// arriving along `inBearing` and leaving along `outBearing` (degrees clockwise from north).
    public static func angle(arriving inBearing: Double, leaving outBearing: Double) -> Double {
        var a = (outBearing - inBearing).truncatingRemainder(dividingBy: 360)
        if a > 180 { a -= 360 } else if a <= -180 { a += 360 }
        return a
    }
}

extension NetworkDraft {
    /// Prices every turn by making the draft edge-based where turns differ: each node is
    /// split into one copy per piece arriving at it, and each copy gets its own copy of the
    /// node's out-edges, each carrying the cost of the turn from that piece onto it
    /// (`turnSeconds`, paid on entering the edge). A node left with one way in keeps its
    /// out-edges, priced for that way; a node no edge enters (a route can only start there)
    /// keeps them unpriced.
    ///
    /// Why split nodes instead of a separate edge-based router: every search, ETA, matcher
    /// and the contraction stay as they are, on a graph whose nodes are now "at this
    /// junction, having arrived along this piece". Turn restrictions were applied before,
    /// by the same splitting, so their copies each have one way in already.
    ///
    /// The roads counted at a junction are the pieces of the largest strongly connected
    /// part that meet there, the part the network keeps.
    mutating func priceTurns(_ costs: TurnCosts) {
        let n = latE7.count
        let kept = StrongComponents.largest(nodeCount: n, edges: edges).member
        var arriving = [[UInt32]](repeating: [], count: n)
        // Roads are counted per place, not per node: a junction split for a turn
        // restriction is still one junction, with all its roads.
        var roadsAt: [UInt64: Int] = [:], seen = Set<SIMD2<UInt64>>()
        func place(_ v: UInt32) -> UInt64 { UInt64(UInt32(bitPattern: latE7[Int(v)])) << 32 | UInt64(UInt32(bitPattern: lonE7[Int(v)])) }
        for e in edges where kept[Int(e.tail)] && kept[Int(e.head)] {
            let h = Int(e.head)
            if !arriving[h].contains(e.piece) { arriving[h].append(e.piece) }
            let street = UInt64(e.piece & ~RoadNetwork.reversedBit)
            for v in [e.tail, e.head] where seen.insert(SIMD2(place(v), street)).inserted { roadsAt[place(v), default: 0] += 1 }
        }
        let roads = (0..<n).map { roadsAt[place(UInt32($0))] ?? 0 }
        // Each way in's bearing once, not once per way out.
        let arrivingBearing = arriving.map { $0.map { bearing(of: $0, atEnd: true) } }
        // Copies beyond the first get new ids at the end; the first keeps the node's id.
        var firstCopy = [UInt32](repeating: 0, count: n)
        for v in 0..<n {
            firstCopy[v] = UInt32(latE7.count)
            for _ in arriving[v].indices.dropFirst() { _ = addNode(latE7: latE7[v], lonE7: lonE7[v]) }
        }
        func copy(_ v: Int, arrivingAlong piece: UInt32) -> UInt32 {
            guard let j = arriving[v].firstIndex(of: piece), j > 0 else { return UInt32(v) }
            return firstCopy[v] + UInt32(j - 1)
        }
        var priced: [DraftEdge] = []
        priced.reserveCapacity(edges.count * 2)
        for e in edges {
            let v = Int(e.tail), head = copy(Int(e.head), arrivingAlong: e.piece)
            guard !arriving[v].isEmpty else { priced.append(DraftEdge(tail: e.tail, head: head, piece: e.piece, lengthMetres: e.lengthMetres, timeSeconds: e.timeSeconds)); continue }
            let out = bearing(of: e.piece, atEnd: false)
            for (j, p) in arriving[v].enumerated() {
                let uTurn = p & ~RoadNetwork.reversedBit == e.piece & ~RoadNetwork.reversedBit
                let turn = costs.seconds(angle: TurnCosts.angle(arriving: arrivingBearing[v][j], leaving: out),
                                         roads: roads[v], uTurn: uTurn)
                priced.append(DraftEdge(tail: j == 0 ? e.tail : firstCopy[v] + UInt32(j - 1), head: head, piece: e.piece,
                                        lengthMetres: e.lengthMetres, timeSeconds: e.timeSeconds + turn, turnSeconds: turn))
            }
        }
        edges = priced
    }

    /// The direction (degrees clockwise from north) an edge along `piece` (with
    /// `RoadNetwork.reversedBit` when against its points) starts or ends in: its first or
    /// last segment that has a length.
    func bearing(of piece: UInt32, atEnd: Bool) -> Double {
        let k = Int(piece & ~RoadNetwork.reversedBit), reversed = piece & RoadNetwork.reversedBit != 0
        let first = Int(pieceStart[k]), last = Int(pieceStart[k + 1]) - 1
        // Walking from the end the bearing is taken at, towards the other end.
        let fromLast = atEnd != reversed
        let anchor = fromLast ? last : first, step = fromLast ? -1 : 1
        var other = anchor + step
        while other != anchor, (fromLast ? other > first : other < last),
              pointLatE7[other] == pointLatE7[anchor] && pointLonE7[other] == pointLonE7[anchor] { other += step }
        // The segment runs anchor → other leaving from the start, other → anchor arriving at the end.
        let (a, b) = atEnd ? (other, anchor) : (anchor, other)
        let dy = Double(pointLatE7[b]) - Double(pointLatE7[a])
        let dx = (Double(pointLonE7[b]) - Double(pointLonE7[a])) * cos(Double(pointLatE7[a]) * 1e-7 * .pi / 180)
        return atan2(dx, dy) * 180 / .pi
    }
}
