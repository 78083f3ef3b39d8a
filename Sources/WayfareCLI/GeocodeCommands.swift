import ArgumentParser
import CSVFile
import Foundation
import Workloads
import GeoJSON
import Geocoding
import Geodesy
import WayfareAPI

struct GeocoderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocoder", abstract: "Build geocoding lookup tables, and sample benchmark input from them.",
        subcommands: [GeocoderBuild.self, GeocoderSample.self])
}

struct GeocoderSample: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write seeded benchmark input drawn from a table: queries.csv (query,near_lat,near_lon) and points.csv (lat,lon).",
        discussion: """
            Queries: addresses (number before or after the street), streets, places and cities; \
            3 in 5 typed in full, 1 in 5 cut short (type-ahead), 1 in 5 with a one-letter typo; \
            half with a focus within 5 km. Points: within 50 m of a named street or an address, \
            or within 20 km of a gazetteer place in a table with no streets.
            """)
    @Argument(help: "A geocoder table.") var table: String
    @Option(help: "Number of queries.") var queries: Int = 10_000
    @Option(help: "Number of points.") var points: Int = 10_000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(name: .customLong("out-dir"), help: "Folder for the two files.") var outDir: String

    func run() throws {
        guard (1...10_000_000).contains(queries), (1...10_000_000).contains(points) else {
            throw CLIError("--queries and --points must be between 1 and 10000000")
        }
        let t = try loadTable(table)
        try createFolder(outDir)
        var q = "query,near_lat,near_lon\n"
        for s in t.sampleQueries(queries, seed: seed) {
            q += "\(csvField(s.text)),\(s.near.map(coordinateText) ?? ",")\n"
        }
        var p = "lat,lon\n"
        for c in t.samplePoints(points, seed: seed &+ 1) { p += "\(coordinateText(c))\n" }
        try writeOutput(q, to: (outDir as NSString).appendingPathComponent("queries.csv"))
        try writeOutput(p, to: (outDir as NSString).appendingPathComponent("points.csv"))
    }
}

struct GeocoderBuild: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build", abstract: "Build a geocoder table from OSM extracts and a gazetteer CSV (lat,lon,name,admin1,admin2,cc).")
    @Option(parsing: .upToNextOption, help: "OSM extracts (.osm.pbf or .osm).") var osm: [String] = []
    @Option(help: "A gazetteer CSV.") var gazetteer: String?
    @Option(help: "The table file to write.") var out: String

    func run() throws {
        guard !osm.isEmpty || gazetteer != nil else { throw CLIError("give at least one --osm file or a --gazetteer") }
        let start = Date()
        var builder = GeocoderBuilder()
        do {
            for path in osm { note("reading \(path)"); try builder.addOSM(path: path) }
            if let gazetteer { note("reading \(gazetteer)"); try builder.addGazetteer(path: gazetteer) }
            let table = builder.build()
            guard table.entryCount > 0 else { throw GeocoderError("nothing to look up: no named street, place or city in the input") }
            try GeocoderFile.write(table, to: out)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
            struct Built: Encodable { let entries, addresses, tokens, unnamedGazetteerRows: Int; let seconds, megabytes: Double }
            printJSONLine(Built(entries: table.entryCount, addresses: table.addressCount, tokens: table.tokenCount,
                                unnamedGazetteerRows: builder.unnamedGazetteerRows, seconds: rounded(Date().timeIntervalSince(start), 2),
                                megabytes: rounded(Double(bytes) / 1e6, 2)))
        } catch { throw CLIError("\(error)") }
    }
}

/// `--service-areas FILE`: keep only answers inside a service area (a city) of a zone file.
struct ServiceAreaOption: ParsableArguments {
    @Option(name: .customLong("service-areas"),
            help: "A zone file (or zones GeoJSON): keep only answers inside one of its service areas.")
    var file: String?

    func filter() throws -> ((Coordinate) -> Bool)? {
        guard let file else { return nil }
        let zones = try loadZones(file, source: try ZoneSourceOptions.parse([]))
        return { c in (try? zones.serviceArea(containing: c)) != nil }
    }
}

func loadTable(_ path: String) throws(CLIError) -> GeocoderTable {
    do { return try GeocoderFile.read(path: path) } catch { throw CLIError(error.description) }
}

extension GeocodeCandidate {
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("label", .string(label)), ("lat", degreesJSON(coordinate.latitude)),
                                              ("lon", degreesJSON(coordinate.longitude)), ("kind", .string(kind.description)),
                                              ("score", .number((score * 1000).rounded() / 1000))]
        if let precision { members.append(("precision", .string(precision.rawValue))) }
        return .object(members)
    }
}

