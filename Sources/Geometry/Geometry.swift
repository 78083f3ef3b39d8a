import CGEOS
import GeoJSON

/// Owns one `GEOSGeometry*`; destroyed exactly once with the context it was made in.
final class GEOSObject {
    let context: GEOSContext
    let raw: OpaquePointer
    init(_ context: GEOSContext, _ raw: OpaquePointer) { self.context = context; self.raw = raw }
    deinit { GEOSGeom_destroy_r(context.handle, raw) }
}

/// What `Geometry.validity` found.
public enum Validity: Equatable, Sendable {
    /// GEOS finds the geometry valid.
    case valid
    /// GEOS's reason, for example `Self-intersection[7.41 43.73]`.
    case invalid(reason: String)
}

/// A GEOS geometry. Immutable: every operation returns a new value.
/// Not `Sendable`: see `GEOSContext` for the thread rule.
public struct Geometry: CustomStringConvertible {
    let object: GEOSObject
    var context: GEOSContext { object.context }
    var raw: OpaquePointer { object.raw }
    var handle: GEOSContextHandle_t { object.context.handle }

    init(_ context: GEOSContext, _ raw: OpaquePointer) { object = GEOSObject(context, raw) }

    /// Wraps a result pointer, turning NULL into an error carrying GEOS's reason.
    static func wrap(_ context: GEOSContext, _ raw: OpaquePointer?, _ op: String) throws(GeometryError) -> Geometry {
        guard let raw else { throw .operation(op, reason: context.takeError()) }
        return Geometry(context, raw)
    }

    // MARK: Reading and writing

    /// Reads Well-Known Text.
    public init(wkt: String, in context: GEOSContext) throws(GeometryError) {
        let h = context.handle
        guard let reader = GEOSWKTReader_create_r(h) else { throw .parse(format: "WKT", reason: context.takeError()) }
        defer { GEOSWKTReader_destroy_r(h, reader) }
        guard let g = GEOSWKTReader_read_r(h, reader, wkt) else {
            throw .parse(format: "WKT", reason: context.takeError())
        }
        self.init(context, g)
    }

    /// Reads Well-Known Binary (either byte order).
    public init(wkb: [UInt8], in context: GEOSContext) throws(GeometryError) {
        let h = context.handle
        guard let reader = GEOSWKBReader_create_r(h) else { throw .parse(format: "WKB", reason: context.takeError()) }
        defer { GEOSWKBReader_destroy_r(h, reader) }
        let g = wkb.withUnsafeBufferPointer { GEOSWKBReader_read_r(h, reader, $0.baseAddress, $0.count) }
        guard let g else { throw .parse(format: "WKB", reason: context.takeError()) }
        self.init(context, g)
    }

    /// Reads a GeoJSON geometry object (text).
    public init(geoJSON: String, in context: GEOSContext) throws(GeometryError) {
        let h = context.handle
        guard let reader = GEOSGeoJSONReader_create_r(h) else { throw .parse(format: "GeoJSON", reason: context.takeError()) }
        defer { GEOSGeoJSONReader_destroy_r(h, reader) }
        guard let g = GEOSGeoJSONReader_readGeometry_r(h, reader, geoJSON) else {
            throw .parse(format: "GeoJSON", reason: context.takeError())
        }
        self.init(context, g)
    }

    /// Well-Known Text, with trailing zeros trimmed.
    public var wkt: String {
        let h = handle
        guard let w = GEOSWKTWriter_create_r(h) else { return "" }
        defer { GEOSWKTWriter_destroy_r(h, w) }
        GEOSWKTWriter_setTrim_r(h, w, 1)
        GEOSWKTWriter_setRoundingPrecision_r(h, w, 15)
        guard let s = GEOSWKTWriter_write_r(h, w, raw) else { return "" }
        defer { GEOSFree_r(h, s) }
        return String(cString: s)
    }

    /// Well-Known Binary, little-endian.
    public var wkb: [UInt8] {
        let h = handle
        guard let w = GEOSWKBWriter_create_r(h) else { return [] }
        defer { GEOSWKBWriter_destroy_r(h, w) }
        GEOSWKBWriter_setByteOrder_r(h, w, Int32(GEOS_WKB_NDR.rawValue))
        var size = 0
        guard let p = GEOSWKBWriter_write_r(h, w, raw, &size) else { return [] }
        defer { GEOSFree_r(h, p) }
        return Array(UnsafeBufferPointer(start: p, count: size))
    }

