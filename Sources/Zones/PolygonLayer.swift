import Geodesy
import GeoJSON

/// Where a point lies relative to an areal feature.
enum Location: Equatable { case exterior, boundary, interior }

/// A set of areal features (zones, or service areas) stored as flat arrays, with an exact
/// point-in-feature test that never touches a C library.
///
/// Storage is three levels of offsets, RoutingKit-style: feature → polygons → rings →
/// vertices. x is longitude and y latitude, in degrees. `Sendable`: plain arrays only.
struct PolygonLayer: Sendable, Equatable {
    var xs: [Double] = []
    var ys: [Double] = []
    /// Ring r's vertices are `ringStart[r] ..< ringStart[r + 1]`; first vertex == last.
    var ringStart: [Int32] = [0]
    /// Polygon p's rings are `polygonStart[p] ..< polygonStart[p + 1]`, the shell first.
    var polygonStart: [Int32] = [0]
    /// Feature f's polygons are `featureStart[f] ..< featureStart[f + 1]`.
    var featureStart: [Int32] = [0]
    /// Per feature: minX, minY, maxX, maxY.
    var bounds: [Double] = []
    /// The band index: feature f's edges split into horizontal bands.
    var bandFeatureStart: [Int32] = [0]  // feature → its first band in bandStart
    var bandMinY: [Double] = []          // per feature
    var bandInvHeight: [Double] = []     // per feature: bands per degree
    var bandStart: [Int32] = [0]         // band → range in bandEdges
    var bandEdges: [Int32] = []          // an edge is named by its first vertex

    var featureCount: Int { featureStart.count - 1 }

    /// Appends a feature from raw rings (x = longitude, y = latitude).
    mutating func append(polygons: [[[Position]]]) {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for polygon in polygons {
            for ring in polygon {
                for p in ring {
                    xs.append(p.x); ys.append(p.y)
                    minX = min(minX, p.x); maxX = max(maxX, p.x)
                    minY = min(minY, p.y); maxY = max(maxY, p.y)
                }
                ringStart.append(Int32(xs.count))
            }
            polygonStart.append(Int32(ringStart.count - 1))
        }
        featureStart.append(Int32(polygonStart.count - 1))
        bounds += [minX, minY, maxX, maxY]
        buildBands(feature: featureCount - 1)
    }

    /// The feature's polygons as raw rings.
    func polygons(of f: Int) -> [[[Position]]] {
        (Int(featureStart[f])..<Int(featureStart[f + 1])).map { p in
            (Int(polygonStart[p])..<Int(polygonStart[p + 1])).map { r in
                (Int(ringStart[r])..<Int(ringStart[r + 1])).map { Position(x: xs[$0], y: ys[$0]) }
            }
        }
    }

    /// The vertex range of all of feature f's rings.
    func ringRange(of f: Int) -> Range<Int> {
        let firstRing = Int(polygonStart[Int(featureStart[f])])
        let endRing = Int(polygonStart[Int(featureStart[f + 1])])
        return firstRing..<endRing
    }

    /// Calls `body(i)` for every edge (vertex i → i + 1) of feature f.
    func forEachEdge(of f: Int, _ body: (Int) -> Void) {
        for r in ringRange(of: f) {
            let s = Int(ringStart[r]), e = Int(ringStart[r + 1])
            if e - s >= 2 { for i in s..<(e - 1) { body(i) } }
        }
    }

    private mutating func buildBands(feature f: Int) {
        var edges: [Int] = []
        forEachEdge(of: f) { edges.append($0) }
        let minY = bounds[4 * f + 1], maxY = bounds[4 * f + 3]
        // About 6 edges a band keeps each test short; 8192 bands at most per feature.
        let count = max(1, min(8192, edges.count / 6))
        let height = maxY > minY ? (maxY - minY) / Double(count) : 1
        let inv = 1 / height
        bandMinY.append(minY)
        bandInvHeight.append(inv)
        var buckets = [[Int32]](repeating: [], count: count)
        for i in edges {
            let lo = band(min(ys[i], ys[i + 1]), minY, inv, count)
            let hi = band(max(ys[i], ys[i + 1]), minY, inv, count)
            for b in lo...hi { buckets[b].append(Int32(i)) }
        }
        for b in buckets {
            bandEdges += b
            bandStart.append(Int32(bandEdges.count))
        }
        bandFeatureStart.append(Int32(bandStart.count - 1))
    }

    @inline(__always)
    private func band(_ y: Double, _ minY: Double, _ inv: Double, _ count: Int) -> Int {
        let b = (y - minY) * inv
        // Saturating: a huge band density from a file (finite but 1e300) must not trap, and
        // NaN fails the first test.
        guard b > 0 else { return 0 }
        return b < Double(count) ? Int(b) : count - 1
    }

    /// Where (x, y) lies relative to feature f. Identical to GEOS's point-in-area rule
    /// (a ray-crossing count over all the feature's rings, with an exact orientation test),
    /// so `interior` and `boundary` agree with GEOS `contains` and `covers`.
    @inline(__always)
    func locate(x: Double, y: Double, in f: Int) -> Location {
        let b4 = 4 * f
        guard x >= bounds[b4], x <= bounds[b4 + 2], y >= bounds[b4 + 1], y <= bounds[b4 + 3] else { return .exterior }
        let first = Int(bandFeatureStart[f]), count = Int(bandFeatureStart[f + 1]) - first
        let b = first + band(y, bandMinY[f], bandInvHeight[f], count)
        var crossings = 0
        return xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                bandEdges.withUnsafeBufferPointer { edges in
                    for k in Int(bandStart[b])..<Int(bandStart[b + 1]) {
                        let i = Int(edges[k])
                        let x1 = xs[i], y1 = ys[i], x2 = xs[i + 1], y2 = ys[i + 1]
                        // The segment lies wholly left of the point: it cannot cross the ray.
                        if x1 < x && x2 < x { continue }
                        if x == x2 && y == y2 { return .boundary }
                        if y1 == y && y2 == y {
                            if min(x1, x2) <= x && x <= max(x1, x2) { return .boundary }
                            continue
                        }
                        // Half-open rule: an upward edge includes its start and excludes its
                        // end; a downward edge the reverse. Shared vertices count once.
                        if (y1 > y && y2 <= y) || (y2 > y && y1 <= y) {
                            var sign = orientation(x1, y1, x2, y2, x, y)
                            if sign == 0 { return .boundary }
                            if y2 < y1 { sign = -sign }
                            if sign > 0 { crossings += 1 }
                        }
                    }
                    return crossings & 1 == 1 ? .interior : .exterior
                }
            }
        }
    }

    /// True when feature f covers (x, y): its interior or its boundary.
    @inline(__always)
    func covers(x: Double, y: Double, feature f: Int) -> Bool {
        locate(x: x, y: y, in: f) != .exterior
    }
}
