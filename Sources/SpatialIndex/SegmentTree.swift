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
    static let fanout = 16
    /// Boxes of every level, leaves (segments) first: minLat, minLon, maxLat, maxLon.
    var boxes: [Double] = []
    /// Where each level starts in `boxes` (in boxes); the last level is the root.
    var levelStart: [Int] = []
    /// The polylines' points (shared storage, not a copy).
    public private(set) var pointLatE7: [Int32] = []
    public private(set) var pointLonE7: [Int32] = []
    /// The first point (global index) of each segment, in leaf order.
    public private(set) var segmentPoint: [UInt32] = []
    /// The polyline of each segment, in leaf order.
    public private(set) var segmentLine: [UInt32] = []

    /// cos of the largest |latitude| of any point.
    var smallestCosLatitude = 1.0

    public var memoryBytes: Int { boxes.count * 8 + segmentPoint.count * 8 }  // points are the network's

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
        pointLatE7 = latE7; pointLonE7 = lonE7
        segmentPoint = items.map(\.point)
        segmentLine = items.map(\.piece)
        boxes.reserveCapacity(items.count * 4 * 17 / 16 + 8)
        levelStart = [0]
        for it in items {
            let a = Int(it.point)
            let la = Double(latE7[a]) * 1e-7, lb = Double(latE7[a + 1]) * 1e-7
            let oa = Double(lonE7[a]) * 1e-7, ob = Double(lonE7[a + 1]) * 1e-7
            boxes += [min(la, lb), min(oa, ob), max(la, lb), max(oa, ob)]
        }
        var count = items.count
        while count > 1 {
            let start = levelStart.last!
            levelStart.append(start + count)
            var i = 0
            while i < count {
                var b = [Double.infinity, .infinity, -Double.infinity, -Double.infinity]
                for c in i..<min(i + Self.fanout, count) {
                    let o = (start + c) * 4
                    b[0] = min(b[0], boxes[o]); b[1] = min(b[1], boxes[o + 1])
                    b[2] = max(b[2], boxes[o + 2]); b[3] = max(b[3], boxes[o + 3])
                }
                boxes += b
                i += Self.fanout
            }
            count = (count + Self.fanout - 1) / Self.fanout
        }
        levelStart.append(levelStart.last! + count)
    }

    /// The nearest segment to a coordinate within `limit` metres, and its planar distance;
    /// `heap` is the caller's scratch space (no allocation once it has grown).
    public func nearest(to c: Coordinate, within limit: Double, heap: inout MinHeap) -> (segment: Int, metres: Double)? {
        guard !segmentPoint.isEmpty else { return nil }
        let mPerDeg = Earth.meanRadius * .pi / 180
        let cosφ = cos(c.latitude * .pi / 180)
        // Keys are centimetres, rounded down for boxes so they stay lower bounds.
        let limitKey = UInt32(min(limit * 100, 4e9))
        // A metre per degree of longitude shrinks towards the poles: the smallest value over
        // the network and the query keeps box distances lower bounds without a cosine per box.
        let lonScale = min(cosφ, smallestCosLatitude)
        heap.removeAll()
        let levels = levelStart.count - 1
        heap.push(0, levelStart[levels - 1])
        while let (key, ref) = heap.pop() {
            if key > limitKey { return nil }
            if ref < segmentPoint.count { return (ref, Double(key) / 100) }
            // Find the node's level, then its children one level down.
            var level = levels - 1
            while ref < levelStart[level] { level -= 1 }
            let childLevel = level - 1, index = ref - levelStart[level]
            let first = index * Self.fanout
            let end = min(first + Self.fanout, levelStart[childLevel + 1] - levelStart[childLevel])
            for child in first..<end {
                let box = levelStart[childLevel] + child, o = box * 4
                if childLevel == 0 {
                    let d = project(c, onSegment: child, cosφ: cosφ).metres
                    if d <= limit { heap.push(UInt32(d * 100 + 0.5), box) }
                } else {
                    let dy = max(boxes[o] - c.latitude, 0, c.latitude - boxes[o + 2]) * mPerDeg
                    let dx = max(boxes[o + 1] - c.longitude, 0, c.longitude - boxes[o + 3]) * mPerDeg * lonScale
                    let d = (dx * dx + dy * dy).squareRoot()
                    if d <= limit { heap.push(UInt32(d * 100), box) }
                }
            }
        }
        return nil
    }

    /// The closest point of segment `s` to c: its fraction along the segment and its planar
    /// distance in metres.
    @inline(__always) public func project(_ c: Coordinate, onSegment s: Int, cosφ: Double) -> (t: Double, metres: Double) {
        let mPerDeg = Earth.meanRadius * .pi / 180
        let a = Int(segmentPoint[s])
        let ax = (Double(pointLonE7[a]) * 1e-7 - c.longitude) * cosφ * mPerDeg, ay = (Double(pointLatE7[a]) * 1e-7 - c.latitude) * mPerDeg
        let bx = (Double(pointLonE7[a + 1]) * 1e-7 - c.longitude) * cosφ * mPerDeg, by = (Double(pointLatE7[a + 1]) * 1e-7 - c.latitude) * mPerDeg
        let dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
        let px = ax + t * dx, py = ay + t * dy
        return (t, (px * px + py * py).squareRoot())
    }
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
