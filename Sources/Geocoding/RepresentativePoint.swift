import Foundation
import Geodesy

/// The point that stands for an OSM way carrying an address or a name.
///
/// Why not the mean of the nodes: on a large, L-shaped or unevenly drawn building the mean
/// drifts towards wherever the outline has most nodes, and can fall outside the building or
/// tens of metres from its middle. Real geocoders use the area centroid, or a point on the
/// surface when the centroid lies outside (a C or L shape); so does this.
enum RepresentativePoint {
    /// For a closed way (first node = last, at least three distinct nodes, a non-zero area):
    /// its area centroid when that lies inside, else the interior point nearest to the
    /// centroid along the horizontal or vertical line through it. For an open way: the point
    /// halfway along it. Coordinates are E7 latitude and longitude.
    static func of(_ nodes: [(Int32, Int32)]) -> Coordinate {
        precondition(!nodes.isEmpty, "the caller skips ways without located nodes")
        // A local plane around the first node: y in degrees of latitude, x in degrees of
        // longitude scaled by cos(latitude), so that shapes keep their angles (metre-scale
        // buildings; the error of a flat frame is nil at this size).
        let lat0 = Double(nodes[0].0) * 1e-7, lon0 = Double(nodes[0].1) * 1e-7
        let k = cos(lat0 * .pi / 180)
        let points = nodes.map { (x: (Double($0.1) * 1e-7 - lon0) * k, y: Double($0.0) * 1e-7 - lat0) }
        func coordinate(_ p: (x: Double, y: Double)) -> Coordinate { Coordinate(unchecked: lat0 + p.y, lon0 + p.x / k) }

        let closed = nodes.count >= 4 && nodes.first! == nodes.last!
        guard closed, let c = centroid(points) else { return coordinate(halfway(points)) }
        if contains(points, c) { return coordinate(c) }
        // Two metres inside the walls, in the frame's degrees of latitude.
        return coordinate(surfacePoint(points, near: c, margin: 2 / 111_195) ?? c)
    }

    /// The area centroid of a closed ring (shoelace), or nil when its area is zero.
    static func centroid(_ ring: [(x: Double, y: Double)]) -> (x: Double, y: Double)? {
        var twiceArea = 0.0, cx = 0.0, cy = 0.0
        for (a, b) in zip(ring, ring.dropFirst()) {
            let cross = a.x * b.y - b.x * a.y
            twiceArea += cross
            cx += (a.x + b.x) * cross
            cy += (a.y + b.y) * cross
        }
        guard abs(twiceArea) > 1e-18 else { return nil }
        return (cx / (3 * twiceArea), cy / (3 * twiceArea))
    }

    /// Even–odd point-in-ring test.
    static func contains(_ ring: [(x: Double, y: Double)], _ p: (x: Double, y: Double)) -> Bool {
        var inside = false
        for (a, b) in zip(ring, ring.dropFirst()) where (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
            if x > p.x { inside.toggle() }
        }
        return inside
    }

    /// The point of the outline's interior nearest to `c` along the horizontal and the
    /// vertical line through it, kept a little inside (a quarter of the stretch's width, at
    /// most `margin`) so that it is not on a wall. Why nearest and not the middle of the
    /// widest stretch: for a U-shaped city block the centroid lies in the courtyard, and the
    /// nearest wing is where a passenger expects the address.
    static func surfacePoint(_ ring: [(x: Double, y: Double)], near c: (x: Double, y: Double), margin: Double) -> (x: Double, y: Double)? {
        var best: (point: (x: Double, y: Double), distance: Double)?
        for horizontal in [true, false] {
            // Crossings of the line with the edges, by the half-open rule, so a vertex on the
            // line is counted once or not at all and the crossings pair up.
            var crossings: [Double] = []
            for (a, b) in zip(ring, ring.dropFirst()) {
                let (a0, a1, b0, b1, l) = horizontal ? (a.y, a.x, b.y, b.x, c.y) : (a.x, a.y, b.x, b.y, c.x)
                if (a0 > l) != (b0 > l) { crossings.append(a1 + (l - a0) / (b0 - a0) * (b1 - a1)) }
            }
            crossings.sort()
            let at = horizontal ? c.x : c.y
            for i in stride(from: 0, to: crossings.count - 1, by: 2) {
                let inset = min(margin, (crossings[i + 1] - crossings[i]) / 4)
                let t = min(max(at, crossings[i] + inset), crossings[i + 1] - inset)
                let d = abs(t - at)
                if d < (best?.distance ?? .infinity) { best = (horizontal ? (t, c.y) : (c.x, t), d) }
            }
        }
        return best?.point
    }

    /// The point halfway along an open line (its only point when it has one).
    static func halfway(_ line: [(x: Double, y: Double)]) -> (x: Double, y: Double) {
        let lengths = zip(line, line.dropFirst()).map { hypot($1.x - $0.x, $1.y - $0.y) }
        var remaining = lengths.reduce(0, +) / 2
        for (i, l) in lengths.enumerated() {
            if remaining <= l, l > 0 {
                let f = remaining / l
                return (line[i].x + f * (line[i + 1].x - line[i].x), line[i].y + f * (line[i + 1].y - line[i].y))
            }
            remaining -= l
        }
        return (line[0].x, line[0].y)
    }
}