struct GeocodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode", abstract: "Ranked candidates for a typed address or place, as a JSON array.")
    @Argument(help: "A geocoder table.") var table: String
    @Argument(help: "The query, as a passenger types it.") var query: String
    @Option(help: "The passenger's position, LAT,LON: nearer answers rank first among equal matches.") var near: String?
    @Option(help: "How many candidates.") var limit: Int = 5
    @OptionGroup var area: ServiceAreaOption

    func run() throws {
        guard (1...100).contains(limit) else { throw CLIError("--limit must be between 1 and 100") }
        let focus = try near.map { text throws(CLIError) in try coordinate(text, option: "near") }
        let accept = try area.filter()
        let t = try loadTable(table)
        do { print(JSONValue.array(try t.geocode(query, near: focus, limit: limit, accept: accept).map(\.json)).text) } catch {
            throw CLIError(error.description)
        }
    }
}

struct ReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse", abstract: "The address (or street, or place) at a coordinate, as JSON.")
    @Argument(help: "A geocoder table.") var table: String
    @Argument(help: "LAT,LON") var point: String

    func run() throws {
        let p = try coordinate(point, option: "point")
        let t = try loadTable(table)
        guard let r = t.reverse(p) else { throw CLIError("\(table): the table is empty") }
        print(JSONValue.object([("label", .string(r.label)), ("lat", degreesJSON(r.coordinate.latitude)), ("lon", degreesJSON(r.coordinate.longitude)),
                                ("kind", .string(r.kind.description)), ("distance_m", .number((r.metres * 10).rounded() / 10))]).text)
    }
}

struct BenchGeocode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geocode", abstract: "Geocode every query, each timed; write the top candidates; one JSON line.")
    @Argument(help: "A geocoder table.") var table: String
    @Option(help: "CSV with the column query, optionally near_lat,near_lon.") var queries: String
    @Option(help: "Write i,label,lat,lon,kind,score per query.") var out: String?
    @OptionGroup var area: ServiceAreaOption

    func run() throws {
        let accept = try area.filter()
        let csv = try CSVTable(reading: queries, required: ["query"])
        let q = try csv.index(of: "query")
        let (la, lo) = (csv.header.firstIndex(of: "near_lat"), csv.header.firstIndex(of: "near_lon"))
        var inputs: [(String, Coordinate?)] = []
        for row in csv.rows {
            var focus: Coordinate?
            if let la, let lo, !row.fields[la].isEmpty {
                do { focus = try Coordinate(latitude: try csv.value(row, la), longitude: try csv.value(row, lo)) } catch {
                    throw CLIError("\(queries): line \(row.line): \(error)")
                }
            }
            inputs.append((row.fields[q], focus))
        }
        guard !inputs.isEmpty else { throw CLIError("\(queries): no queries") }
        let t = try loadTable(table)
        for (text, focus) in inputs.prefix(100) { _ = try? t.geocode(text, near: focus, limit: 1, accept: accept) }  // warm-up
        var micros: [Double] = [], lines = "i,label,lat,lon,kind,score\n", notFound = 0
        for (i, (text, focus)) in inputs.enumerated() {
            let (top, ns) = timed { (try? t.geocode(text, near: focus, limit: 1, accept: accept))?.first }
            micros.append(ns / 1000)
            if let c = top {
                lines += "\(i),\(csvField(c.label)),\(coordinateText(c.coordinate)),\(c.kind),\(String(format: "%.3f", c.score))\n"
            } else { notFound += 1; lines += "\(i),,,,,\n" }
        }
        if let out { try writeOutput(lines, to: out) }
        let (p50, p99) = percentiles(micros)
        struct Timings: Encodable { let queries: Int; let p50Us, p99Us: Double; let notFound: Int }
        printJSONLine(Timings(queries: inputs.count, p50Us: rounded(p50, 1), p99Us: rounded(p99, 1), notFound: notFound))
    }
}

struct BenchReverse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse", abstract: "Reverse-geocode every point, each timed; write the answers; one JSON line.")
    @Argument(help: "A geocoder table.") var table: String
    @Option(help: "CSV with the header lat,lon.") var points: String
    @Option(help: "Write i,label,lat,lon,kind,distance_m per point.") var out: String?

    func run() throws {
        let (pts, _) = try readPoints(points)
        guard !pts.isEmpty else { throw CLIError("\(points): no points") }
        let t = try loadTable(table)
        for p in pts.prefix(100) { _ = t.reverse(p) }  // warm-up
        // Answers are kept and written after the timed loop, so formatting does not share
        // the caches with the searches being timed.
        var nanos: [Double] = [], answers: [ReverseAnswer?] = []
        nanos.reserveCapacity(pts.count); answers.reserveCapacity(pts.count)
        for p in pts {
            let (r, ns) = timed { t.reverse(p) }
            nanos.append(ns); answers.append(r)
        }
        var lines = "i,label,lat,lon,kind,distance_m\n"
        for (i, r) in answers.enumerated() {
            if let r {
                lines += "\(i),\(csvField(r.label)),\(coordinateText(r.coordinate)),\(r.kind),\(String(format: "%.1f", r.metres))\n"
            } else { lines += "\(i),,,,,\n" }
        }
        if let out { try writeOutput(lines, to: out) }
        let (p50, p99) = percentiles(nanos)
        struct Timings: Encodable { let queries: Int; let p50Ns, p99Ns: Double }
        printJSONLine(Timings(queries: pts.count, p50Ns: p50.rounded(), p99Ns: p99.rounded()))
    }
}
