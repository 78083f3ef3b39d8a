import Foundation
import Zones
import Geodesy
import GeoJSON
import Geometry
import Projection

/// How to read a zone file.
public struct ZoneImportOptions: Sendable {
    /// The source CRS; nil means the file's `crs` member, or WGS84 when it has none.
    public var crs: String?
    /// The property holding the zone id; nil means the feature's `id`, then an `id`
    /// property, then the feature's number (1-based).
    public var idField: String?
    /// The property holding the zone name; nil means `name`, then `zone`, then the id.
    public var nameField: String?
    /// Repair invalid geometry with GEOS MakeValid instead of refusing it.
    public var repair = false
    /// Overlaps and gaps at or below this area (m²) are slivers: counted, not fatal.
    public var toleranceSquareMetres = 1.0
    /// Accept overlapping zones (they are still reported).
    public var allowOverlaps = false
    /// Boundaries closer than this (m) make two zones neighbours.
    public var adjacencyMetres = 1.0

    /// Options; the defaults read the CRS from the file, refuse invalid geometry and overlaps.
    public init(crs: String? = nil, idField: String? = nil, nameField: String? = nil, repair: Bool = false,
                toleranceSquareMetres: Double = 1, allowOverlaps: Bool = false) {
        self.crs = crs; self.idField = idField; self.nameField = nameField; self.repair = repair
        self.toleranceSquareMetres = toleranceSquareMetres; self.allowOverlaps = allowOverlaps
    }
}

/// What an import found. Printed by `wayfare zones check` and `import`.
public struct ZoneReport: Sendable {
    /// A feature whose geometry GEOS finds invalid, and whether it was repaired.
    public struct Invalid: Sendable { public let zone: String; public let feature: Int; public let reason: String; public let repaired: Bool }
    /// Two zones that overlap by more than the tolerance, and by how much.
    public struct Overlap: Sendable { public let a: String; public let b: String; public let squareMetres: Double }
    /// An area inside the service areas that no zone covers, with a point in it.
    public struct Gap: Sendable { public let squareMetres: Double; public let near: Coordinate }

    /// The file read.
    public var source = ""
    /// The CRS the file was read in.
    public var crs = "EPSG:4326"
    /// Features read.
    public var features = 0
    /// Zones built (features sharing an id are merged).
    public var zones = 0
    /// Service areas built.
    public var serviceAreas = 0
    /// Ids that several features carry, with how many: merged into one zone.
    public var merged: [(id: String, features: Int)] = []
    /// Invalid features.
    public var invalid: [Invalid] = []
    /// Overlaps larger than the tolerance.
    public var overlaps: [Overlap] = []
    /// Overlaps at or below the tolerance: counted, with their total area.
    public var sliverCount = 0
    /// The total area of the slivers, in m².
    public var sliverSquareMetres = 0.0
    /// Gaps larger than the tolerance.
    public var gaps: [Gap] = []
    /// Gaps within the tolerance, ignored.
    public var gapSliverCount = 0
    /// Zones not wholly inside any service area (by more than the tolerance).
    public var outside: [String] = []
    /// Pairs of zones that share a border.
    public var adjacentPairs = 0
    /// Wall time of the import.
    public var seconds = 0.0
    /// The overlap and gap tolerance used, in m².
    public var toleranceSquareMetres = 1.0

    /// True when every geometry is valid (after repair, if asked) and the zones are disjoint.
    public var isClean: Bool { invalid.allSatisfy(\.repaired) && overlaps.isEmpty }

    /// The report as text, one finding a line.
    public var text: String {
        var lines: [String] = []
        lines.append("source: \(source) (CRS \(crs))")
        lines.append("features: \(features), zones: \(zones), service areas: \(serviceAreas)")
        for m in merged { lines.append("merged: \(m.features) features share id \(m.id) and form one zone") }
        for v in invalid {
            lines.append("invalid: zone \(v.zone) (feature \(v.feature)): \(v.reason)\(v.repaired ? " — repaired with MakeValid" : "")")
        }
        for o in overlaps {
            lines.append("overlap: zones \(o.a) and \(o.b) overlap by \(String(format: "%.1f", o.squareMetres)) m²")
        }
        lines.append("slivers: \(sliverCount) overlaps of at most \(toleranceSquareMetres) m² (total \(String(format: "%.3f", sliverSquareMetres)) m²), ignored")
        for g in gaps {
            lines.append("gap: \(String(format: "%.1f", g.squareMetres)) m² inside the service area is in no zone, near \(g.near)")
        }
        if gapSliverCount > 0 { lines.append("gap slivers: \(gapSliverCount) of at most \(toleranceSquareMetres) m², ignored") }
        for z in outside { lines.append("outside: zone \(z) is not inside any service area") }
        lines.append("adjacent pairs: \(adjacentPairs)")
        lines.append(isClean ? "result: valid and disjoint" : "result: NOT valid and disjoint")
        return lines.joined(separator: "\n")
    }
}

