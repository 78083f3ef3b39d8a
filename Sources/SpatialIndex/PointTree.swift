import Geodesy

/// A static k-d tree over fixed points on the sphere, for the one nearest point to a
/// coordinate: reverse geocoding's addresses and gazetteer places (kdbush-style: one flat,
/// implicit tree, no node objects).
///
/// Points are 3-D unit vectors (`SpherePoint`), so the nearest by chord is the nearest by
/// great-circle distance, exactly, at the poles and across the antimeridian. Why not the
/// fleet's `RTree`: these points never move, and a static tree needs no boxes, no free
/// space and no updates, so a query touches about half the memory.
///
/// `Sendable`: immutable arrays; a query needs no scratch space.
public struct PointTree: Sendable {
    /// Points per leaf: a leaf is scanned; eight keeps a leaf within three cache lines.
    static let leafSize = 8
    /// x, y, z of each point, in tree order.
    var xyz: [Double] = []
    /// The caller's index of each point, in tree order.
    var ids: [UInt32] = []
    /// Split axis (0, 1, 2) of each inner node, numbered as a binary heap from 1.
    var axes: [UInt8] = []

    /// The number of points.
    public var count: Int { ids.count }
    /// The bytes its arrays hold.
    public var memoryBytes: Int { xyz.count * 8 + ids.count * 4 + axes.count }

    /// An empty tree.
    public init() {}

    /// A tree over `coordinates`; answers are indexes into that array.
    public init(_ coordinates: [Coordinate]) {
        xyz.reserveCapacity(coordinates.count * 3)
        for c in coordinates {
            let p = SpherePoint(c)
            xyz += [p.x, p.y, p.z]
        }
        ids = coordinates.indices.map { UInt32($0) }
        build(0, ids.count, node: 1)
    }

    /// Splits [lo, hi) at its middle along the axis where its points spread widest. The
    /// middle point stays in place and is the split: [lo, mid) ≤ it ≤ (mid, hi).
    private mutating func build(_ lo: Int, _ hi: Int, node: Int) {
        guard hi - lo > Self.leafSize else { return }
        var spread = (0.0, 0.0, 0.0)
        do {
            var lower = (Double.infinity, Double.infinity, Double.infinity), upper = (-Double.infinity, -Double.infinity, -Double.infinity)
            for i in lo..<hi {
                let (x, y, z) = (xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2])
                lower = (min(lower.0, x), min(lower.1, y), min(lower.2, z)); upper = (max(upper.0, x), max(upper.1, y), max(upper.2, z))
            }
            spread = (upper.0 - lower.0, upper.1 - lower.1, upper.2 - lower.2)
        }
        let axis = spread.0 >= spread.1 && spread.0 >= spread.2 ? 0 : spread.1 >= spread.2 ? 1 : 2
        if axes.count <= node { axes += repeatElement(0, count: node + 1 - axes.count) }
        axes[node] = UInt8(axis)
        let mid = (lo + hi) / 2
        select(mid, in: lo, hi, axis: axis)
        build(lo, mid, node: 2 * node)
        build(mid + 1, hi, node: 2 * node + 1)
    }

    /// Quickselect (Hoare partition, middle pivot): puts the k-th point along `axis` at k.
    private mutating func select(_ k: Int, in lo0: Int, _ hi0: Int, axis: Int) {
        var lo = lo0, hi = hi0 - 1
        while lo < hi {
            let pivot = xyz[3 * ((lo + hi) / 2) + axis]
            var i = lo, j = hi
            while i <= j {
                while xyz[3 * i + axis] < pivot { i += 1 }
                while xyz[3 * j + axis] > pivot { j -= 1 }
                if i <= j { swapPoints(i, j); i += 1; j -= 1 }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return }
        }
    }

    private mutating func swapPoints(_ i: Int, _ j: Int) {
        guard i != j else { return }
        ids.swapAt(i, j)
        for a in 0..<3 { xyz.swapAt(3 * i + a, 3 * j + a) }
    }

    /// The nearest point to `c` within `limit` great-circle metres (inclusive) and its
    /// distance; ties go to the smaller index. Nil when no point is that close.
    public func nearest(to c: Coordinate, within limit: Double = .infinity) -> (index: Int, metres: Double)? {
        guard !ids.isEmpty else { return nil }
        let q = SpherePoint(c)
        var best = (slot: -1, chord2: ChordDistance.chord2(metres: limit))
        xyz.withUnsafeBufferPointer { p in
            ids.withUnsafeBufferPointer { ids in
                axes.withUnsafeBufferPointer { axes in
                    Self.search(p, ids, axes, q, 0, ids.count, node: 1, best: &best)
                }
            }
        }
        guard best.slot >= 0 else { return nil }
        return (Int(ids[best.slot]), ChordDistance.metres(chord2: best.chord2))
    }

    /// Depth first, nearer side first; the far side only when its split plane is closer than
    /// the best so far. The buffers are the tree's own arrays, read only.
    private static func search(_ p: UnsafeBufferPointer<Double>, _ ids: UnsafeBufferPointer<UInt32>, _ axes: UnsafeBufferPointer<UInt8>,
                               _ q: SpherePoint, _ lo: Int, _ hi: Int, node: Int, best: inout (slot: Int, chord2: Double)) {
        @inline(__always) func consider(_ i: Int) {
            let dx = p[3 * i] - q.x, dy = p[3 * i + 1] - q.y, dz = p[3 * i + 2] - q.z
            let d = dx * dx + dy * dy + dz * dz
            if d < best.chord2 || (d == best.chord2 && (best.slot < 0 || ids[i] < ids[best.slot])) { best = (i, d) }
        }
        if hi - lo <= leafSize {
            for i in lo..<hi { consider(i) }
            return
        }
        let mid = (lo + hi) / 2
        let axis = Int(axes[node])
        let offset = (axis == 0 ? q.x : axis == 1 ? q.y : q.z) - p[3 * mid + axis]
        if offset < 0 {
            search(p, ids, axes, q, lo, mid, node: 2 * node, best: &best)
            consider(mid)
            if offset * offset <= best.chord2 { search(p, ids, axes, q, mid + 1, hi, node: 2 * node + 1, best: &best) }
        } else {
            search(p, ids, axes, q, mid + 1, hi, node: 2 * node + 1, best: &best)
            consider(mid)
            if offset * offset <= best.chord2 { search(p, ids, axes, q, lo, mid, node: 2 * node, best: &best) }
        }
    }
}
