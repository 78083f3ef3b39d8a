/// A position as written in a GeoJSON file: x then y, in whatever CRS the file uses
/// (longitude, latitude for RFC 7946 files). Raw, because it may still need a transform.
public struct Position: Hashable, Sendable {
    /// Easting or longitude, in the source CRS.
    public var x: Double
    /// Northing or latitude, in the source CRS.
    public var y: Double
    /// A position from its two numbers.
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// A GeoJSON geometry with raw positions. Polygons are lists of rings, the shell first.
public enum GeoJSONGeometry: Equatable, Sendable {
    /// A Point.
    case point(Position)
    /// A MultiPoint.
    case multiPoint([Position])
    /// A LineString.
    case lineString([Position])
    /// A MultiLineString.
    case multiLineString([[Position]])
    /// A Polygon: its shell, then its holes.
    case polygon([[Position]])
    /// A MultiPolygon.
    case multiPolygon([[[Position]]])
    /// A GeometryCollection.
    case geometryCollection([GeoJSONGeometry])

    /// The geometry's polygons, or nil when it has non-areal parts.
    public var polygons: [[[Position]]]? {
        switch self {
        case let .polygon(p): [p]
        case let .multiPolygon(m): m
        default: nil
        }
    }

    /// Every position, in order.
    public func forEachPosition(_ body: (Position) -> Void) {
        switch self {
        case let .point(p): body(p)
        case let .multiPoint(ps), let .lineString(ps): ps.forEach(body)
        case let .multiLineString(ls), let .polygon(ls): ls.forEach { $0.forEach(body) }
        case let .multiPolygon(m): m.forEach { $0.forEach { $0.forEach(body) } }
        case let .geometryCollection(gs): gs.forEach { $0.forEachPosition(body) }
        }
    }

    /// The same geometry with every position mapped.
    public func mapPositions(_ f: (Position) throws -> Position) rethrows -> GeoJSONGeometry {
        switch self {
        case let .point(p): .point(try f(p))
        case let .multiPoint(ps): .multiPoint(try ps.map(f))
        case let .lineString(ps): .lineString(try ps.map(f))
        case let .multiLineString(ls): .multiLineString(try ls.map { try $0.map(f) })
        case let .polygon(rs): .polygon(try rs.map { try $0.map(f) })
        case let .multiPolygon(m): .multiPolygon(try m.map { try $0.map { try $0.map(f) } })
        case let .geometryCollection(gs): .geometryCollection(try gs.map { try $0.mapPositions(f) })
        }
    }

    /// The geometry as a GeoJSON object.
    public var json: JSONValue {
        func pos(_ p: Position) -> JSONValue { .array([.number(p.x), .number(p.y)]) }
        func line(_ ps: [Position]) -> JSONValue { .array(ps.map(pos)) }
        func poly(_ rs: [[Position]]) -> JSONValue { .array(rs.map(line)) }
        switch self {
        case let .point(p): return .object([("type", .string("Point")), ("coordinates", pos(p))])
        case let .multiPoint(ps): return .object([("type", .string("MultiPoint")), ("coordinates", line(ps))])
        case let .lineString(ps): return .object([("type", .string("LineString")), ("coordinates", line(ps))])
        case let .multiLineString(ls):
            return .object([("type", .string("MultiLineString")), ("coordinates", .array(ls.map(line)))])
        case let .polygon(rs): return .object([("type", .string("Polygon")), ("coordinates", poly(rs))])
        case let .multiPolygon(m):
            return .object([("type", .string("MultiPolygon")), ("coordinates", .array(m.map(poly)))])
        case let .geometryCollection(gs):
            return .object([("type", .string("GeometryCollection")), ("geometries", .array(gs.map(\.json)))])
        }
    }
}

/// One feature of a collection, with its position in the file (0-based) for error messages.
public struct Feature: Sendable {
    /// The feature's place in its collection, from 0, for error messages.
    public var index: Int
    /// The feature's `id` member, when it has one.
    public var id: JSONValue?
    /// The `properties` members, in file order.
    public var properties: [(String, JSONValue)]
    /// The geometry; nil for a null geometry.
    public var geometry: GeoJSONGeometry?

    /// A feature from its parts.
    public init(index: Int, id: JSONValue? = nil, properties: [(String, JSONValue)], geometry: GeoJSONGeometry?) {
        self.index = index; self.id = id; self.properties = properties; self.geometry = geometry
    }

    /// The property named `name`, or nil.
    public func property(_ name: String) -> JSONValue? {
        properties.first { $0.0 == name }?.1
    }
}

/// Why a GeoJSON document was refused; the description is one line naming the place.
public enum GeoJSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file is not JSON.
    case syntax(JSONSyntaxError)
    /// The top-level value is not a FeatureCollection.
    case notAFeatureCollection(String)
    /// The collection has no features.
    case noFeatures
    /// A feature is malformed; `path` is the member's JSON path.
    case feature(index: Int, path: String, reason: String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .syntax(e): "not valid JSON: \(e)"
        case let .notAFeatureCollection(why): "not a GeoJSON FeatureCollection: \(why)"
        case .noFeatures: "the FeatureCollection has no features"
        case let .feature(i, path, reason): "feature \(i)\(path.isEmpty ? "" : " (\(path))"): \(reason)"
        }
    }
}

/// A parsed FeatureCollection. `crsName` is the legacy `crs` member's name when present
/// (for example `urn:ogc:def:crs:EPSG::2263`); RFC 7946 files have none and are WGS84.
public struct FeatureCollection: Sendable {
    /// The features, in file order.
    public var features: [Feature]
    /// The legacy `crs` member's name, when the file has one (GeoJSON 2008).
    public var crsName: String?

