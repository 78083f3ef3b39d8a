import Geodesy

/// The baseline the issue compares against: a plain 2-D k-d tree over raw (latitude,
/// longitude) degrees, as SciPy's `cKDTree` or the `reverse_geocoder` package use. Fast,
/// but a degree of longitude is not a degree of latitude, so its nearest is often not the
/// nearest on the globe; the benchmark counts how often.
struct DegreeKDTree {
    static let leafSize = 8
    var lat: [Double], lon: [Double], ids: [Int]
    var axes: [UInt8] = []

    init(_ points: [Coordinate]) {
        lat = points.map(\.latitude); lon = points.map(\.longitude); ids = Array(points.indices)
        build(0, ids.count, node: 1)
    }

    private func value(_ i: Int, _ axis: Int) -> Double { axis == 0 ? lat[i] : lon[i] }

    private mutating func build(_ lo: Int, _ hi: Int, node: Int) {
        guard hi - lo > Self.leafSize else { return }
        let spreadLat = lat[lo..<hi].max()! - lat[lo..<hi].min()!, spreadLon = lon[lo..<hi].max()! - lon[lo..<hi].min()!
        let axis = spreadLon > spreadLat ? 1 : 0
        if axes.count <= node { axes += repeatElement(0, count: node + 1 - axes.count) }
        axes[node] = UInt8(axis)
        let mid = (lo + hi) / 2
        // Sorting the range is simpler than a selection and fine for a baseline's build.
        let order = (lo..<hi).sorted { value($0, axis) < value($1, axis) }
        let (la, lo2, id) = (order.map { lat[$0] }, order.map { lon[$0] }, order.map { ids[$0] })
        lat.replaceSubrange(lo..<hi, with: la); lon.replaceSubrange(lo..<hi, with: lo2); ids.replaceSubrange(lo..<hi, with: id)
        build(lo, mid, node: 2 * node)
        build(mid + 1, hi, node: 2 * node + 1)
    }

    /// The nearest point by squared degree distance.
    func nearest(to c: Coordinate) -> Int {
        var best = (slot: -1, d: Double.infinity)
        search(c.latitude, c.longitude, 0, ids.count, 1, &best)
        return ids[best.slot]
    }

    private func search(_ y: Double, _ x: Double, _ lo: Int, _ hi: Int, _ node: Int, _ best: inout (slot: Int, d: Double)) {
        func consider(_ i: Int) {
            let dy = lat[i] - y, dx = lon[i] - x, d = dx * dx + dy * dy
            if d < best.d { best = (i, d) }
        }
        if hi - lo <= Self.leafSize {
            for i in lo..<hi { consider(i) }
            return
        }
        let mid = (lo + hi) / 2, axis = Int(axes[node])
        let offset = (axis == 0 ? y : x) - value(mid, axis)
        let (near, far) = offset < 0 ? ((lo, mid, 2 * node), (mid + 1, hi, 2 * node + 1)) : ((mid + 1, hi, 2 * node + 1), (lo, mid, 2 * node))
        search(y, x, near.0, near.1, near.2, &best)
        consider(mid)
        if offset * offset < best.d { search(y, x, far.0, far.1, far.2, &best) }
    }
}
