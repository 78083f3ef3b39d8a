import Geodesy
import GeoJSON

/// Why a zone query or a zone file failed.
public enum ZoneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The specification's refusal: the point lies in no service area.
    case outOfServiceArea(Coordinate)
    /// No zone has this id.
    case unknownZone(String)
    /// A zone or service-area file could not be read; `place` names the file and where.
    case badInput(place: String, reason: String)
    /// The data breaks "taxi zones are unique and disjoint".
    case notDisjoint(String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .outOfServiceArea(c): "present location \(c) is out of bounds of any service area"
        case let .unknownZone(id): "unknown zone \"\(id)\""
        case let .badInput(place, reason): "\(place): \(reason)"
        case let .notDisjoint(why): why
        }
    }
}

/// A taxi zone or a service area: a named areal feature of a `ZoneSet`.
public struct Zone: Hashable, Sendable, CustomStringConvertible {
    /// The position in its set (import order); the border rule prefers the lower index.
    public let index: Int
    /// The zone's id, unique in its set.
    public let id: String
    /// The zone's name.
    public let name: String
    /// The source feature's properties, as compact JSON text.
    public let properties: String

    /// "id name".
    public var description: String { "\(id) \(name)" }

    package init(index: Int, id: String, name: String, properties: String) {
        self.index = index; self.id = id; self.name = name; self.properties = properties
    }
}

/// A service area (a city) is stored exactly like a zone.
public typealias ServiceArea = Zone

/// Taxi zones and service areas with fast, exact point lookups.
///
/// The border rule: a point belongs to the zones that *cover* it (GEOS `covers`: interior
/// or boundary). When several do — a point exactly on a shared border, or inside a sliver
/// where real data overlaps — the zone with the lowest index (first in import order) wins.
/// Answers are identical to a brute-force GEOS `covers` test under that rule.
///
/// `Sendable`: a `ZoneSet` is made of arrays and never changes after it is built, so any
/// number of threads may query one value at once with no lock.
public struct ZoneSet: Sendable, Equatable {
    /// The most zones (and the most service areas) one set holds: a cell of its cover
    /// names a zone in 14 bits.
    public static let maximumCount = CellCover.maxFeatures

    /// The zones, in import order (the border rule's order).
    public let zones: [Zone]
    /// The service areas (cities), in import order.
    public let serviceAreas: [ServiceArea]
    /// For each zone index, the indices of the zones that touch it (within 1 m).
    public let adjacency: [[Int]]
    var zoneLayer: PolygonLayer
    var areaLayer: PolygonLayer
    var zoneCover: CellCover
    var areaCover: CellCover

    /// A set from checked WGS84 polygons (outer ring first, then holes; `Position` is
    /// x = longitude, y = latitude), for the importer. The cell covers are built here.
    package init(zones: [Zone], zonePolygons: [[[[Position]]]], serviceAreas: [Zone], areaPolygons: [[[[Position]]]],
                 adjacency: [[Int]]) {
        var zoneLayer = PolygonLayer(), areaLayer = PolygonLayer()
        for p in zonePolygons { zoneLayer.append(polygons: p) }
        for p in areaPolygons { areaLayer.append(polygons: p) }
        self.init(zones: zones, zoneLayer: zoneLayer, serviceAreas: serviceAreas, areaLayer: areaLayer, adjacency: adjacency)
    }

    init(zones: [Zone], zoneLayer: PolygonLayer, serviceAreas: [Zone], areaLayer: PolygonLayer,
         adjacency: [[Int]], zoneCover: CellCover? = nil, areaCover: CellCover? = nil) {
        self.zones = zones
        self.serviceAreas = serviceAreas
        self.adjacency = adjacency
        self.zoneLayer = zoneLayer
        self.areaLayer = areaLayer
        self.zoneCover = zoneCover ?? CellCover(layer: zoneLayer)
        self.areaCover = areaCover ?? CellCover(layer: areaLayer)
    }

    /// The zone containing `point`, or nil outside every zone.
    public func zone(containing point: Coordinate) -> Zone? {
        let i = zoneIndex(longitude: point.longitude, latitude: point.latitude)
        return i < 0 ? nil : zones[i]
    }

