import ArgumentParser
import CSVFile
import Foundation
import Workloads
import GeoJSON
import Geodesy
import RoadGraph
import WayfareAPI

struct GraphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph", abstract: "Import road graphs (OSM or CSV) and make test inputs for them.",
        subcommands: [GraphImport.self, GraphOD.self, GraphGrid.self])
}

/// A progress bar on standard error, redrawn in place.
final class ProgressBar {
    var lastDrawn = -1
    var lastStage = ""
    func update(_ stage: String, _ done: Double) {
        // A whole percent told as a share (0.98) can come out a hair below it times 100.
        let percent = Int(max(0, min(1, done)) * 100 + 1e-9)
        guard percent != lastDrawn || stage != lastStage else { return }
        lastDrawn = percent; lastStage = stage
        let filled = percent / 5
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 20 - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(String(format: "%3d", percent))% \(stage.padding(toLength: max(40, stage.count), withPad: " ", startingAt: 0))".utf8))
    }
    func finish() { FileHandle.standardError.write(Data("\n".utf8)) }
}

struct GraphImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Build a routable graph file from an OSM extract (.osm.pbf or .osm) or from nodes and edges CSV.")
    @Argument(help: "An OSM extract (.osm.pbf, or OSM XML .osm).") var file: String?
    @Option(help: "CSV id,lat,lon (with --edges, instead of an OSM file).") var nodes: String?
    @Option(help: "CSV from,to,length_m,time_s: one directed edge per row.") var edges: String?
    @Option(help: "The graph file to write.") var out: String
    @Flag(help: "Price turns as OSRM's car profile does (U-turns, turns across traffic); OSM extracts only.")
    var turnCosts = false

    func run() throws {
        let bar = ProgressBar()
        let start = Date()
        let network: RoadNetwork, report: BuildReport
        switch (file, nodes, edges) {
        case let (file?, nil, nil):
            var profile = CarProfile()
            if turnCosts { profile.turnCosts = TurnCosts() }
            (network, report) = try RoadNetwork.importOSM(path: file, profile: profile, progress: bar.update)
        case let (nil, nodes?, edges?):
            guard !turnCosts else { throw CLIError("--turn-costs: only an OSM extract carries the geometry turns are priced by") }
            (network, report) = try RoadNetwork.importCSV(nodes: nodes, edges: edges, progress: bar.update)
        default:
            throw CLIError("give either an OSM file or both --nodes and --edges")
        }
        bar.update("writing", 0)
        let writeStart = Date()
        try GraphFile.write(network, to: out)
        bar.update("writing", 1)
        bar.finish()
        let seconds = Date().timeIntervalSince(start)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        // Each phase on its own line (stderr), then the one JSON line.
        var phases = report.phases
        phases.append(.init(name: "writing", seconds: Date().timeIntervalSince(writeStart), peakBytes: BuildReport.Phase.peakResidentBytes()))
        for p in phases {
            note("\(p.name): \(String(format: "%.2f", p.seconds)) s" + (p.peakBytes.map { String(format: ", peak memory %.0f MB", Double($0) / 1e6) } ?? ""))
        }
        for (metric, count) in zip(Metric.allCases, report.shortcutsPerMetric) { note("shortcuts (\(metric.rawValue)): \(count)") }
        struct Imported: Encodable {
            let nodes, edges, droppedComponents, droppedNodes, shortcuts: Int
            let shortcutsTime, shortcutsDistance: Int
            let restrictionsApplied, restrictionsSkipped, implausibleSpeeds: Int
            let seconds, megabytes: Double
            let phases: [Phase]
            let memoryBytesPerNode: Int
        }
        struct Phase: Encodable { let name: String, seconds: Double, peakMegabytes: Double? }
        let perMetric = report.shortcutsPerMetric + [0, 0]
        printJSONLine(Imported(nodes: report.nodes, edges: report.edges, droppedComponents: report.droppedComponents,
                               droppedNodes: report.droppedNodes, shortcuts: report.shortcuts,
                               shortcutsTime: perMetric[0], shortcutsDistance: perMetric[1],
                               restrictionsApplied: report.restrictionsApplied,
                               restrictionsSkipped: report.restrictionsSkipped, implausibleSpeeds: report.implausibleSpeeds,
                               seconds: rounded(seconds, 2), megabytes: rounded(Double(bytes) / 1e6, 2),
                               phases: phases.map { Phase(name: $0.name, seconds: rounded($0.seconds, 2), peakMegabytes: $0.peakBytes.map { rounded(Double($0) / 1e6, 1) }) },
                               memoryBytesPerNode: network.memoryBytes / max(1, network.nodeCount)))
    }
}

