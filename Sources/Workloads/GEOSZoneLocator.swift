import Geometry
import Zones

/// The plain GEOS way to find a point's zone, kept as the baseline and the oracle:
/// either an STR tree of envelopes plus prepared `covers` (indexed), or `covers` against
/// every zone (brute force). Same border rule as `ZoneSet`: the lowest covering index wins.
///
/// Not `Sendable`: it owns a GEOS context (see `GEOSContext`); make one per thread.
public final class GEOSZoneLocator {
    private let context = GEOSContext()
    private var geometries: [Geometry] = []
    private var prepared: [PreparedGeometry] = []
    private let tree: EnvelopeTree
    private let indexed: Bool
    private var candidates: [Int] = []

    /// Prepares every zone of `set` in GEOS; with `indexed`, behind an STR tree.
    public init(_ set: ZoneSet, indexed: Bool = true) throws(GeometryError) {
        tree = EnvelopeTree(in: context)
        self.indexed = indexed
        for z in set.zones {
            let polys = set.polygons(of: z)
            let g = try Geometry(polys.count == 1 ? .polygon(polys[0]) : .multiPolygon(polys), in: context)
            geometries.append(g)
            if indexed {
                prepared.append(try g.prepared())
                tree.insert(g, item: z.index)
            }
        }
    }

    /// The index of the lowest-index zone covering (longitude, latitude), or -1.
    public func zoneIndex(longitude: Double, latitude: Double) -> Int {
        guard let point = try? Geometry.point(x: longitude, y: latitude, in: context) else { return -1 }
        if !indexed {
            for (i, g) in geometries.enumerated() where g.covers(point) { return i }
            return -1
        }
        tree.query(point, into: &candidates)
        candidates.sort()
        for i in candidates where prepared[i].covers(point) { return i }
        return -1
    }
}
