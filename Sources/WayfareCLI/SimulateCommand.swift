import ArgumentParser
import CitySimulation
import CSVFile
import CityModel
import Fares
import Foundation
import GeoJSON
import Geodesy
import RoadGraph
import ServiceSimulation
import Services
import Storage
import TaxiDispatch
import ZoneImport
import Zones

enum PolicyName: String, ExpressibleByArgument, CaseIterable {
    case zoneQueue = "zone-queue", fastest, nearest
    var policy: any DispatchPolicy {
        switch self {
        case .zoneQueue: ZoneQueuePolicy()
        case .fastest: FastestArrivalPolicy()
        case .nearest: NearestByRoadPolicy()
        }
    }
}

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Simulate a city at work in virtual time; writes summary.json, trips.geojson, decisions.jsonl and drivers.csv, and prints the summary as one JSON line.",
        discussion: """
            Without --graph and --zones, the default city: Monaco from Data/monaco (its wards as \
            zones, the commune as the service area), imported first. The same seed gives \
            byte-identical trips.geojson, decisions.jsonl and drivers.csv, and the same \
            summary.json except for the measured wall times (decision_us, wall_seconds).

            With --services, the passengers and drivers go through the services instead: \
            accounts, wallets topped up, bookings now and for later, offers answered, trips \
            completed and paid from the wallet or in cash, on a store (a new SQLite file in \
            the output folder by default). It writes summary.json (bookings by outcome, \
            revenue, cash share, ledger balance) and trips.geojson, and prints the summary.
            """)
    @Option(help: "A graph file (default: Monaco from Data/monaco).") var graph: String?
    @Option(help: "A zone file or GeoJSON of taxi zones (default: Monaco's wards).") var zones: String?
    @Option(help: "Cabs in the fleet (default: 200; 40 with --services).") var cabs: Int?
    @Option(help: "Simulated hours.") var hours = 1.0
    @Option(help: "Ride requests over the run (default: 10 per cab per hour).") var requests: Int?
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "zone-queue (the specification's default), fastest (BR1) or nearest (by road).") var policy: PolicyName = .zoneQueue
    @Option(name: .customLong("accept"), help: "Chance a driver accepts an offer.") var accept = 0.8
    @Option(name: .customLong("decline"), help: "Chance a driver declines (the rest ignore the offer and it lapses).") var decline = 0.15
    @Option(name: .customLong("max-trips"), help: "Trips drawn in trips.geojson (the first served).") var maxTrips = 5000
    @Option(name: .customLong("out-dir"), help: "Folder for the outputs.") var outDir: String
    @Flag(help: "Print progress to stderr.") var progress = false
    @Flag(help: "Book and pay through the services (accounts, wallet, bookings) on a store.") var services = false
    @Option(help: "With --services: sqlite:PATH (a new file) or a postgres:// URL of an empty database (default: services.sqlite in --out-dir, made new).")
    var store: String?
    @Option(name: .customLong("store-password-file"), help: "A file whose first line is the PostgreSQL password (else WAYFARE_STORE_PASSWORD; never in --store).")
    var storePasswordFile: String?
    @Option(help: "With --services: passengers (default: 3 per cab).") var passengers: Int?
    @Option(help: "With --services and --graph/--zones: the fare chart (default: Data/monaco/fares.json).") var fares: String?

    func run() throws {
        if services { return try runBlocking { try await runServices() } }
        guard store == nil, passengers == nil, fares == nil else { throw CLIError("--store, --passengers and --fares go with --services") }
        let cabs = self.cabs ?? 200
        guard (1...2_000_000).contains(cabs) else { throw CLIError("--cabs must be between 1 and 2,000,000") }
        guard hours.isFinite, hours > 0, hours <= 48 else { throw CLIError("--hours must be more than 0 and at most 48") }
        let requestCount = requests ?? Int((Double(cabs) * 10 * hours).rounded())
        guard (0...50_000_000).contains(requestCount) else { throw CLIError("--requests must be between 0 and 50,000,000") }
        guard (0...1).contains(accept), (0...1).contains(decline), accept + decline <= 1 else {
            throw CLIError("--accept and --decline must be chances between 0 and 1 that add up to at most 1")
        }
        guard maxTrips >= 0 else { throw CLIError("--max-trips must not be negative") }
        let (zoneSet, network) = try loadCity()
        try createFolder(outDir)
        var config = CitySimulation.Configuration()
        config.cabs = cabs; config.hours = hours; config.requests = requestCount; config.seed = seed
        config.acceptProbability = accept; config.declineProbability = decline; config.keptTrips = maxTrips
        let simulation = CitySimulation(zones: zoneSet, network: network, configuration: config)
        let result: CitySimulation.Result
        do {
            result = try simulation.run(policy: policy.policy) { minute in
                if progress && minute % 5 == 0 { note("simulated \(minute) min") }
            }
        } catch { throw CLIError(error.description) }
        func path(_ name: String) -> String { (outDir as NSString).appendingPathComponent(name) }
        let summary = summaryJSON(result.summary)
        try writeOutput(summary + "\n", to: path("summary.json"))
        try writeOutput(tripsGeoJSON(result.trips), to: path("trips.geojson"))
        var log = ""
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, e in
            var c = e.singleValueContainer()
            try c.encode((date.timeIntervalSince1970 * 1000).rounded() / 1000)
        }
        for r in result.decisions { log += String(decoding: try encoder.encode(r), as: UTF8.self) + "\n" }
        try writeOutput(log, to: path("decisions.jsonl"))
        var drivers = "cab,offers,accepted,declined,timed_out,acceptance\n"
        for (cab, d) in result.drivers {
            drivers += "\(csvField(cab)),\(d.offers),\(d.accepted),\(d.declined),\(d.timedOut),\(String(format: "%.3f", d.acceptanceRate))\n"
        }
        try writeOutput(drivers, to: path("drivers.csv"))
        print(summary)
    }

    func loadCity() throws -> (ZoneSet, RoadNetwork) { try Self.loadCity(graph: graph, zones: zones) }

    /// `--services`: the city at work through the services on a store.
    func runServices() async throws {
        let cabs = self.cabs ?? 40
        guard (1...10_000).contains(cabs) else { throw CLIError("--cabs must be between 1 and 10,000 with --services") }
        guard hours.isFinite, hours > 0, hours <= 24 else { throw CLIError("--hours must be more than 0 and at most 24 with --services") }
        let passengerCount = passengers ?? cabs * 3
        guard (1...100_000).contains(passengerCount) else { throw CLIError("--passengers must be between 1 and 100,000") }
        let bookingCount = requests ?? Int((Double(cabs) * 6 * hours).rounded())
        guard (0...1_000_000).contains(bookingCount) else { throw CLIError("--requests must be between 0 and 1,000,000 with --services") }
        guard (0...1).contains(accept), (0...1).contains(decline), accept + decline <= 1 else {
            throw CLIError("--accept and --decline must be chances between 0 and 1 that add up to at most 1")
        }
        guard maxTrips >= 0 else { throw CLIError("--max-trips must not be negative") }
        let (zoneSet, network) = try loadCity()
        let farePath = fares ?? "Data/monaco/fares.json"
        let chart: FareChart
        do { chart = try FareChart.load(path: farePath) } catch { throw CLIError(error.description) }
        var tolls: TollList? = nil
        if fares == nil, graph == nil, FileManager.default.fileExists(atPath: "Data/monaco/tolls.json") {
            do { tolls = try TollList.load(path: "Data/monaco/tolls.json") } catch { throw CLIError(error.description) }
        }
        try createFolder(outDir)
        func path(_ name: String) -> String { (outDir as NSString).appendingPathComponent(name) }
        let address = try StoreAddress(parsing: store ?? "sqlite:" + path("services.sqlite"), passwordFile: storePasswordFile)
        if case let .sqlite(file) = address {
            guard !FileManager.default.fileExists(atPath: file) else {
                throw CLIError("\(file): exists; the simulation needs a new store (remove it, or give another --store)")
            }
        }
        let opened = try address.open()
        defer { opened.close() }
        do { try opened.migrate(ServiceSchema.migrations) } catch { throw CLIError("--store: \(error)") }
        var config = ServiceSimulation.Configuration()
        config.cabs = cabs; config.hours = hours; config.bookings = bookingCount; config.passengers = passengerCount
        config.seed = seed; config.acceptProbability = accept; config.declineProbability = decline; config.keptTrips = maxTrips
        let city = City(zones: zoneSet, network: network, fares: chart, tolls: tolls)
        let backend: InProcessBackend
        do { backend = try InProcessBackend(city: city, store: opened, start: ServiceSimulation.start, policy: policy.policy) }
        catch { throw CLIError(error.description) }
        let simulation = ServiceSimulation(zones: zoneSet, network: network, configuration: config)
        let showProgress = progress
        let result: ServiceSimulation.Result
        do {
            result = try await simulation.run(on: backend) { minute in
                if showProgress && minute % 5 == 0 { note("simulated \(minute) min") }
            }
        } catch { throw CLIError("the simulation's setup failed: \(error)") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let summary = String(decoding: try encoder.encode(result.summary), as: UTF8.self)
        try writeOutput(summary + "\n", to: path("summary.json"))
        try writeOutput(tripsGeoJSON(result.trips), to: path("trips.geojson"))
        print(summary)
        guard result.summary.ledgerBalanced else { throw CLIError("the ledger does not balance after the run") }
    }

    /// The city of `--graph` and `--zones`, or Monaco from `Data/` when neither is given.
    static func loadCity(graph: String?, zones: String?) throws -> (ZoneSet, RoadNetwork) {
        switch (graph, zones) {
        case let (g?, z?):
            return (try loadZones(z, source: try ZoneSourceOptions.parse([])), try loadGraph(g))
        case (nil, nil):
            let data = "Data/monaco"
            guard FileManager.default.fileExists(atPath: data + "/monaco.osm.pbf") else {
                throw CLIError("\(data)/monaco.osm.pbf: not found; run from the repository's folder or give --graph and --zones")
            }
            let zoneSet = try ZoneImporter.load(zonesAt: data + "/wards.geojson", serviceAreasAt: data + "/communes.geojson").0
            let network: RoadNetwork
            do { network = try RoadNetwork.importOSM(path: data + "/monaco.osm.pbf").0 } catch { throw CLIError(error.description) }
            return (zoneSet, network)
        default:
            throw CLIError("--graph and --zones go together (or give neither for Monaco)")
        }
    }
}

