import Foundation
import Geodesy
import RoadGraph

/// GPS traces made from a path whose truth is known, and the measure of how well a match
/// found it again: what map matching is tested and benchmarked on.
public enum GPSTraces {
    /// `count` fastest routes between random junctions of `network`, each at least
    /// `minimumMetres` long: the trips whose traces are matched back. The same seed gives
    /// the same trips.
    public static func trips(on network: RoadNetwork, count: Int, seed: UInt64, minimumMetres: Double = 1000) -> [Route] {
        let router = Router(network: network)
        var random = SeededRandom(seed: seed)
        var out: [Route] = []
        var tries = 0
        while out.count < count, network.nodeCount > 1, tries < 1000 * max(1, count) {
            tries += 1
            let a = network.coordinate(ofNode: Int.random(in: 0..<network.nodeCount, using: &random))
            let b = network.coordinate(ofNode: Int.random(in: 0..<network.nodeCount, using: &random))
            guard let r = try? router.route(from: a, to: b), r.distanceMetres >= minimumMetres else { continue }
            out.append(r)
        }
        return out
    }

    /// One long drive: trips chained end to start until it lasts `seconds`, as one line and
    /// its duration (a cab's shift, for timing a long trace).
    public static func tour(on network: RoadNetwork, seconds: Double, seed: UInt64) -> (path: [Coordinate], durationSeconds: Double) {
        let router = Router(network: network)
        var random = SeededRandom(seed: seed)
        var path: [Coordinate] = [], duration = 0.0, tries = 0
        var here = network.coordinate(ofNode: Int.random(in: 0..<max(1, network.nodeCount), using: &random))
        while duration < seconds, tries < 100_000 {
            tries += 1
            let next = network.coordinate(ofNode: Int.random(in: 0..<max(1, network.nodeCount), using: &random))
            guard let r = try? router.route(from: here, to: next), r.distanceMetres >= 500 else { continue }
            for c in r.geometry where path.last != c { path.append(c) }
            duration += r.durationSeconds
            here = r.geometry.last ?? next
        }
        return (path, duration)
    }

    /// The reports a phone would send driving `path` (a polyline, in order) in
    /// `durationSeconds` at an even speed: one every `interval` seconds from the start,
    /// plus one at the end, each moved by a Gaussian error of `sigma` metres east and north.
    /// Times are seconds from the start.
    public static func reports(along path: [Coordinate], durationSeconds: Double, every interval: Double, noiseMetres sigma: Double,
                               using random: inout SeededRandom) -> [TracePoint] {
        guard let first = path.first else { return [] }
        let walker = PolylineWalker(path)
        let total = walker.length
        guard total > 0, durationSeconds > 0, interval > 0 else { return [TracePoint(first, time: 0)] }
        var out: [TracePoint] = []
        var t = 0.0
        while true {
            let at = min(t, durationSeconds)
            let truth = walker.point(at: total * at / durationSeconds)
            out.append(TracePoint(displaced(truth, sigma: sigma, using: &random), time: at))
            if at >= durationSeconds { break }
            t += interval
        }
        return out
    }

    /// `c` moved by independent Gaussian errors of `sigma` metres north and east, kept on the globe.
    public static func displaced(_ c: Coordinate, sigma: Double, using random: inout SeededRandom) -> Coordinate {
        guard sigma > 0 else { return c }
        let north = random.gaussian() * sigma, east = random.gaussian() * sigma
        let lat = c.latitude + north / PolylineWalker.metresPerDegree
        let lon = c.longitude + east / (PolylineWalker.metresPerDegree * max(0.01, cos(c.latitude * .pi / 180)))
        return Coordinate(unchecked: min(90, max(-90, lat)), lon)
    }

