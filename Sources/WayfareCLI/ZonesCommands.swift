import CSVFile
import ArgumentParser
import Foundation
import Workloads
import Geodesy
import GeoJSON
import WayfareAPI
import Zones
import ZoneImport

struct ZonesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zones", abstract: "Import, check and query taxi zones and service areas.",
        subcommands: [ZonesImport.self, ZonesCheck.self, ZonesLookup.self, ZonesLocate.self, ZonesSample.self])
}

/// The options every command that reads a zone GeoJSON shares.
struct ZoneSourceOptions: ParsableArguments {
    @Option(help: "Source CRS (EPSG:2263, a URN, WKT or a PROJ string); default: the file's crs member, else WGS84.")
    var crs: String?
    @Option(name: .customLong("id-field"), help: "Property holding the zone id (default: the feature id, then \"id\", then the feature number).")
    var idField: String?
    @Option(name: .customLong("name-field"), help: "Property holding the zone name (default: \"name\", then \"zone\").")
    var nameField: String?
    @Option(name: .customLong("service-area"), help: "GeoJSON of the service areas (cities); default: the union of the zones.")
    var serviceArea: String?
    @Flag(help: "Repair invalid geometry with GEOS MakeValid.")
    var repair = false
    @Flag(name: .customLong("allow-overlaps"), help: "Accept zones that overlap by more than the tolerance.")
    var allowOverlaps = false
    @Option(name: .customLong("tolerance-m2"), help: "Overlaps and gaps up to this area (m²) are slivers, not errors.")
    var toleranceM2: Double = 1

    func importOptions() throws(CLIError) -> ZoneImportOptions {
        guard toleranceM2.isFinite, toleranceM2 >= 0 else { throw CLIError("--tolerance-m2 must be a finite number ≥ 0") }
        return ZoneImportOptions(crs: crs, idField: idField, nameField: nameField, repair: repair,
                                 toleranceSquareMetres: toleranceM2, allowOverlaps: allowOverlaps)
    }
}

struct ZonesImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import zones into a compact zone file; refuses invalid or overlapping zones.")
    @Argument(help: "Zones: a GeoJSON FeatureCollection (any CRS) or WKT, one geometry a line.") var file: String
    @OptionGroup var source: ZoneSourceOptions
    @Option(help: "The zone file to write.") var out: String

    func run() throws {
        let (set, report) = try ZoneImporter.load(zonesAt: file, serviceAreasAt: source.serviceArea,
                                                  options: try source.importOptions(), progress: note)
        try ZoneFile.write(set, to: out)
        note(report.text)
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        note("wrote \(out): \(set.zones.count) zones, \(set.serviceAreas.count) service areas, \(size) bytes, in \(String(format: "%.2f", report.seconds)) s")
    }
}

struct ZonesCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Report invalid geometry, overlaps, gaps and outside zones; exit 0 only when valid and disjoint.")
    @Argument(help: "Zones: GeoJSON (any CRS) or WKT.") var file: String
    @OptionGroup var source: ZoneSourceOptions

    func run() throws {
        let (_, report) = try ZoneImporter.check(zonesAt: file, serviceAreasAt: source.serviceArea,
                                                 options: try source.importOptions())
        print(report.text)
        if !report.isClean { throw ExitCode(1) }
    }
}

/// Loads ZONES: a Wayfare zone file, or a GeoJSON/WKT file imported on the fly.
func loadZones(_ path: String, source: ZoneSourceOptions) throws -> ZoneSet {
    if let h = FileHandle(forReadingAtPath: path), let head = try? h.read(upToCount: 8), Array(head) == Array("WFZONES\0".utf8) {
        return try ZoneFile.read(path: path)
    }
    var options = try source.importOptions()
    options.allowOverlaps = true
    return try ZoneImporter.check(zonesAt: path, serviceAreasAt: source.serviceArea, options: options).0
}

/// Reads a `lat,lon` CSV into validated coordinates, keeping the original text.
func readPoints(_ path: String) throws(CLIError) -> (points: [Coordinate], text: [(String, String)]) {
    let table = try CSVTable(reading: path, required: ["lat", "lon"])
    let la = try table.index(of: "lat"), lo = try table.index(of: "lon")
    var points: [Coordinate] = [], text: [(String, String)] = []
    points.reserveCapacity(table.rows.count)
    for row in table.rows {
        let lat = try table.value(row, la), lon = try table.value(row, lo)
        do { points.append(try Coordinate(latitude: lat, longitude: lon)) } catch {
            throw CLIError("\(path): line \(row.line): \(error)")
        }
        text.append((row.fields[la], row.fields[lo]))
    }
    return (points, text)
}

struct ZonesLookup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup", abstract: "Find the zone of every point of a lat,lon CSV.")
    @Argument(help: "A zone file, or zones as GeoJSON/WKT.") var zones: String
    @Option(help: "CSV with the header lat,lon.") var points: String
    @Option(help: "Output CSV (lat,lon,zone_id,zone_name); default: standard output.") var out: String?
    @OptionGroup var source: ZoneSourceOptions

    func run() throws {
        let set = try loadZones(zones, source: source)
        let (points, text) = try readPoints(self.points)
        var csv = "lat,lon,zone_id,zone_name\n"
        for (k, p) in points.enumerated() {
            let z = set.zone(containing: p)
            csv += "\(text[k].0),\(text[k].1),\(csvField(z?.id ?? "")),\(csvField(z?.name ?? ""))\n"
        }
        try writeOutput(csv, to: out)
    }
}

struct ZonesSample: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample", abstract: "Write seeded random points (lat,lon), a share of them inside zones, for tests and benchmarks.")
    @Argument(help: "A zone file, or zones as GeoJSON/WKT.") var zones: String
    @Option(help: "How many points.") var count: Int = 1_000_000
    @Option(help: "The share of points drawn inside zones (the rest uniform in the zones' bounds).") var inside: Double = 0.7
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Output CSV; default: standard output.") var out: String?
    @OptionGroup var source: ZoneSourceOptions

    func run() throws {
        guard count >= 0, count <= 100_000_000 else { throw CLIError("--count must be between 0 and 100000000") }
        guard (0...1).contains(inside) else { throw CLIError("--inside must be between 0 and 1") }
        let set = try loadZones(zones, source: source)
        let points = ZoneSampler.points(in: set, count: count, insideShare: inside, seed: seed)
        var csv = "lat,lon\n"
        csv.reserveCapacity(count * 24)
        for p in points { csv += "\(coordinateText(p))\n" }
        try writeOutput(csv, to: out)
    }
}

struct ZonesLocate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate", abstract: "One point's zone, service area and neighbouring zones, as JSON.")
    @Argument(help: "A zone file, or zones as GeoJSON/WKT.") var zones: String
    @Argument(help: "The point as LAT,LON.") var point: String
    @OptionGroup var source: ZoneSourceOptions

    func run() throws {
        let p: Coordinate
        do { p = try Coordinate(parsing: point) } catch { throw CLIError("point \"\(point)\": \(error) (expected LAT,LON)") }
        let set = try loadZones(zones, source: source)
        struct Located: Encodable { let lat, lon: Double; let zone, serviceArea: Named?; let neighbours: [Named] }
        func named(_ z: Zone) -> Named { Named(id: z.id, name: z.name) }
        let zone = set.zone(containing: p)
        let area = try? set.serviceArea(containing: p)
        printJSONLine(Located(lat: rounded(p.latitude, 7), lon: rounded(p.longitude, 7), zone: zone.map(named), serviceArea: area.map(named),
                              neighbours: zone.map { set.neighbours(of: $0).map(named) } ?? []))
    }
}