    /// The index of the zone containing (longitude, latitude), or -1. The raw form of
    /// `zone(containing:)` for hot loops.
    public func zoneIndex(longitude: Double, latitude: Double) -> Int {
        zoneCover.feature(x: longitude, y: latitude, layer: zoneLayer)
    }

    /// The zones of many points at once, in order.
    public func zones(containing points: [Coordinate]) -> [Zone?] {
        points.map { zone(containing: $0) }
    }

    /// Zone indices (-1 for none) of points given as parallel arrays; the batch form used
    /// by the benchmark, with no per-point allocation.
    public func zoneIndices(longitudes: [Double], latitudes: [Double], into out: inout [Int32]) {
        precondition(longitudes.count == latitudes.count)
        let n = longitudes.count
        out = [Int32](unsafeUninitializedCapacity: n) { buffer, count in
            longitudes.withUnsafeBufferPointer { xs in
                latitudes.withUnsafeBufferPointer { ys in
                    zoneCover.features(xs: xs, ys: ys, layer: zoneLayer, into: buffer)
                }
            }
            count = n
        }
    }

    /// The service area (city) containing `point`. Outside all of them, the refusal the
    /// specification asks for: `ZoneError.outOfServiceArea`.
    public func serviceArea(containing point: Coordinate) throws(ZoneError) -> ServiceArea {
        let i = areaCover.feature(x: point.longitude, y: point.latitude, layer: areaLayer)
        guard i >= 0 else { throw .outOfServiceArea(point) }
        return serviceAreas[i]
    }

    /// True when `point` is inside some service area.
    public func isServed(_ point: Coordinate) -> Bool {
        areaCover.feature(x: point.longitude, y: point.latitude, layer: areaLayer) >= 0
    }

    /// The zones that touch `zone`, for falling back to neighbouring queues.
    public func neighbours(of zone: Zone) -> [Zone] {
        adjacency[zone.index].map { zones[$0] }
    }

    /// The zone with the given id.
    public func zone(id: String) throws(ZoneError) -> Zone {
        guard let z = zones.first(where: { $0.id == id }) else { throw .unknownZone(id) }
        return z
    }

    /// A zone's polygons as raw rings (x = longitude, y = latitude).
    public func polygons(of zone: Zone) -> [[[Position]]] { zoneLayer.polygons(of: zone.index) }

    /// A service area's polygons as raw rings.
    public func polygons(ofServiceArea area: ServiceArea) -> [[[Position]]] { areaLayer.polygons(of: area.index) }

    /// The exact test without the cover: the lowest-index zone covering the point, found by
    /// testing every zone. For checks and for measuring what the cover buys.
    package func zoneIndexByScan(longitude: Double, latitude: Double) -> Int {
        for f in 0..<zoneLayer.featureCount where zoneLayer.covers(x: longitude, y: latitude, feature: f) { return f }
        return -1
    }

    /// True when `zone` covers `point` (its interior or boundary), whatever other zones do.
    public func covers(_ point: Coordinate, zone: Zone) -> Bool {
        zoneLayer.covers(x: point.longitude, y: point.latitude, feature: zone.index)
    }

    /// The bounding box of one zone.
    public func bounds(of zone: Zone) -> BoundingBox {
        let b = zone.index * 4
        return BoundingBox(unchecked: zoneLayer.bounds[b + 1], zoneLayer.bounds[b],
                           zoneLayer.bounds[b + 3], zoneLayer.bounds[b + 2])
    }
}

extension ZoneSet {
    /// The bounding box of all zones (an empty set gives a zero-sized box at 0°, 0°).
    public var bounds: BoundingBox {
        var box = BoundingBox(unchecked: 0, 0, 0, 0)
        for f in 0..<zoneLayer.featureCount {
            let b = BoundingBox(unchecked: zoneLayer.bounds[4 * f + 1], zoneLayer.bounds[4 * f],
                                zoneLayer.bounds[4 * f + 3], zoneLayer.bounds[4 * f + 2])
            if f == 0 { box = b } else { box.formUnion(b) }
        }
        return box
    }
}