    /// A drive that leaves its route: the driver follows `shown` for `fraction` of its length,
    /// turns off towards a junction 150 to 500 m away that the route does not pass (leaving
    /// the route within 300 m), and from
    /// there takes the fastest way to the route's end. Nil when no such junction leads off
    /// the route (within 100 tries). The same seed gives the same drive.
    public static func wrongTurn(on network: RoadNetwork, from shown: Route, at fraction: Double, seed: UInt64) -> Detour? {
        let router = Router(network: network)
        var random = SeededRandom(seed: seed)
        let shownLine = PolylineWalker(shown.geometry)
        let turnAt = shownLine.length * min(0.8, max(0.1, fraction))
        let turn = shownLine.point(at: turnAt)
        guard let end = shown.geometry.last, network.nodeCount > 1 else { return nil }
        let near = (0..<network.nodeCount).filter {
            let d = network.coordinate(ofNode: $0).distance(to: turn)
            return d >= 150 && d <= 500
        }
        for _ in 0..<100 where !near.isEmpty {
            let junction = network.coordinate(ofNode: near[Int.random(in: 0..<near.count, using: &random)])
            guard let off = try? router.route(from: turn, to: junction), let back = try? router.route(from: junction, to: end) else { continue }
            // It must leave the route soon (30 m off the line within 300 m), and the
            // junction be well off it.
            let offLine = PolylineWalker(off.geometry)
            func away(_ c: Coordinate) -> Double { let p = shownLine.plane(c); return shownLine.distance(fromPlanar: p.x, p.y) }
            guard offLine.length > 100, away(junction) > 60,
                  stride(from: 10.0, through: 300, by: 10).contains(where: { away(offLine.point(at: $0)) > 30 }) else { continue }
            var path = shown.geometry.indices.filter { shownLine.along[$0] < turnAt }.map { shown.geometry[$0] }
            path.append(turn)
            for c in off.geometry.dropFirst() + back.geometry.dropFirst() where path.last != c { path.append(c) }
            let driven = PolylineWalker(path)
            let pace = shown.durationSeconds / max(1, shownLine.length)
            return Detour(path: path, durationSeconds: driven.length * pace, shown: shown, turnMetres: turnAt)
        }
        return nil
    }

    /// The share of `line`'s length that runs along `other` (within `tolerance` metres), by
    /// brute force in steps of a metre: how much an alternative route shares with the fastest.
    public static func sharedFraction(of line: [Coordinate], with other: [Coordinate], toleranceMetres tolerance: Double = 3) -> Double {
        let walker = PolylineWalker(line)
        guard walker.length > 0 else { return 1 }
        return 1 - walker.lengthAway(from: [PolylineWalker(other)], tolerance: tolerance) / walker.length
    }

    /// Metres from `c` to the nearest point of `line`, by brute force over its segments.
    public static func metres(from c: Coordinate, to line: [Coordinate]) -> Double {
        let walker = PolylineWalker(line)
        let p = walker.plane(c)
        return walker.distance(fromPlanar: p.x, p.y)
    }

    /// Newson and Krumm's route mismatch fraction: the length of `truth` that no line of
    /// `matched` runs along (within `tolerance` metres), plus the length of `matched` that
    /// does not run along `truth`, over the length of `truth`. 0 is a perfect match.
    ///
    /// Measured by walking each line in steps of a metre and asking the other for its
    /// nearest point, by brute force: slow and independent of any index or matcher.
    public static func mismatchFraction(truth: [Coordinate], matched: [[Coordinate]], toleranceMetres tolerance: Double = 3) -> Double {
        let truthWalker = PolylineWalker(truth)
        guard truthWalker.length > 0 else { return 0 }
        let matchedWalkers = matched.map(PolylineWalker.init)
        let missed = truthWalker.lengthAway(from: matchedWalkers, tolerance: tolerance)
        let added = matchedWalkers.reduce(0.0) { $0 + $1.lengthAway(from: [truthWalker], tolerance: tolerance) }
        return (missed + added) / truthWalker.length
    }
}