/// One areal feature read from a file, after the CRS transform and the id grouping.
struct SourceZone {
    var id: String
    var name: String
    var properties: String
    var features: [Int]
    var parts: [GeoJSONGeometry]
}

/// Builds `ZoneSet`s from GeoJSON (any CRS) or WKT, with the checks of the report.
public enum ZoneImporter {
    /// Imports zones, and optionally service areas, and reports on them. Data problems
    /// (invalid geometry, overlaps) are in the report, not thrown; `load` refuses them.
    /// Without service areas, the one service area is the zones' union with its holes
    /// filled, so holes between zones are reported as gaps.
    public static func check(zonesAt path: String, serviceAreasAt areaPath: String? = nil,
                             options: ZoneImportOptions = .init(),
                             progress: ((String) -> Void)? = nil) throws(ZoneError) -> (ZoneSet, ZoneReport) {
        let start = Date()
        let zoneSources = try readSources(path: path, options: options)
        progress?("read \(zoneSources.features) features from \(path) (CRS \(zoneSources.crs))")
        var areaSources: [SourceZone]?
        if let areaPath {
            areaSources = try readSources(path: areaPath, options: ZoneImportOptions(repair: options.repair)).zones
        }
        let (set, built) = try build(zones: zoneSources.zones, serviceAreas: areaSources,
                                     source: path, options: options, progress: progress)
        var report = built
        report.source = path
        report.crs = zoneSources.crs
        report.features = zoneSources.features
        report.seconds = Date().timeIntervalSince(start)
        return (set, report)
    }

    /// Imports zones for use: like `check`, but refuses invalid geometry that was not
    /// repaired, and overlaps above the tolerance unless `allowOverlaps`.
    public static func load(zonesAt path: String, serviceAreasAt areaPath: String? = nil,
                            options: ZoneImportOptions = .init(),
                            progress: ((String) -> Void)? = nil) throws(ZoneError) -> (ZoneSet, ZoneReport) {
        let (set, report) = try check(zonesAt: path, serviceAreasAt: areaPath, options: options, progress: progress)
        if let bad = report.invalid.first(where: { !$0.repaired }) {
            throw .badInput(place: "\(path): feature \(bad.feature)",
                            reason: "invalid geometry in zone \(bad.zone): \(bad.reason) (use --repair to apply MakeValid)")
        }
        if !report.overlaps.isEmpty && !options.allowOverlaps {
            let o = report.overlaps[0]
            throw .notDisjoint("\(path): zones are not disjoint: \(report.overlaps.count) overlaps above \(options.toleranceSquareMetres) m², the largest listed first: zones \(o.a) and \(o.b) by \(String(format: "%.1f", o.squareMetres)) m² (use --allow-overlaps to accept)")
        }
        return (set, report)
    }

