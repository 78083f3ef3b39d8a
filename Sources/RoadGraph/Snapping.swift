import Foundation
import Geodesy
import SpatialIndex

/// Snapping: from a coordinate to the nearest point on a drivable road, and the nearest
/// points of the pieces around it (the matcher's candidates).
extension Router {
    /// The nearest point on a drivable road, or `noRoadNearby` beyond `limit` metres.
    public func snap(_ c: Coordinate, within limit: Double = 1000) throws(RouteError) -> Snap {
        let g = network
        guard let hit = g.segments.nearest(to: c, within: limit) else {
            throw .noRoadNearby(c, limitMetres: limit)
        }
        return snap(c, onto: hit)
    }

    /// Every road within `limit` metres of `c`, one snap per piece of street (the nearest
    /// point of each), nearest first, at most `count`: the candidates a map matcher weighs.
    public func candidates(of c: Coordinate, within limit: Double, count: Int) -> [Snap] {
        nearestPieces(of: c, within: limit, count: count)
        let cosφ = cos(c.latitude * .pi / 180)
        return hits.map { snap(c, onto: $0, cosφ: cosφ) }
    }

    /// Leaves in `hits` the nearest segment of each of the `count` nearest pieces within
    /// `limit` metres of `c`, nearest first.
    ///
    /// Why the pieces first and the sort after: a radius of 50 m in a city holds a hundred
    /// segments of a dozen pieces; keeping each piece's nearest (a slot per piece, stamped
    /// per call) leaves a dozen to sort.
    ///
    /// With `slack2`, only segments whose squared distance exceeds the nearest's by at most
    /// that many square metres.
    func nearestPieces(of c: Coordinate, within limit: Double, slack2: Double = .infinity, count: Int) {
        var found: [SegmentHit] = [], slots: [Int32] = [], stamps: [UInt32] = []
        swap(&found, &hits); swap(&slots, &pieceSlot); swap(&stamps, &pieceStamp)
        defer { swap(&found, &hits); swap(&slots, &pieceSlot); swap(&stamps, &pieceStamp) }
        found.removeAll(keepingCapacity: true)
        if slack2.isFinite { network.segments.segments(within: limit, slack2: slack2, of: c, into: &found) }
        else { network.segments.segments(within: limit, of: c, into: &found) }
        let pieces = network.pieceCount
        if slots.count != pieces { slots = .init(repeating: 0, count: pieces); stamps = .init(repeating: 0, count: pieces) }
        pieceGeneration &+= 1
        if pieceGeneration == 0 { for i in stamps.indices { stamps[i] = 0 }; pieceGeneration = 1 }
        let gen = pieceGeneration, line = network.segments.segmentLine
        var kept = 0
        for k in found.indices {
            let hit = found[k], piece = Int(line[hit.segment])
            if stamps[piece] == gen {
                let slot = Int(slots[piece])
                if hit.metres < found[slot].metres || (hit.metres == found[slot].metres && hit.segment < found[slot].segment) {
                    found[slot] = hit
                }
            } else {
                stamps[piece] = gen; slots[piece] = Int32(kept)
                found[kept] = hit; kept += 1
            }
        }
        found.removeSubrange(kept...)
        found.sort { ($0.metres, $0.segment) < ($1.metres, $1.segment) }
        if found.count > count { found.removeSubrange(max(0, count)...) }
    }

    /// The snap of `c` onto the segment of `hit`.
    ///
    /// The distance is the hit's own (the segment tree's planar metric at `c`'s latitude,
    /// within centimetres of the great circle at snapping distances); `cosφ` is
    /// `cos(latitude of c)`, passed by a caller that snaps one point onto many segments.
    func snap(_ c: Coordinate, onto hit: SegmentHit, cosφ given: Double? = nil) -> Snap {
        let g = network
        let cosφ = given ?? cos(c.latitude * .pi / 180)
        let t = hit.fraction, point = g.segments.point(onSegment: hit.segment, at: t)
        let k = Int(g.segments.segmentPoint[hit.segment]), piece = Int(g.segments.segmentLine[hit.segment])
        // The position along the piece, as a share of its planar length.
        func planar(_ i: Int) -> Double {
            let dy = Double(g.pointLatE7[i + 1] - g.pointLatE7[i]), dx = Double(g.pointLonE7[i + 1] - g.pointLonE7[i]) * cosφ
            return (dx * dx + dy * dy).squareRoot()
        }
        var before = 0.0, total = 0.0
        for i in Int(g.pieceStart[piece])..<(Int(g.pieceStart[piece + 1]) - 1) {
            let l = planar(i)
            if i < k { before += l } else if i == k { before += t * l }
            total += l
        }
        // A point within a few centimetres of a piece's end is at that junction: it seeds
        // the junction itself, so every road there is open, whichever was nearest. Why:
        // coordinates copied from a node (at more or fewer decimals than the graph's 1e-7°)
        // land millimetres off it, on one arbitrary incident road.
        let first = Int(g.pieceStart[piece]), last = Int(g.pieceStart[piece + 1]) - 1
        let ky = Earth.meanRadius * .pi / 180, kx = ky * cosφ
        func atJunction(_ end: Int) -> Bool {  // planar: a few centimetres
            let dy = (Double(g.pointLatE7[end]) * 1e-7 - point.latitude) * ky
            let dx = (Double(g.pointLonE7[end]) * 1e-7 - point.longitude) * kx
            return dx * dx + dy * dy <= Self.junctionMetres * Self.junctionMetres
        }
        func junction(_ end: Int, fraction: Double, segment: Int) -> Snap {
            let at = g.pointCoordinate(end)
            return Snap(coordinate: at, metres: c.distance(to: at), piece: piece, segment: segment, fraction: fraction)
        }
        if atJunction(first) { return junction(first, fraction: 0, segment: first) }
        if atJunction(last) { return junction(last, fraction: 1, segment: last - 1) }
        return Snap(coordinate: point, metres: hit.metres, piece: piece, segment: k,
                    fraction: total > 0 ? min(1, before / total) : 0)
    }

    /// How near a piece's end a snapped point counts as on the junction (metres).
    public static let junctionMetres = 0.05
}