    /// A collection from its features.
    public init(features: [Feature], crsName: String? = nil) {
        self.features = features; self.crsName = crsName
    }

    /// Parses GeoJSON text. Geometry is checked for shape (numbers where numbers belong,
    /// closed rings of at least four positions) but not for validity, which is GEOS's job.
    public init(parsing data: some Collection<UInt8>) throws(GeoJSONError) {
        let root: JSONValue
        do { root = try JSONParser.parse(data) } catch { throw .syntax(error) }
        guard case .object = root else { throw .notAFeatureCollection("the top level is not an object") }
        guard root["type"]?.stringValue == "FeatureCollection" else {
            throw .notAFeatureCollection("\"type\" is \(root["type"]?.serialized ?? "missing")")
        }
        guard let items = root["features"]?.arrayValue else {
            throw .notAFeatureCollection("\"features\" is missing or not an array")
        }
        guard !items.isEmpty else { throw .noFeatures }
        crsName = root["crs"]?["properties"]?["name"]?.stringValue
        var out: [Feature] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .object = item, item["type"]?.stringValue == "Feature" else {
                throw .feature(index: i, path: "", reason: "not a Feature object")
            }
            var props: [(String, JSONValue)] = []
            switch item["properties"] {
            case let .object(m)?: props = m
            case .null?, nil: break
            default: throw .feature(index: i, path: "properties", reason: "not an object")
            }
            let geometry: GeoJSONGeometry?
            switch item["geometry"] {
            case .null?, nil: geometry = nil
            case let g?:
                do { geometry = try GeometryReader.read(g, path: "geometry") } catch let e {
                    throw .feature(index: i, path: e.path, reason: e.reason)
                }
            }
            out.append(Feature(index: i, id: item["id"], properties: props, geometry: geometry))
        }
        features = out
    }
}

struct GeometryReadError: Error {
    let path: String
    let reason: String
}

enum GeometryReader {
    static func read(_ g: JSONValue, path: String) throws(GeometryReadError) -> GeoJSONGeometry {
        guard case .object = g else { throw GeometryReadError(path: path, reason: "geometry is not an object") }
        guard let type = g["type"]?.stringValue else {
            throw GeometryReadError(path: path + ".type", reason: "missing geometry type")
        }
        if type == "GeometryCollection" {
            guard let gs = g["geometries"]?.arrayValue else {
                throw GeometryReadError(path: path + ".geometries", reason: "missing or not an array")
            }
            var out: [GeoJSONGeometry] = []
            for (k, sub) in gs.enumerated() { out.append(try read(sub, path: "\(path).geometries[\(k)]")) }
            return .geometryCollection(out)
        }
        guard let c = g["coordinates"] else {
            throw GeometryReadError(path: path + ".coordinates", reason: "missing coordinates")
        }
        let p = path + ".coordinates"
        switch type {
        case "Point": return .point(try position(c, p))
        case "MultiPoint": return .multiPoint(try positions(c, p))
        case "LineString": return .lineString(try line(c, p))
        case "MultiLineString": return .multiLineString(try list(c, p) { v, q throws(GeometryReadError) in try line(v, q) })
        case "Polygon": return .polygon(try polygon(c, p))
        case "MultiPolygon": return .multiPolygon(try list(c, p) { v, q throws(GeometryReadError) in try polygon(v, q) })
        default: throw GeometryReadError(path: path + ".type", reason: "unknown geometry type \"\(type)\"")
        }
    }

    static func list<T>(_ v: JSONValue, _ path: String,
                        _ item: (JSONValue, String) throws(GeometryReadError) -> T) throws(GeometryReadError) -> [T] {
        guard let a = v.arrayValue else { throw GeometryReadError(path: path, reason: "expected an array") }
        var out: [T] = []
        out.reserveCapacity(a.count)
        for (k, e) in a.enumerated() { out.append(try item(e, "\(path)[\(k)]")) }
        return out
    }

    static func position(_ v: JSONValue, _ path: String) throws(GeometryReadError) -> Position {
        guard let a = v.arrayValue else { throw GeometryReadError(path: path, reason: "a position must be an array of numbers") }
        guard a.count >= 2 else { throw GeometryReadError(path: path, reason: "a position needs at least two numbers") }
        guard let x = a[0].numberValue else {
            throw GeometryReadError(path: path + "[0]", reason: "expected a number, found \(a[0].serialized)")
        }
        guard let y = a[1].numberValue else {
            throw GeometryReadError(path: path + "[1]", reason: "expected a number, found \(a[1].serialized)")
        }
        return Position(x: x, y: y)
    }

    static func positions(_ v: JSONValue, _ path: String) throws(GeometryReadError) -> [Position] {
        try list(v, path) { e, q throws(GeometryReadError) in try position(e, q) }
    }

    static func line(_ v: JSONValue, _ path: String) throws(GeometryReadError) -> [Position] {
        let ps = try positions(v, path)
        guard ps.count >= 2 else { throw GeometryReadError(path: path, reason: "a line needs at least two positions") }
        return ps
    }

    static func polygon(_ v: JSONValue, _ path: String) throws(GeometryReadError) -> [[Position]] {
        let rings = try list(v, path) { e, q throws(GeometryReadError) in
            let ring = try positions(e, q)
            guard ring.count >= 4 else {
                throw GeometryReadError(path: q, reason: "a ring needs at least four positions, has \(ring.count)")
            }
            guard ring.first == ring.last else {
                throw GeometryReadError(path: q, reason: "ring is not closed (first and last positions differ)")
            }
            return ring
        }
        guard !rings.isEmpty else { throw GeometryReadError(path: path, reason: "a polygon needs at least one ring") }
        return rings
    }
}
