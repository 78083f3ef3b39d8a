import Foundation
import Geodesy

/// A packed, static R-tree over the segments of many polylines, for finding the nearest
/// point on a road or street to a coordinate (flatbush-style: segments sorted along a
/// Hilbert curve, eight per node, every level in one flat array).
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
    public internal(set) var segmentPoint: [UInt32] = []
    /// The polyline of each segment, in leaf order.
    public internal(set) var segmentLine: [UInt32] = []

    /// cos of the largest |latitude| of any point.
    var smallestCosLatitude = 1.0

    /// The bytes its arrays hold.
    public var memoryBytes: Int { boxes.count * 8 + segmentPoint.count * 8 }

    /// An empty tree.
    public init() {}

    /// Packs the segments of polylines given as E7 coordinates: line l runs through points
    /// `lineStart[l] ..< lineStart[l + 1]`.
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
        levelStart = Self.levelStarts(segments: items.count)
        boxes.reserveCapacity(levelStart.last! * 4)
        for it in items {
            let a = Int(it.point)
            boxes += [Double(latE7[a]) * 1e-7, Double(lonE7[a]) * 1e-7, Double(latE7[a + 1]) * 1e-7, Double(lonE7[a + 1]) * 1e-7]
        }
        for level in 1..<max(1, levelStart.count - 1) {
            let start = levelStart[level - 1], count = levelStart[level] - start, leaves = level == 1
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
        }
    }

    /// Where each level starts for `n` segments, then the end: the leaves, then levels of
    /// ceil(previous / fanout) entries up to one root. Fixed by `n`, so files need not store it.
    static func levelStarts(segments n: Int) -> [Int] {
        var starts = [0], count = n
        while count > 1 { starts.append(starts.last! + count); count = (count + fanout - 1) / fanout }
        starts.append(starts.last! + count)
        return starts
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
        // The best so far, its distance squared: a square root per segment would sit on the
        // search's critical path (measured: a tenth of the query time on that one compare).
        var best = (segment: -1, t: 0.0, metres2: limit * limit)
        let cosφ = cos(c.latitude * .pi / 180), kx = cosφ * Self.metresPerDegree, (qy, qx) = (c.latitude, c.longitude)
        walkNearestFirst(from: c, cosφ: cosφ, bound: { best.metres2 }) { b, range in
            for s in range {
                let (t, d) = Self.closest(b, s, qy, qx, kx: kx, ky: Self.metresPerDegree)
                if d < best.metres2 || (d == best.metres2 && (best.segment < 0 || s < best.segment)) { best = (s, t, d) }
            }
        }
        guard best.segment >= 0 else { return nil }
        return SegmentHit(segment: best.segment, fraction: best.t, metres: best.metres2.squareRoot())
    }

    /// The walk of the nearest-first searches: depth first on an explicit stack of (squared
    /// box distance, level, node), each node's children pushed nearest last so that the
    /// nearest is opened first; a box farther than `bound()` (square metres, read before each
    /// box, so a bound that shrinks as segments are found prunes at once) is not opened.
    /// `leaves` gets the tree's boxes and each opened leaf node's range of segments; `cosφ`
    /// is the cosine of `c`'s latitude.
    ///
    /// The one unsafe wall of these searches: the buffer is the tree's own array, and every
    /// index is a node or segment the build wrote (`levelStart` bounds each level).
    @inline(__always)
    func walkNearestFirst(from c: Coordinate, cosφ: Double, bound: () -> Double,
                          leaves: (UnsafeBufferPointer<Double>, Range<Int>) -> Void) {
        let root = levelStart.count - 2
        // A metre per degree of longitude shrinks towards the poles: the smallest value over
        // the network and the query keeps box distances lower bounds without a cosine per box.
        let mPerDeg = Self.metresPerDegree
        let kxBox = min(cosφ, smallestCosLatitude) * mPerDeg
        let (qy, qx) = (c.latitude, c.longitude)
        // Nodes fit the stack's Int32s, so the loop below converts without a check.
        precondition((levelStart.last ?? 0) <= Int(Int32.max))
        boxes.withUnsafeBufferPointer { b in
            guard root > 0 else { leaves(b, 0..<1); return }
            withUnsafeTemporaryAllocation(of: (Double, Int32, Int32).self, capacity: root * Self.fanout + 1) { stack in
                stack[0] = (0, Int32(root), 0)
                var top = 1
                while top > 0 {
                    top -= 1
                    let (d, level, node) = stack[top]
                    guard d <= bound() else { continue }
                    let childLevel = Int(level) - 1, first = Int(node) * Self.fanout
                    let base = levelStart[childLevel]
                    let end = min(first + Self.fanout, levelStart[childLevel + 1] - base)
                    if childLevel == 0 { leaves(b, first..<end); continue }
                    let bottom = top
                    // The loop every search spends most of its time in: wrapping index
                    // arithmetic (every index is below `levelStart.last`) and a two-way max
                    // (the three-way one compiled to branches), the same value either way.
                    let level32 = Int32(truncatingIfNeeded: childLevel)
                    for child in first..<end {
                        let o = (base &+ child) &* 4
                        // How far outside the box along each axis (0 inside).
                        let gy = Swift.max(b[o] - qy, qy - b[o &+ 2]), gx = Swift.max(b[o &+ 1] - qx, qx - b[o &+ 3])
                        let dy = (gy > 0 ? gy : 0) * mPerDeg, dx = (gx > 0 ? gx : 0) * kxBox
                        let d = dx * dx + dy * dy
                        guard d <= bound() else { continue }
                        // Insertion, farthest at the bottom: at most a fanout's worth.
                        var i = top
                        while i > bottom && stack[i &- 1].0 < d { stack[i] = stack[i &- 1]; i &-= 1 }
                        stack[i] = (d, level32, Int32(truncatingIfNeeded: child)); top &+= 1
                    }
                }
            }
        }
    }

    /// Every segment within `limit` metres of a coordinate, with its nearest point, appended
    /// to `out` in no particular order: the candidates a map matcher weighs for one GPS point.
    ///
    /// Depth first over the boxes, opening only those within the limit; `out` is the
    /// caller's buffer, so a matcher that asks once per point allocates nothing after the
    /// first few points.
    public func segments(within limit: Double, of c: Coordinate, into out: inout [SegmentHit]) {
        guard !segmentPoint.isEmpty, limit >= 0 else { return }
        let cosφ = cos(c.latitude * .pi / 180), mPerDeg = Self.metresPerDegree
        let kx = cosφ * mPerDeg, kxBox = min(cosφ, smallestCosLatitude) * mPerDeg
        let (qy, qx) = (c.latitude, c.longitude), limit2 = limit * limit
        let root = levelStart.count - 2
        boxes.withUnsafeBufferPointer { b in
            func leaves(_ range: Range<Int>) {
                for s in range {
                    let (t, d) = Self.closest(b, s, qy, qx, kx: kx, ky: mPerDeg)
                    if d <= limit2 { out.append(SegmentHit(segment: s, fraction: t, metres: d.squareRoot())) }
                }
            }
            guard root > 0 else { leaves(0..<1); return }
            withUnsafeTemporaryAllocation(of: (Int32, Int32).self, capacity: root * Self.fanout + 1) { stack in
                stack[0] = (Int32(root), 0)
                var top = 1
                while top > 0 {
                    top -= 1
                    let (level, node) = stack[top]
                    let childLevel = Int(level) - 1, first = Int(node) * Self.fanout
                    let base = levelStart[childLevel]
                    let end = min(first + Self.fanout, levelStart[childLevel + 1] - base)
                    if childLevel == 0 { leaves(first..<end); continue }
                    for child in first..<end {
                        let o = (base + child) * 4
                        let dy = max(b[o] - qy, 0, qy - b[o + 2]) * mPerDeg
                        let dx = max(b[o + 1] - qx, 0, qx - b[o + 3]) * kxBox
                        guard dx * dx + dy * dy <= limit2 else { continue }
                        stack[top] = (Int32(childLevel), Int32(child)); top += 1
                    }
                }
            }
        }
    }

    /// Every segment within `limit` metres of a coordinate whose squared distance exceeds the
    /// nearest segment's by at most `slack2` (square metres), appended to `out` in no
    /// particular order: a map matcher's candidates, which cannot win beyond that slack.
    ///
    /// Depth first, nearest box first, as ``nearest(to:within:)``: the bound starts at the
    /// limit and shrinks to the nearest distance found plus the slack, so a query near a
    /// road opens the boxes of a few metres around it rather than of the whole limit.
    public func segments(within limit: Double, slack2: Double, of c: Coordinate, into out: inout [SegmentHit]) {
        guard !segmentPoint.isEmpty, limit >= 0, slack2 >= 0 else { return }
        let first = out.count
        let cosφ = cos(c.latitude * .pi / 180), kx = cosφ * Self.metresPerDegree, (qy, qx) = (c.latitude, c.longitude)
        let limit2 = limit * limit
        var nearest2 = Double.infinity, bound2 = limit2
        walkNearestFirst(from: c, cosφ: cosφ, bound: { bound2 }) { b, range in
            for s in range {
                let (t, d) = Self.closest(b, s, qy, qx, kx: kx, ky: Self.metresPerDegree)
                guard d <= bound2 else { continue }
                out.append(SegmentHit(segment: s, fraction: t, metres: d.squareRoot()))
                if d < nearest2 { nearest2 = d; bound2 = min(limit2, d + slack2) }
            }
        }
        // Hits taken before the bound shrank to its last value (squared back from their
        // metres, so with a rounding's margin: the nearest itself always stays).
        var kept = first
        for k in first..<out.count where out[k].metres * out[k].metres <= bound2 * (1 + 1e-9) { out[kept] = out[k]; kept += 1 }
        out.removeSubrange(kept...)
    }

    /// The tree's extent (minLat, minLon, maxLat, maxLon), nil when it is empty.
    var bounds: (minLat: Double, minLon: Double, maxLat: Double, maxLon: Double)? {
        guard !segmentPoint.isEmpty else { return nil }
        let root = levelStart.count - 2, o = levelStart[root] * 4
        if root > 0 { return (boxes[o], boxes[o + 1], boxes[o + 2], boxes[o + 3]) }
        return (min(boxes[0], boxes[2]), min(boxes[1], boxes[3]), max(boxes[0], boxes[2]), max(boxes[1], boxes[3]))
    }

    /// Every segment whose box lies within `metres` of the box `lat` × `lon` (degrees), in
    /// leaf order, with `kx` metres per degree of longitude. For building indexes over the
    /// tree, not for queries: it returns an array.
    func segments(nearLatitudes lat: ClosedRange<Double>, longitudes lon: ClosedRange<Double>,
                  within metres: Double, kx: Double) -> [Int] {
        var out: [Int] = []
        guard !segmentPoint.isEmpty else { return out }
        let limit2 = metres * metres, ky = Self.metresPerDegree
        func near(_ minLat: Double, _ minLon: Double, _ maxLat: Double, _ maxLon: Double) -> Bool {
            let dy = max(minLat - lat.upperBound, 0, lat.lowerBound - maxLat) * ky
            let dx = max(minLon - lon.upperBound, 0, lon.lowerBound - maxLon) * kx
            return dx * dx + dy * dy <= limit2
        }
        func visit(_ level: Int, _ node: Int) {
            let o = (levelStart[level] + node) * 4
            if level == 0 {
                if near(min(boxes[o], boxes[o + 2]), min(boxes[o + 1], boxes[o + 3]), max(boxes[o], boxes[o + 2]), max(boxes[o + 1], boxes[o + 3])) {
                    out.append(node)
                }
                return
            }
            guard near(boxes[o], boxes[o + 1], boxes[o + 2], boxes[o + 3]) else { return }
            let first = node * Self.fanout
            for child in first..<min(first + Self.fanout, levelStart[level] - levelStart[level - 1]) { visit(level - 1, child) }
        }
        visit(levelStart.count - 2, 0)
        return out
    }

    /// The closest point of segment `s` to c: its fraction along the segment and its planar
    /// distance in metres.
    public func project(_ c: Coordinate, onSegment s: Int, cosφ: Double) -> (t: Double, metres: Double) {
        let (t, d) = boxes.withUnsafeBufferPointer { Self.closest($0, s, c.latitude, c.longitude, kx: cosφ * Self.metresPerDegree, ky: Self.metresPerDegree) }
        return (t, d.squareRoot())
    }

    static let metresPerDegree = Earth.meanRadius * .pi / 180

    /// The fraction along segment `s` of its closest point to (qy, qx) degrees, and that
    /// point's squared planar distance, with `kx` and `ky` metres per degree of longitude and
    /// latitude. Every search
    /// goes through this one formula, so all of them give the same bits for the same segment.
    @inline(__always)
    static func closest(_ b: UnsafeBufferPointer<Double>, _ s: Int, _ qy: Double, _ qx: Double, kx: Double, ky: Double) -> (t: Double, metres2: Double) {
        let o = s * 4
        let ax = (b[o + 1] - qx) * kx, ay = (b[o] - qy) * ky
        let dx = (b[o + 3] - qx) * kx - ax, dy = (b[o + 2] - qy) * ky - ay
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
        let px = ax + t * dx, py = ay + t * dy
        return (t, px * px + py * py)
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
