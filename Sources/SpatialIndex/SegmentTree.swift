import Foundation
import Geodesy

/// A packed, static R-tree over the segments of many polylines, for finding the nearest
/// point on a road or street to a coordinate (flatbush-style: segments sorted along a
/// Hilbert curve, sixteen per node, every level in one flat array).
///
/// Polylines are given as CSR arrays: line g runs through the points
/// `lineStart[g] ..< lineStart[g + 1]` of `latE7`/`lonE7` (1e-7 degrees); each pair of
/// consecutive points is a segment. `Sendable`: immutable arrays.
///
/// Distances are measured in a plane tangent at the query's latitude (equirectangular),
/// which is within 0.01 % of the great-circle distance over the kilometre a snap may span.
/// Longitudes are not wrapped: a network crossing the antimeridian is not supported.
public struct SegmentTree: Sendable {
    static let fanout = 8
    /// Every level, leaves first, four doubles per entry. A leaf holds its segment's two
    /// ends (latA, lonA, latB, lonB: a segment's box follows from them, and the search reads
    /// them without a trip through the point arrays); an inner node holds its box (minLat,
    /// minLon, maxLat, maxLon).
    var boxes: [Double] = []
    /// Where each level starts in `boxes` (in entries), then the end of the last (the root).
    var levelStart: [Int] = []
    /// The first point (global index) of each segment, in leaf order.
    public private(set) var segmentPoint: [UInt32] = []
    /// The polyline of each segment, in leaf order.
    public private(set) var segmentLine: [UInt32] = []

    /// cos of the largest |latitude| of any point.
    var smallestCosLatitude = 1.0

    public var memoryBytes: Int { boxes.count * 8 + segmentPoint.count * 8 }

    public init() {}

    public init(latE7: [Int32], lonE7: [Int32], lineStart: [UInt32]) {
        var items: [(key: UInt64, point: UInt32, piece: UInt32)] = []
        var minLat = Int32.max, minLon = Int32.max, maxLat = Int32.min, maxLon = Int32.min
        for k in latE7.indices {
            minLat = min(minLat, latE7[k]); maxLat = max(maxLat, latE7[k])
            minLon = min(minLon, lonE7[k]); maxLon = max(maxLon, lonE7[k])
        }
        smallestCosLatitude = cos(min(90, max(abs(Double(minLat)), abs(Double(maxLat))) * 1e-7) * .pi / 180)
        let spanLat = max(1, Double(maxLat) - Double(minLat)), spanLon = max(1, Double(maxLon) - Double(minLon))
        for p in 0..<(lineStart.count - 1) {
            for k in Int(lineStart[p])..<(Int(lineStart[p + 1]) - 1) {
                let cy = (Double(latE7[k]) + Double(latE7[k + 1])) / 2
                let cx = (Double(lonE7[k]) + Double(lonE7[k + 1])) / 2
                let hx = UInt32((cx - Double(minLon)) / spanLon * 65535), hy = UInt32((cy - Double(minLat)) / spanLat * 65535)
                items.append((hilbertIndex(hx, hy), UInt32(k), UInt32(p)))
            }
        }
        items.sort { $0.key < $1.key }
        segmentPoint = items.map(\.point)
        segmentLine = items.map(\.piece)
        boxes.reserveCapacity(items.count * 4 * 17 / 16 + 8)
        levelStart = [0]
        for it in items {
            let a = Int(it.point)
            boxes += [Double(latE7[a]) * 1e-7, Double(lonE7[a]) * 1e-7, Double(latE7[a + 1]) * 1e-7, Double(lonE7[a + 1]) * 1e-7]
        }
        var count = items.count
        while count > 1 {
            let start = levelStart.last!, leaves = levelStart.count == 1
            levelStart.append(start + count)
            var i = 0
            while i < count {
                var b = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
                for c in i..<min(i + Self.fanout, count) {
                    let o = (start + c) * 4
                    // A leaf's ends are in either order; a box's corners are not.
                    let (lat0, lat1) = leaves ? (min(boxes[o], boxes[o + 2]), max(boxes[o], boxes[o + 2])) : (boxes[o], boxes[o + 2])
                    let (lon0, lon1) = leaves ? (min(boxes[o + 1], boxes[o + 3]), max(boxes[o + 1], boxes[o + 3])) : (boxes[o + 1], boxes[o + 3])
                    b[0] = min(b[0], lat0); b[1] = min(b[1], lon0)
                    b[2] = max(b[2], lat1); b[3] = max(b[3], lon1)
                }
                boxes += b
                i += Self.fanout
            }
            count = (count + Self.fanout - 1) / Self.fanout
        }
        levelStart.append(levelStart.last! + count)
    }