    /// A GeoJSON geometry object (text).
    public var geoJSON: String {
        let h = handle
        guard let w = GEOSGeoJSONWriter_create_r(h) else { return "" }
        defer { GEOSGeoJSONWriter_destroy_r(h, w) }
        guard let s = GEOSGeoJSONWriter_writeGeometry_r(h, w, raw, -1) else { return "" }
        defer { GEOSFree_r(h, s) }
        return String(cString: s)
    }

    /// The geometry as WKT.
    public var description: String { wkt }

    // MARK: Properties

    /// The GEOS type name: `Polygon`, `MultiPolygon`, …
    public var typeName: String {
        guard let s = GEOSGeomType_r(handle, raw) else { return "Unknown" }
        defer { GEOSFree_r(handle, s) }
        return String(cString: s)
    }

    /// Whether the geometry has no points.
    public var isEmpty: Bool { GEOSisEmpty_r(handle, raw) == 1 }

    /// Planar area in the geometry's own units squared.
    public var area: Double {
        var a = 0.0
        _ = GEOSArea_r(handle, raw, &a)
        return a
    }

    /// Validity with GEOS's reason (`GEOSisValidReason`).
    public var validity: Validity {
        if GEOSisValid_r(handle, raw) == 1 { return .valid }
        guard let s = GEOSisValidReason_r(handle, raw) else { return .invalid(reason: context.takeError()) }
        defer { GEOSFree_r(handle, s) }
        return .invalid(reason: String(cString: s))
    }

    /// The number of parts of a multi-geometry or collection (1 for a simple geometry).
    public var partCount: Int { Int(GEOSGetNumGeometries_r(handle, raw)) }