    /// Reads a GeoJSON FeatureCollection (or a WKT file: one geometry a line) into
    /// source zones in WGS84.
    static func readSources(path: String, options: ZoneImportOptions)
        throws(ZoneError) -> (zones: [SourceZone], features: Int, crs: String) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badInput(place: path, reason: FileManager.default.fileExists(atPath: path)
                ? "cannot be read" : "no such file")
        }
        guard !data.isEmpty else { throw .badInput(place: path, reason: "the file is empty") }
        let collection: FeatureCollection
        let firstByte = data.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
        if let b = firstByte, b != UInt8(ascii: "{"), b != UInt8(ascii: "[") {
            collection = try readWKT(data, path: path)
        } else {
            do { collection = try FeatureCollection(parsing: data) } catch {
                throw .badInput(place: path, reason: error.description)
            }
        }
        let crs = options.crs ?? collection.crsName ?? "EPSG:4326"
        var features = collection.features
        if !Transformer.isWGS84(crs) {
            try transform(&features, from: crs, path: path)
        }
        // Check the WGS84 ranges: a wrong or missing CRS shows up here.
        for f in features {
            var bad: Position?
            f.geometry?.forEachPosition { p in
                if bad == nil, !(p.x.isFinite && p.y.isFinite && abs(p.x) <= 180 && abs(p.y) <= 90) { bad = p }
            }
            if let bad {
                throw .badInput(place: "\(path): feature \(f.index)",
                                reason: "coordinate (\(bad.x), \(bad.y)) is not a longitude/latitude; is the CRS right? (give --crs)")
            }
        }
        var order: [String] = []
        var byId: [String: SourceZone] = [:]
        for f in features {
            let place = "\(path): feature \(f.index)"
            guard let g = f.geometry else { throw .badInput(place: place, reason: "the feature has no geometry") }
            guard g.polygons != nil else {
                throw .badInput(place: place, reason: "geometry is not a Polygon or MultiPolygon")
            }
            let id = try identifier(of: f, field: options.idField, place: place)
            let name = try label(of: f, field: options.nameField, fallback: id, place: place)
            if byId[id] == nil {
                order.append(id)
                byId[id] = SourceZone(id: id, name: name,
                                      properties: JSONValue.object(f.properties).serialized,
                                      features: [], parts: [])
            }
            byId[id]!.features.append(f.index)
            byId[id]!.parts.append(g)
        }
        return (order.map { byId[$0]! }, features.count, crs)
    }

    static func identifier(of f: Feature, field: String?, place: String) throws(ZoneError) -> String {
        if let field {
            guard let v = f.property(field) else { throw .badInput(place: place, reason: "no property \"\(field)\" (--id-field)") }
            guard let s = v.labelValue, !s.isEmpty else {
                throw .badInput(place: place, reason: "property \"\(field)\" is \(v.serialized), not a usable id")
            }
            return s
        }
        if let s = f.id?.labelValue, !s.isEmpty { return s }
        if let s = f.property("id")?.labelValue, !s.isEmpty { return s }
        return String(f.index + 1)
    }

    static func label(of f: Feature, field: String?, fallback: String, place: String) throws(ZoneError) -> String {
        if let field {
            guard let v = f.property(field) else { throw .badInput(place: place, reason: "no property \"\(field)\" (--name-field)") }
            return v.labelValue ?? v.serialized
        }
        for key in ["name", "zone", "NAME"] {
            if let s = f.property(key)?.labelValue, !s.isEmpty { return s }
        }
        return fallback
    }

    /// Transforms every position of every feature in one PROJ call.
    static func transform(_ features: inout [Feature], from crs: String, path: String) throws(ZoneError) {
        let transformer: Transformer
        do { transformer = try Transformer(from: crs) } catch {
            throw .badInput(place: path, reason: error.description)
        }
        var xs: [Double] = [], ys: [Double] = [], owner: [Int] = []
        for (k, f) in features.enumerated() {
            f.geometry?.forEachPosition { p in xs.append(p.x); ys.append(p.y); owner.append(k) }
        }
        do { try transformer.transform(x: &xs, y: &ys) } catch {
            if case let .transformFailed(i, x, y, reason) = error {
                throw .badInput(place: "\(path): feature \(features[owner[i]].index)",
                                reason: "cannot transform (\(x), \(y)) from \(crs): \(reason)")
            }
            throw .badInput(place: path, reason: error.description)
        }
        var k = 0
        for i in features.indices {
            features[i].geometry = features[i].geometry?.mapPositions { _ in
                defer { k += 1 }
                return Position(x: xs[k], y: ys[k])
            }
        }
    }

    /// A WKT file: one areal geometry a line; blank lines and `#` comments are skipped.
    static func readWKT(_ data: Data, path: String) throws(ZoneError) -> FeatureCollection {
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badInput(place: path, reason: "not UTF-8 text, nor GeoJSON")
        }
        let context = GEOSContext()
        var features: [Feature] = []
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty || t.hasPrefix("#") { continue }
            do {
                let g = try Geometry(wkt: t, in: context)
                let rings = try g.polygonRings()
                features.append(Feature(index: features.count, properties: [],
                                        geometry: rings.count == 1 ? .polygon(rings[0]) : .multiPolygon(rings)))
            } catch {
                throw .badInput(place: "\(path): line \(n + 1)", reason: error.description)
            }
        }
        guard !features.isEmpty else { throw .badInput(place: path, reason: "no geometry in the file") }
        return FeatureCollection(features: features)
    }
}