struct GraphOD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "od", abstract: "Seeded random origin–destination pairs on a graph's roads (a few metres off them), as o_lat,o_lon,d_lat,d_lon.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "How many pairs.") var pairs: Int = 1000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "Output CSV (default: standard output).") var out: String?

    func run() throws {
        guard (1...10_000_000).contains(pairs) else { throw CLIError("--pairs must be between 1 and 10,000,000") }
        let network = try GraphFile.read(path: graph)
        var text = "o_lat,o_lon,d_lat,d_lon\n"
        for (o, d) in network.randomPairs(pairs, seed: seed) {
            text += String(format: "%.7f,%.7f,%.7f,%.7f\n", o.latitude, o.longitude, d.latitude, d.longitude)
        }
        try writeOutput(text, to: out)
    }
}

struct GraphGrid: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grid",
        abstract: "A seeded synthetic grid-like city as nodes.csv and edges.csv, for scaling tests, with square taxi zones in zones.geojson.")
    @Option(help: "Approximate number of nodes.") var nodes: Int = 1_000_000
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(name: .customLong("zone-km"), help: "Side of the square taxi zones in zones.geojson, in km.") var zoneKm = 10.0
    @Option(name: .customLong("out-dir"), help: "Folder for nodes.csv, edges.csv and zones.geojson.") var outDir: String

    func run() throws {
        guard (4...20_000_000).contains(nodes) else { throw CLIError("--nodes must be between 4 and 20,000,000") }
        guard zoneKm.isFinite, zoneKm >= 0.1, zoneKm <= 1000 else { throw CLIError("--zone-km must be between 0.1 and 1000") }
        let grid = SyntheticGrid(nodes: nodes, seed: seed)
        try createFolder(outDir)
        var n = "id,lat,lon\n"
        for (i, c) in grid.coordinates.enumerated() { n += "\(i),\(coordinateText(c))\n" }
        try writeOutput(n, to: (outDir as NSString).appendingPathComponent("nodes.csv"))
        var e = "from,to,length_m,time_s\n"
        for x in grid.edges { e += "\(x.from),\(x.to),\(String(format: "%.2f,%.3f", x.lengthMetres, x.timeSeconds))\n" }
        try writeOutput(e, to: (outDir as NSString).appendingPathComponent("edges.csv"))
        try writeOutput(grid.squareZonesGeoJSON(sideKm: zoneKm), to: (outDir as NSString).appendingPathComponent("zones.geojson"))
    }
}

/// `--limit-s` of the ETA commands: a finite number of seconds up to a day.
func checkLimit(_ seconds: Double) throws(CLIError) {
    guard seconds.isFinite, seconds >= 0, seconds <= 86_400 else { throw CLIError("--limit-s must be between 0 and 86400") }
}

/// Parses "LAT,LON" for an option, naming it in the error.
func coordinate(_ text: String, option: String) throws(CLIError) -> Coordinate {
    do { return try Coordinate(parsing: text) } catch { throw CLIError("--\(option) \"\(text)\": \(error)") }
}

func loadGraph(_ path: String) throws(CLIError) -> RoadNetwork {
    do { return try GraphFile.read(path: path) } catch { throw CLIError(error.description) }
}

extension Metric: ExpressibleByArgument {}
extension RoutingAlgorithm: ExpressibleByArgument {}

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route", abstract: "The fastest (or shortest) route between two coordinates, as JSON.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "Start, as LAT,LON.") var from: String
    @Option(help: "End, as LAT,LON.") var to: String
    @Option(help: "time (fastest) or distance (shortest).") var metric: Metric = .time
    @Option(help: "hierarchy, astar or dijkstra (same answer, different speed).") var algorithm: RoutingAlgorithm = .hierarchy
    @Flag(help: "Print a GeoJSON Feature instead.") var geojson = false
    @Option(help: "Up to this many routes (1 to 3): the fastest and admissible alternatives, printed as {\"routes\": [...]}.")
    var alternatives: Int?

    func run() throws {
        let a = try coordinate(from, option: "from"), b = try coordinate(to, option: "to")
        let router = Router(network: try loadGraph(graph))
        if let alternatives {
            guard (1...3).contains(alternatives) else { throw CLIError("--alternatives must be between 1 and 3") }
            guard metric == .time, algorithm == .hierarchy else { throw CLIError("--alternatives needs --metric time and --algorithm hierarchy") }
            let routes: [Route]
            do { routes = try router.routes(from: a, to: b, count: alternatives) } catch { throw CLIError(error.description) }
            print(JSONValue.object([("routes", .array(routes.map { geojson ? $0.geoJSONFeature : $0.json }))]).text)
            return
        }
        let route: Route
        do { route = try router.route(from: a, to: b, metric: metric, algorithm: algorithm) } catch { throw CLIError(error.description) }
        print((geojson ? route.geoJSONFeature : route.json).text)
    }
}