    /// The envelope as (minX, minY, maxX, maxY), or nil when empty.
    public var bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        if isEmpty { return nil }
        var a = 0.0, b = 0.0, c = 0.0, d = 0.0
        guard GEOSGeom_getXMin_r(handle, raw, &a) == 1, GEOSGeom_getYMin_r(handle, raw, &b) == 1,
              GEOSGeom_getXMax_r(handle, raw, &c) == 1, GEOSGeom_getYMax_r(handle, raw, &d) == 1 else { return nil }
        return (a, b, c, d)
    }

    // MARK: Operations

    /// Repairs an invalid geometry (`GEOSMakeValid`), keeping only its areal parts.
    public func makeValid() throws(GeometryError) -> Geometry {
        let fixed = try Geometry.wrap(context, GEOSMakeValid_r(handle, raw), "MakeValid")
        return try fixed.arealPart()
    }

    /// The polygons of a geometry (dropping points and lines a repair may leave), as one
    /// Polygon or MultiPolygon.
    public func arealPart() throws(GeometryError) -> Geometry {
        let t = typeName
        if t == "Polygon" || t == "MultiPolygon" { return self }
        guard t == "GeometryCollection" else { throw .notAreal(t) }
        var polys: [Geometry] = []
        for i in 0..<partCount {
            guard let part = GEOSGetGeometryN_r(handle, raw, Int32(i)),
                  let copy = GEOSGeom_clone_r(handle, part) else { continue }
            let g = Geometry(context, copy)
            let pt = g.typeName
            if pt == "Polygon" || pt == "MultiPolygon" { polys.append(g) }
        }
        guard !polys.isEmpty else { throw .notAreal(t) }
        return try Geometry.collection(polys, in: context).unaryUnion()
    }

    /// The points in both geometries.
    public func intersection(_ other: Geometry) throws(GeometryError) -> Geometry {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return try Geometry.wrap(context, GEOSIntersection_r(handle, raw, other.raw), "intersection")
    }

    /// The points in either geometry.
    public func union(_ other: Geometry) throws(GeometryError) -> Geometry {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return try Geometry.wrap(context, GEOSUnion_r(handle, raw, other.raw), "union")
    }

    /// The points in this geometry and not in `other`.
    public func difference(_ other: Geometry) throws(GeometryError) -> Geometry {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return try Geometry.wrap(context, GEOSDifference_r(handle, raw, other.raw), "difference")
    }

    /// Dissolves all parts into one geometry.
    public func unaryUnion() throws(GeometryError) -> Geometry {
        try Geometry.wrap(context, GEOSUnaryUnion_r(handle, raw), "unary union")
    }

    /// The shared part of two boundaries, or nil when GEOS fails.
    public func intersects(_ other: Geometry) -> Bool {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return GEOSIntersects_r(handle, raw, other.raw) == 1
    }

    /// Whether no point of `other` lies outside this geometry (boundaries included).
    public func covers(_ other: Geometry) -> Bool {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return GEOSCovers_r(handle, raw, other.raw) == 1
    }

    /// Whether `other` lies inside this geometry and touches its interior.
    public func contains(_ other: Geometry) -> Bool {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return GEOSContains_r(handle, raw, other.raw) == 1
    }

    /// True when the two geometries come within `distance` (planar units) of each other.
    public func isWithin(distance: Double, of other: Geometry) -> Bool {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return GEOSDistanceWithin_r(handle, raw, other.raw, distance) == 1
    }

    /// The parts of a multi-geometry as separate geometries (copies).
    public var parts: [Geometry] {
        (0..<partCount).compactMap { i in
            guard let p = GEOSGetGeometryN_r(handle, raw, Int32(i)), let c = GEOSGeom_clone_r(handle, p) else { return nil }
            return Geometry(context, c)
        }
    }

    /// A prepared form for repeated predicates against this geometry.
    public func prepared() throws(GeometryError) -> PreparedGeometry {
        guard let p = GEOSPrepare_r(handle, raw) else { throw .operation("prepare", reason: context.takeError()) }
        return PreparedGeometry(base: object, raw: p)
    }

    // MARK: Building

    /// A point.
    public static func point(x: Double, y: Double, in context: GEOSContext) throws(GeometryError) -> Geometry {
        try wrap(context, GEOSGeom_createPointFromXY_r(context.handle, x, y), "create point")
    }

    /// A collection of the given geometries (copied).
    public static func collection(_ parts: [Geometry], in context: GEOSContext) throws(GeometryError) -> Geometry {
        let h = context.handle
        var raws: [OpaquePointer?] = []
        for p in parts {
            guard let c = GEOSGeom_clone_r(h, p.raw) else { throw .operation("clone", reason: context.takeError()) }
            raws.append(c)
        }
        let g = raws.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(h, Int32(GEOS_GEOMETRYCOLLECTION.rawValue), $0.baseAddress, UInt32($0.count))
        }
        return try wrap(context, g, "create collection")
    }

    /// A geometry from a GeoJSON geometry's raw positions (no text round trip).
    public init(_ g: GeoJSONGeometry, in context: GEOSContext) throws(GeometryError) {
        let raw = try Geometry.build(g, context)
        self.init(context, raw)
    }

    private static func sequence(_ ps: [Position], _ c: GEOSContext) throws(GeometryError) -> OpaquePointer {
        var flat: [Double] = []
        flat.reserveCapacity(ps.count * 2)
        for p in ps { flat.append(p.x); flat.append(p.y) }
        let s = flat.withUnsafeBufferPointer {
            GEOSCoordSeq_copyFromBuffer_r(c.handle, $0.baseAddress, UInt32(ps.count), 0, 0)
        }
        guard let s else { throw .operation("coordinate sequence", reason: c.takeError()) }
        return s
    }

    private static func polygon(_ rings: [[Position]], _ c: GEOSContext) throws(GeometryError) -> OpaquePointer {
        let h = c.handle
        var made: [OpaquePointer?] = []
        func fail(_ op: String) -> GeometryError {
            for r in made { GEOSGeom_destroy_r(h, r) }
            return .operation(op, reason: c.takeError())
        }
        for r in rings {
            let seq = try sequence(r, c)
            guard let ring = GEOSGeom_createLinearRing_r(h, seq) else { throw fail("create ring") }
            made.append(ring)
        }
        guard let shell = made.first else { throw .operation("create polygon", reason: "no rings") }
        var holes = Array(made.dropFirst())
        let poly = holes.withUnsafeMutableBufferPointer {
            GEOSGeom_createPolygon_r(h, shell, $0.baseAddress, UInt32($0.count))
        }
        guard let poly else { throw fail("create polygon") }
        return poly
    }

    private static func build(_ g: GeoJSONGeometry, _ c: GEOSContext) throws(GeometryError) -> OpaquePointer {
        let h = c.handle
        func multi(_ type: GEOSGeomTypes, _ parts: [OpaquePointer]) throws(GeometryError) -> OpaquePointer {
            var ps: [OpaquePointer?] = parts
            let m = ps.withUnsafeMutableBufferPointer {
                GEOSGeom_createCollection_r(h, Int32(type.rawValue), $0.baseAddress, UInt32($0.count))
            }
            guard let m else { throw .operation("create collection", reason: c.takeError()) }
            return m
        }
        switch g {
        case let .point(p):
            guard let pt = GEOSGeom_createPointFromXY_r(h, p.x, p.y) else { throw .operation("create point", reason: c.takeError()) }
            return pt
        case let .multiPoint(ps):
            var parts: [OpaquePointer] = []
            for p in ps { parts.append(try build(.point(p), c)) }
            return try multi(GEOS_MULTIPOINT, parts)
        case let .lineString(ps):
            guard let l = GEOSGeom_createLineString_r(h, try sequence(ps, c)) else {
                throw .operation("create line", reason: c.takeError())
            }
            return l
        case let .multiLineString(ls):
            var parts: [OpaquePointer] = []
            for l in ls { parts.append(try build(.lineString(l), c)) }
            return try multi(GEOS_MULTILINESTRING, parts)
        case let .polygon(rings):
            return try polygon(rings, c)
        case let .multiPolygon(polys):
            var parts: [OpaquePointer] = []
            for p in polys { parts.append(try polygon(p, c)) }
            return try multi(GEOS_MULTIPOLYGON, parts)
        case let .geometryCollection(gs):
            var parts: [OpaquePointer] = []
            for sub in gs { parts.append(try build(sub, c)) }
            return try multi(GEOS_GEOMETRYCOLLECTION, parts)
        }
    }

    /// The polygons of an areal geometry as raw rings (shell first), for plain Swift use.
    public func polygonRings() throws(GeometryError) -> [[[Position]]] {
        let t = typeName
        let polys: [Geometry]
        switch t {
        case "Polygon": polys = [self]
        case "MultiPolygon", "GeometryCollection": polys = parts.filter { $0.typeName == "Polygon" }
        default: throw .notAreal(t)
        }
        return polys.map { p in
            var rings: [[Position]] = []
            if let ext = GEOSGetExteriorRing_r(handle, p.raw) { rings.append(Geometry.positions(of: ext, handle)) }
            let n = GEOSGetNumInteriorRings_r(handle, p.raw)
            for i in 0..<max(0, n) {
                if let r = GEOSGetInteriorRingN_r(handle, p.raw, i) { rings.append(Geometry.positions(of: r, handle)) }
            }
            return rings
        }
    }

    private static func positions(of ring: OpaquePointer, _ h: GEOSContextHandle_t) -> [Position] {
        guard let seq = GEOSGeom_getCoordSeq_r(h, ring) else { return [] }
        var n: UInt32 = 0
        GEOSCoordSeq_getSize_r(h, seq, &n)
        var flat = [Double](repeating: 0, count: Int(n) * 2)
        flat.withUnsafeMutableBufferPointer { _ = GEOSCoordSeq_copyToBuffer_r(h, seq, $0.baseAddress, 0, 0) }
        return (0..<Int(n)).map { Position(x: flat[2 * $0], y: flat[2 * $0 + 1]) }
    }
}