/// A drive that left the route it was shown (``GPSTraces/wrongTurn(on:from:at:seed:)``).
public struct Detour: Sendable {
    /// The road driven, start to end.
    public var path: [Coordinate]
    /// How long it took, at the shown route's average pace.
    public var durationSeconds: Double
    /// The route the passenger was shown.
    public var shown: Route
    /// Metres along `path` (and along the shown route) where the driver turned off.
    public var turnMetres: Double

    /// Where the cab is `seconds` into the drive (at an even pace).
    public func position(at seconds: Double) -> Coordinate {
        let walker = PolylineWalker(path)
        return walker.point(at: walker.length * min(1, max(0, seconds / max(1e-9, durationSeconds))))
    }
}

/// A polyline measured in a local plane: lengths, points at a distance along it, and the
/// distance from a point to it. Planar metres about the line's first point: within
/// 0.01 % over a city.
struct PolylineWalker {
    static let metresPerDegree = 6_371_008.8 * .pi / 180
    let points: [Coordinate]
    let x: [Double], y: [Double]
    /// The distance along the line at each point.
    let along: [Double]
    let kx: Double
    let origin: Coordinate

    init(_ points: [Coordinate]) {
        self.points = points
        let o = points.first ?? Coordinate(unchecked: 0, 0), k = cos(o.latitude * .pi / 180) * Self.metresPerDegree
        origin = o
        kx = k
        x = points.map { ($0.longitude - o.longitude) * k }
        y = points.map { ($0.latitude - o.latitude) * Self.metresPerDegree }
        var along = [0.0]
        for k in points.indices.dropFirst() {
            along.append(along[k - 1] + ((x[k] - x[k - 1]) * (x[k] - x[k - 1]) + (y[k] - y[k - 1]) * (y[k] - y[k - 1])).squareRoot())
        }
        self.along = points.isEmpty ? [] : along
    }

    var length: Double { along.last ?? 0 }

    /// The point `s` metres along the line (clamped to its ends).
    func point(at s: Double) -> Coordinate {
        guard points.count > 1 else { return points.first ?? origin }
        let s = min(max(0, s), length)
        var lo = 0, hi = along.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if along[mid] <= s { lo = mid } else { hi = mid }
        }
        let span = along[hi] - along[lo], t = span > 0 ? (s - along[lo]) / span : 0
        let a = points[lo], b = points[hi]
        return Coordinate(unchecked: a.latitude + t * (b.latitude - a.latitude), a.longitude + t * (b.longitude - a.longitude))
    }

    /// The planar position of `c` in this walker's plane.
    func plane(_ c: Coordinate) -> (x: Double, y: Double) {
        ((c.longitude - origin.longitude) * kx, (c.latitude - origin.latitude) * Self.metresPerDegree)
    }

    /// Metres from (px, py), in this walker's plane, to the nearest point of the line.
    func distance(fromPlanar px: Double, _ py: Double) -> Double {
        guard !points.isEmpty else { return .infinity }
        if points.count == 1 { return ((x[0] - px) * (x[0] - px) + (y[0] - py) * (y[0] - py)).squareRoot() }
        var best = Double.infinity
        for k in 0..<(points.count - 1) {
            let ax = x[k] - px, ay = y[k] - py, dx = x[k + 1] - x[k], dy = y[k + 1] - y[k]
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
            let qx = ax + t * dx, qy = ay + t * dy
            best = min(best, qx * qx + qy * qy)
        }
        return best.squareRoot()
    }

    /// The length of this line farther than `tolerance` from every one of `others`, in
    /// steps of a metre.
    func lengthAway(from others: [PolylineWalker], tolerance: Double) -> Double {
        guard length > 0 else { return 0 }
        let steps = max(1, Int(length.rounded(.up)))
        let step = length / Double(steps)
        var away = 0.0
        for k in 0..<steps {
            let c = point(at: (Double(k) + 0.5) * step)
            let near = others.contains { other in
                let p = other.plane(c)
                return other.distance(fromPlanar: p.x, p.y) <= tolerance
            }
            if !near { away += step }
        }
        return away
    }
}