extension Route {
    var lineString: JSONValue { .array(geometry.map { .array([degreesJSON($0.longitude), degreesJSON($0.latitude)]) }) }
    func metres(_ v: Double) -> JSONValue { .number((v * 10).rounded() / 10) }

    /// The `wayfare route` answer.
    var json: JSONValue {
        .object([("distance_m", metres(distanceMetres)), ("duration_s", .number((durationSeconds * 10).rounded() / 10)),
                 ("from_snap_m", metres(fromSnapMetres)), ("to_snap_m", metres(toSnapMetres)),
                 ("geometry", lineString), ("streets", .array(streets.map { .string($0) })),
                 ("polyline", .string(Polyline.encode(geometry)))])
    }

    /// The answer as a GeoJSON Feature with a LineString.
    var geoJSONFeature: JSONValue {
        var properties = json.objectMembers
        properties.removeAll { $0.0 == "geometry" }
        return .object([("type", .string("Feature")),
                        ("geometry", .object([("type", .string("LineString")), ("coordinates", lineString)])),
                        ("properties", .object(properties))])
    }
}

extension JSONValue {
    var objectMembers: [(String, JSONValue)] { if case let .object(m) = self { m } else { [] } }
    var text: String { serialized }
}

struct EtaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eta", abstract: "Arrival times at a pickup from many cabs (one many-to-one search on the hierarchy), fastest first, as CSV id,eta_s,distance_m.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "The pickup, as LAT,LON.") var to: String
    @Option(help: "CSV id,lat,lon of the cabs.") var cabs: String
    @Option(name: .customLong("limit-s"), help: "Only cabs that can arrive within this many seconds.") var limitS: Double = 1800

    func run() throws {
        try checkLimit(limitS)
        let pickup = try coordinate(to, option: "to")
        let (ids, points) = try readIdentifiedPoints(cabs, uniqueIds: true)
        guard !points.isEmpty else { throw CLIError("\(cabs): no cabs") }
        let router = Router(network: try loadGraph(graph))
        let etas: [ETA?]
        do { etas = try router.etas(to: pickup, from: points, limitSeconds: limitS) } catch { throw CLIError(error.description) }
        let offRoad = points.indices.filter { (try? router.snap(points[$0])) == nil }
        if !offRoad.isEmpty { note("\(offRoad.count) cab(s) more than 1000 m from any road were skipped (first: \(ids[offRoad[0]]))") }
        var text = "id,eta_s,distance_m\n"
        for i in etas.indices.filter({ etas[$0] != nil }).sorted(by: { (etas[$0]!.seconds, ids[$0]) < (etas[$1]!.seconds, ids[$1]) }) {
            text += "\(csvField(ids[i])),\(String(format: "%.1f", etas[i]!.seconds)),\(String(format: "%.1f", etas[i]!.metres))\n"
        }
        try writeOutput(text, to: nil)
    }
}

struct BenchRoute: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Route every origin–destination pair, each timed from coordinates to the finished answer; one JSON line.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "CSV with the columns o_lat,o_lon,d_lat,d_lon.") var od: String
    @Option(help: "time (fastest) or distance (shortest).") var metric: Metric = .time
    @Option(help: "hierarchy, astar or dijkstra.") var algorithm: RoutingAlgorithm = .hierarchy
    @Option(help: "Write i,distance_m,duration_s,settled per pair.") var out: String?

    func run() throws {
        let table = try CSVTable(reading: od, required: ["o_lat", "o_lon", "d_lat", "d_lon"])
        let cols = try ["o_lat", "o_lon", "d_lat", "d_lon"].map { n throws(CLIError) in try table.index(of: n) }
        var pairs: [(Coordinate, Coordinate)] = []
        for row in table.rows {
            let v = try cols.map { c throws(CLIError) in try table.value(row, c) }
            do { pairs.append((try Coordinate(latitude: v[0], longitude: v[1]), try Coordinate(latitude: v[2], longitude: v[3]))) } catch {
                throw CLIError("\(od): line \(row.line): \(error)")
            }
        }
        guard !pairs.isEmpty else { throw CLIError("\(od): no pairs") }
        let router = Router(network: try loadGraph(graph))
        for (a, b) in pairs.prefix(100) { _ = try? router.route(from: a, to: b, metric: metric, algorithm: algorithm) }  // warm-up
        var micros: [Double] = [], lines = "i,distance_m,duration_s,settled\n", noRoute = 0
        micros.reserveCapacity(pairs.count)
        for (i, (a, b)) in pairs.enumerated() {
            let (route, ns) = timed { try? router.route(from: a, to: b, metric: metric, algorithm: algorithm) }
            micros.append(ns / 1000)
            if let r = route {
                lines += "\(i),\(String(format: "%.1f", r.distanceMetres)),\(String(format: "%.3f", r.durationSeconds)),\(r.settled)\n"
            } else {
                noRoute += 1; lines += "\(i),,,\n"
            }
        }
        if let out { try writeOutput(lines, to: out) }
        let (p50, p99) = percentiles(micros)
        struct Timings: Encodable { let queries: Int; let p50Us, p99Us: Double; let noRoute: Int }
        printJSONLine(Timings(queries: pairs.count, p50Us: rounded(p50, 1), p99Us: rounded(p99, 1), noRoute: noRoute))
    }
}