/// A prepared geometry for fast repeated predicates. It keeps its base geometry alive and
/// is destroyed before it. Not `Sendable`: GEOS builds its indexes lazily on first use.
public final class PreparedGeometry {
    let base: GEOSObject
    let raw: OpaquePointer

    init(base: GEOSObject, raw: OpaquePointer) { self.base = base; self.raw = raw }
    deinit { GEOSPreparedGeom_destroy_r(base.context.handle, raw) }

    /// GEOS `contains`, with the prepared index.
    public func contains(_ g: Geometry) -> Bool { GEOSPreparedContains_r(base.context.handle, raw, g.raw) == 1 }
    /// GEOS `covers`, with the prepared index.
    public func covers(_ g: Geometry) -> Bool { GEOSPreparedCovers_r(base.context.handle, raw, g.raw) == 1 }
    /// GEOS `intersects`, with the prepared index.
    public func intersects(_ g: Geometry) -> Bool { GEOSPreparedIntersects_r(base.context.handle, raw, g.raw) == 1 }
    /// GEOS `containsProperly`: inside and not touching the boundary.
    public func containsProperly(_ g: Geometry) -> Bool {
        GEOSPreparedContainsProperly_r(base.context.handle, raw, g.raw) == 1
    }
}

extension Geometry {
    /// A point guaranteed to lie on the geometry (`GEOSPointOnSurface`), as (x, y).
    public var pointOnSurface: (x: Double, y: Double) {
        guard let p = GEOSPointOnSurface_r(handle, raw) else { return (.nan, .nan) }
        defer { GEOSGeom_destroy_r(handle, p) }
        var x = Double.nan, y = Double.nan
        _ = GEOSGeomGetX_r(handle, p, &x)
        _ = GEOSGeomGetY_r(handle, p, &y)
        return (x, y)
    }
}
