import Geodesy

/// A reference baseline, not part of the engine: a static 2-D k-d tree over raw (latitude,
/// longitude) degrees with planar distances, the way nanoflann, SciPy's `cKDTree` and the
/// `reverse_geocoder` package are commonly used. Benchmarks and `wayfare bench` run it on the
/// same points in the same process, so Wayfare's figures can be quoted as ratios that the
/// machine's noise does not move.
///
/// It is fast but wrong on the globe: a degree of longitude is not a degree of latitude, so
/// its nearest is often not the great-circle nearest (the geocoding benchmark counts how
/// often), and it cannot take updates.
///
/// Layout: the points sorted into an implicit balanced tree (each range's median is its
/// node), in two coordinate arrays; no node records but one split axis per node.
public struct DegreeKDTree: Sendable {
    static let leafSize = 8
    var lat: [Double], lon: [Double], ids: [Int32]
    var axes: [UInt8]

    /// Builds the tree over `points`; answers are indices into `points`.
    public init(_ points: [Coordinate]) {
        lat = points.map(\.latitude); lon = points.map(\.longitude); ids = (0..<Int32(points.count)).map { $0 }
        axes = []
        build(0, ids.count, node: 1)
    }

    private func value(_ i: Int, _ axis: Int) -> Double { axis == 0 ? lat[i] : lon[i] }

    private mutating func build(_ lo: Int, _ hi: Int, node: Int) {
        guard hi - lo > Self.leafSize else { return }
        var minLat = Double.infinity, maxLat = -Double.infinity, minLon = Double.infinity, maxLon = -Double.infinity
        for i in lo..<hi {
            minLat = min(minLat, lat[i]); maxLat = max(maxLat, lat[i]); minLon = min(minLon, lon[i]); maxLon = max(maxLon, lon[i])
        }
        let axis = maxLon - minLon > maxLat - minLat ? 1 : 0
        if axes.count <= node { axes += repeatElement(0, count: node + 1 - axes.count) }
        axes[node] = UInt8(axis)
        let mid = (lo + hi) / 2
        select(lo, hi, nth: mid, axis: axis)
        build(lo, mid, node: 2 * node)
        build(mid + 1, hi, node: 2 * node + 1)
    }

    /// Quickselect (Hoare partition, middle pivot): the median at `nth`, no greater value
    /// before it and no smaller after.
    private mutating func select(_ lo: Int, _ hi: Int, nth: Int, axis: Int) {
        var lo = lo, hi = hi - 1
        while lo < hi {
            let pivot = value((lo + hi) / 2, axis)
            var i = lo, j = hi
            while i <= j {
                while value(i, axis) < pivot { i += 1 }
                while value(j, axis) > pivot { j -= 1 }
                if i <= j { swapAt(i, j); i += 1; j -= 1 }
            }
            if nth <= j { hi = j } else if nth >= i { lo = i } else { return }
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        lat.swapAt(i, j); lon.swapAt(i, j); ids.swapAt(i, j)
    }

    /// The index of the nearest point by planar squared degrees.
    public func nearest(to c: Coordinate) -> Int {
        var best = Candidates(k: 1)
        search(c.latitude, c.longitude, 0, ids.count, 1, &best)
        return Int(best.items[0].id)
    }

    /// The indices of the `k` nearest points by planar squared degrees, nearest first,
    /// written into `result`.
    public func nearest(_ k: Int, to c: Coordinate, into result: inout [Int]) {
        result.removeAll(keepingCapacity: true)
        guard k > 0, !ids.isEmpty else { return }
        var best = Candidates(k: k)
        search(c.latitude, c.longitude, 0, ids.count, 1, &best)
        for item in best.items { result.append(Int(item.id)) }
    }

    /// The indices of the points within `radius` degrees (planar), unsorted, written into
    /// `result`.
    public func within(_ radius: Double, of c: Coordinate, into result: inout [Int]) {
        result.removeAll(keepingCapacity: true)
        collect(c.latitude, c.longitude, radius * radius, 0, ids.count, 1, &result)
    }

    /// The k best so far, sorted nearest first (k is small: insertion is cheapest).
    struct Candidates {
        let k: Int
        var items: [(d: Double, id: Int32)] = []
        init(k: Int) { self.k = k; items.reserveCapacity(k + 1) }
        var bound: Double { items.count < k ? .infinity : items[items.count - 1].d }
        mutating func offer(_ d: Double, _ id: Int32) {
            guard d < bound else { return }
            var i = items.count
            items.append((d, id))
            while i > 0 && items[i - 1].d > d { items[i] = items[i - 1]; i -= 1 }
            items[i] = (d, id)
            if items.count > k { items.removeLast() }
        }
    }

    private func search(_ y: Double, _ x: Double, _ lo: Int, _ hi: Int, _ node: Int, _ best: inout Candidates) {
        if hi - lo <= Self.leafSize {
            for i in lo..<hi { best.offer(squared(i, y, x), ids[i]) }
            return
        }
        let mid = (lo + hi) / 2, axis = Int(axes[node])
        let offset = (axis == 0 ? y : x) - value(mid, axis)
        let (near, far) = offset < 0 ? ((lo, mid, 2 * node), (mid + 1, hi, 2 * node + 1)) : ((mid + 1, hi, 2 * node + 1), (lo, mid, 2 * node))
        search(y, x, near.0, near.1, near.2, &best)
        best.offer(squared(mid, y, x), ids[mid])
        if offset * offset < best.bound { search(y, x, far.0, far.1, far.2, &best) }
    }

    private func collect(_ y: Double, _ x: Double, _ r2: Double, _ lo: Int, _ hi: Int, _ node: Int, _ out: inout [Int]) {
        if hi - lo <= Self.leafSize {
            for i in lo..<hi where squared(i, y, x) <= r2 { out.append(Int(ids[i])) }
            return
        }
        let mid = (lo + hi) / 2, axis = Int(axes[node])
        let offset = (axis == 0 ? y : x) - value(mid, axis)
        if squared(mid, y, x) <= r2 { out.append(Int(ids[mid])) }
        if offset < 0 || offset * offset <= r2 { collect(y, x, r2, lo, mid, 2 * node, &out) }
        if offset >= 0 || offset * offset <= r2 { collect(y, x, r2, mid + 1, hi, 2 * node + 1, &out) }
    }

    @inline(__always)
    private func squared(_ i: Int, _ y: Double, _ x: Double) -> Double {
        let dy = lat[i] - y, dx = lon[i] - x
        return dx * dx + dy * dy
    }
}