    /// The nearest segment to a coordinate within `limit` metres (inclusive; ties go to the
    /// first segment in leaf order).
    ///
    /// Depth first, nearest box first, pruning any box farther than the best segment so far:
    /// the first descent usually lands within metres of the answer, so after it almost every
    /// box is pruned unopened. (Best first with a heap pushed every box within the limit,
    /// which for a 1 km limit in a dense city is most of them.)
    public func nearest(to c: Coordinate, within limit: Double) -> SegmentHit? {
        guard !segmentPoint.isEmpty else { return nil }
        let cosφ = cos(c.latitude * .pi / 180)
        // The best so far, its distance squared: a square root per segment would sit on the
        // search's critical path (measured: a tenth of the query time on that one compare).
        var best = (segment: -1, t: 0.0, metres2: limit * limit)
        let root = levelStart.count - 2
        // A metre per degree of longitude shrinks towards the poles: the smallest value over
        // the network and the query keeps box distances lower bounds without a cosine per box.
        let mPerDeg = Earth.meanRadius * .pi / 180
        let kx = cosφ * mPerDeg, kxBox = min(cosφ, smallestCosLatitude) * mPerDeg
        let (qy, qx) = (c.latitude, c.longitude)
        boxes.withUnsafeBufferPointer { b in
            // The one unsafe wall of this search: `b` is the tree's own array, and every index
            // below is a node or segment the build wrote (levelStart bounds each level).
            @inline(__always) func segments(_ range: Range<Int>) {
                for s in range {
                    let o = s * 4
                    let ax = (b[o + 1] - qx) * kx, ay = (b[o] - qy) * mPerDeg
                    let dx = (b[o + 3] - qx) * kx - ax, dy = (b[o + 2] - qy) * mPerDeg - ay
                    let len2 = dx * dx + dy * dy
                    let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
                    let px = ax + t * dx, py = ay + t * dy, d = px * px + py * py
                    if d < best.metres2 || (d == best.metres2 && (best.segment < 0 || s < best.segment)) { best = (s, t, d) }
                }
            }
            guard root > 0 else { segments(0..<1); return }
            // Depth first on an explicit stack of (squared box distance, level, node): each
            // node's children go on nearest last, so the nearest is opened first.
            withUnsafeTemporaryAllocation(of: (Double, Int32, Int32).self, capacity: root * Self.fanout + 1) { stack in
                stack[0] = (0, Int32(root), 0)
                var top = 1
                while top > 0 {
                    top -= 1
                    let (d, level, node) = stack[top]
                    guard d <= best.metres2 else { continue }
                    let childLevel = Int(level) - 1, first = Int(node) * Self.fanout
                    let base = levelStart[childLevel]
                    let end = min(first + Self.fanout, levelStart[childLevel + 1] - base)
                    if childLevel == 0 { segments(first..<end); continue }
                    let bottom = top
                    for child in first..<end {
                        let o = (base + child) * 4
                        let dy = max(b[o] - qy, 0, qy - b[o + 2]) * mPerDeg
                        let dx = max(b[o + 1] - qx, 0, qx - b[o + 3]) * kxBox
                        let d = dx * dx + dy * dy
                        guard d <= best.metres2 else { continue }
                        // Insertion, farthest at the bottom: at most a fanout's worth.
                        var i = top
                        while i > bottom && stack[i - 1].0 < d { stack[i] = stack[i - 1]; i -= 1 }
                        stack[i] = (d, Int32(childLevel), Int32(child)); top += 1
                    }
                }
            }
        }
        guard best.segment >= 0 else { return nil }
        return SegmentHit(segment: best.segment, fraction: best.t, metres: best.metres2.squareRoot())
    }

    /// The closest point of segment `s` to c: its fraction along the segment and its planar
    /// distance in metres.
    public func project(_ c: Coordinate, onSegment s: Int, cosφ: Double) -> (t: Double, metres: Double) {
        // The same operations in the same order as `nearest`, so both give the same bits.
        let mPerDeg = Earth.meanRadius * .pi / 180, kx = cosφ * mPerDeg
        let o = s * 4
        let ax = (boxes[o + 1] - c.longitude) * kx, ay = (boxes[o] - c.latitude) * mPerDeg
        let bx = (boxes[o + 3] - c.longitude) * kx, by = (boxes[o + 2] - c.latitude) * mPerDeg
        let dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
        let px = ax + t * dx, py = ay + t * dy
        return (t, (px * px + py * py).squareRoot())
    }

    /// The point a fraction `t` along segment `s`, interpolated in degrees.
    public func point(onSegment s: Int, at t: Double) -> Coordinate {
        let o = s * 4
        return Coordinate(unchecked: boxes[o] + t * (boxes[o + 2] - boxes[o]), boxes[o + 1] + t * (boxes[o + 3] - boxes[o + 1]))
    }
}

/// Where a coordinate meets its nearest segment.
public struct SegmentHit: Sendable, Equatable {
    /// The segment, in the tree's leaf order (see `segmentPoint`, `segmentLine`).
    public var segment: Int
    /// How far along the segment the nearest point lies, 0…1.
    public var fraction: Double
    /// Planar metres from the coordinate to that point.
    public var metres: Double
}

/// Position of (x, y) along a Hilbert curve over a 2^16 × 2^16 grid.
func hilbertIndex(_ x0: UInt32, _ y0: UInt32) -> UInt64 {
    var x = x0, y = y0, d: UInt64 = 0
    var s: UInt32 = 1 << 15
    while s > 0 {
        let rx: UInt32 = (x & s) > 0 ? 1 : 0, ry: UInt32 = (y & s) > 0 ? 1 : 0
        d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
        if ry == 0 {
            if rx == 1 { x = 65535 - x; y = 65535 - y }
            swap(&x, &y)
        }
        s >>= 1
    }
    return d
}
