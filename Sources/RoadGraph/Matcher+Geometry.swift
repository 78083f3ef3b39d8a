import Foundation
import Geodesy

/// The matcher's plane geometry: lengths and nearest points over short stretches of track.
extension Matcher {
    /// The point of `line` nearest to `c`, and how far it is (metres, in a plane tangent at `c`).
    static func nearest(on line: ArraySlice<Coordinate>, to c: Coordinate) -> (Coordinate, Double) {
        guard var best = line.first.map({ ($0, c.distance(to: $0)) }) else { return (c, 0) }
        let ky = 111_194.9, kx = ky * cos(c.latitude * .pi / 180)
        for k in line.indices.dropFirst() {
            let a = line[k - 1], b = line[k]
            let ax = (a.longitude - c.longitude) * kx, ay = (a.latitude - c.latitude) * ky
            let dx = (b.longitude - a.longitude) * kx, dy = (b.latitude - a.latitude) * ky
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
            let metres = ((ax + t * dx) * (ax + t * dx) + (ay + t * dy) * (ay + t * dy)).squareRoot()
            if metres < best.1 {
                best = (Coordinate(unchecked: a.latitude + t * (b.latitude - a.latitude), a.longitude + t * (b.longitude - a.longitude)), metres)
            }
        }
        return best
    }

    /// A latitude with its cosine and sine, for measuring segments near it.
    struct Latitude {
        var radians = Double.nan, cos = 0.0, sin = 0.0
        static let unset = Latitude()
    }

    /// The length of a short segment in metres: on a plane at its middle latitude φ, whose
    /// cosine is `cos φ₀ − sin φ₀ (φ − φ₀)` for the latitude φ₀ in `near` (set at the first
    /// segment, and again when the segments have gone 2.5 km north or south of it).
    ///
    /// Why: a track's length is the sum of thousands of segments, and haversine's four
    /// trigonometric calls a segment were a twentieth of a trace's instructions. The plane
    /// and the cosine's first-order step are each within 1e-7 of the great circle for
    /// segments under a kilometre within 2.5 km of φ₀.
    static func segmentMetres(_ a: Coordinate, _ b: Coordinate, near: inout Latitude) -> Double {
        let r = Double.pi / 180, φ = (a.latitude + b.latitude) * 0.5 * r
        if !(abs(φ - near.radians) <= 4e-4) { near = Latitude(radians: φ, cos: Foundation.cos(φ), sin: Foundation.sin(φ)) }
        let cosφ = near.cos - near.sin * (φ - near.radians)
        let dy = (b.latitude - a.latitude) * r, dx = (b.longitude - a.longitude) * r * cosφ
        return Earth.meanRadius * (dx * dx + dy * dy).squareRoot()
    }
}