extension ETAAlgorithm: ExpressibleByArgument {}

struct BenchEta: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eta",
        abstract: "For each pickup, the ETAs of all cabs on the hierarchy, each checked against a one-to-one route; one JSON line.",
        discussion: """
            Times each pickup's call from coordinates (snapping the pickup and every cab, the \
            search, the answers) after a 10-pickup warm-up; `snapped_p50_us` times the same with \
            the cabs snapped beforehand (what a dispatcher that keeps each cab's snap pays), and \
            `baseline_p50_us` the plain backward search in the same process. A mismatch is a cab \
            whose ETA differs from the one-to-one route's duration (or is missing, or present \
            beyond the limit).
            """)
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "CSV id,lat,lon of the cabs.") var cabs: String
    @Option(help: "CSV lat,lon of the pickups.") var pickups: String
    @Option(name: .customLong("limit-s"), help: "Only cabs that can arrive within this many seconds.") var limitS: Double = 1800

    func run() throws {
        try checkLimit(limitS)
        let (_, cabPoints) = try readIdentifiedPoints(cabs, uniqueIds: true)
        guard !cabPoints.isEmpty else { throw CLIError("\(cabs): no cabs") }
        let (pickupPoints, _) = try readPoints(pickups)
        guard !pickupPoints.isEmpty else { throw CLIError("\(pickups): no pickups") }
        let router = Router(network: try loadGraph(graph))
        let snaps = cabPoints.map { try? router.snap($0) }
        var targets: [Snap] = []
        for (i, p) in pickupPoints.enumerated() {
            do { targets.append(try router.snap(p)) } catch { throw CLIError("\(pickups): pickup \(i + 1): \(error.description)") }
        }
        for p in pickupPoints.prefix(10) { _ = try? router.etas(to: p, from: cabPoints, limitSeconds: limitS) }
        var whole: [Double] = [], search: [Double] = [], baseline: [Double] = [], answers: [[ETA?]] = []
        var settled = 0
        for (p, t) in zip(pickupPoints, targets) {
            let (a, ns) = timed { try? router.etas(to: p, from: cabPoints, limitSeconds: limitS) }
            whole.append(ns / 1000)
            answers.append(a ?? [])
            search.append(timed { router.etas(to: t, from: snaps, limitSeconds: limitS) }.1 / 1000)
            settled += router.settled
            baseline.append(timed { router.etas(to: t, from: snaps, limitSeconds: limitS, algorithm: .backwardSearch) }.1 / 1000)
        }
        var mismatches = 0
        for (p, etas) in zip(pickupPoints, answers) {
            for (c, eta) in zip(cabPoints, etas) {
                let r = try? router.route(from: c, to: p, metric: .time)
                let expected = r.flatMap { $0.durationSeconds <= limitS ? $0.durationSeconds : nil }
                if eta?.seconds != expected { mismatches += 1 }
            }
        }
        let (p50, p99) = percentiles(whole), (s50, s99) = percentiles(search), (b50, _) = percentiles(baseline)
        struct Timings: Encodable {
            let pickups, cabs: Int
            let p50Us, p99Us, snappedP50Us, snappedP99Us, baselineP50Us: Double
            let nodesPerPickup, mismatches: Int
        }
        printJSONLine(Timings(pickups: pickupPoints.count, cabs: cabPoints.count, p50Us: rounded(p50, 1), p99Us: rounded(p99, 1),
                              snappedP50Us: rounded(s50, 1), snappedP99Us: rounded(s99, 1), baselineP50Us: rounded(b50, 1),
                              nodesPerPickup: settled / pickupPoints.count, mismatches: mismatches))
    }
}