/// The summary as one JSON line, keys in a fixed order.
func summaryJSON(_ s: CitySimulation.Summary) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: (try? encoder.encode(s)) ?? Data("{}".utf8), as: UTF8.self)
}

/// Served trips as GeoJSON: per trip the route to the pickup, the ride, and the pickup.
func tripsGeoJSON(_ trips: [CitySimulation.Trip]) -> String {
    func line(_ points: [Coordinate]) -> JSONValue {
        .object([("type", .string("LineString")), ("coordinates", .array(points.map { .array([degreesJSON($0.longitude), degreesJSON($0.latitude)]) }))])
    }
    var features: [JSONValue] = []
    for t in trips {
        let common: [(String, JSONValue)] = [("request", .number(Double(t.request))), ("cab", .string(t.cab))]
        if t.toPickup.count >= 2 {
            features.append(.object([("type", .string("Feature")), ("geometry", line(t.toPickup)),
                                     ("properties", .object(common + [("leg", .string("to_pickup")), ("eta_s", .number(round1(t.etaSeconds))),
                                                                       ("arrival_s", .number(round1(t.arrivalSeconds)))]))]))
        }
        if t.ride.count >= 2 {
            features.append(.object([("type", .string("Feature")), ("geometry", line(t.ride)),
                                     ("properties", .object(common + [("leg", .string("ride"))]))]))
        }
        features.append(.object([("type", .string("Feature")),
                                 ("geometry", .object([("type", .string("Point")),
                                                       ("coordinates", .array([degreesJSON(t.pickup.longitude), degreesJSON(t.pickup.latitude)]))])),
                                 ("properties", .object(common + [("leg", .string("pickup"))]))]))
    }
    return JSONValue.object([("type", .string("FeatureCollection")), ("features", .array(features))]).serialized + "\n"
}

func round1(_ x: Double) -> Double { (x * 10).rounded() / 10 }
