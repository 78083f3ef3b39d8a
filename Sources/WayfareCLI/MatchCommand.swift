import ArgumentParser
import CSVFile
import Foundation
import GeoJSON
import Geodesy
import RoadGraph
import WayfareAPI

struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "A GPS trace matched to the roads (hidden Markov model): the track, its length and time, each report's place, the breaks; one JSON object, as POST /v1/match answers.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "CSV lat,lon and an optional time (seconds), one report per row, in order.") var trace: String
    @Option(name: .customLong("sigma-m"), help: "The GPS error's standard deviation, in metres (1 to 100).") var sigmaM: Double = 10

    func run() throws {
        guard sigmaM.isFinite, (1...100).contains(sigmaM) else { throw CLIError("--sigma-m must be between 1 and 100") }
        let reports = try readTrace(trace)
        let matcher = Matcher(network: try loadGraph(graph))
        let match = matcher.match(reports, settings: MatchSettings(gpsSigmaMetres: sigmaM))
        print(WireEncoder.string(MatchAnswer(match)))
    }
}

/// The reports of a trace file: `lat,lon` and an optional `time` in seconds, never earlier
/// than the row before.
func readTrace(_ path: String) throws(CLIError) -> [TracePoint] {
    let table = try CSVTable(reading: path, required: ["lat", "lon"])
    let la = try table.index(of: "lat"), lo = try table.index(of: "lon"), ti = table.optionalColumn("time")
    var out: [TracePoint] = []
    out.reserveCapacity(table.rows.count)
    for row in table.rows {
        let c: Coordinate
        do { c = try Coordinate(latitude: try table.value(row, la), longitude: try table.value(row, lo)) } catch {
            throw CLIError("\(path): line \(row.line): \(error)")
        }
        var time: Double?
        if let ti, !table.text(row, ti).isEmpty {
            let t = try table.value(row, ti)
            guard t.isFinite, t >= 0 else { throw CLIError("\(path): line \(row.line): time must be a finite number ≥ 0") }
            if let before = out.last?.time, t < before { throw CLIError("\(path): line \(row.line): time is earlier than the row before") }
            time = t
        }
        out.append(TracePoint(c, time: time))
    }
    guard !out.isEmpty else { throw CLIError("\(path): no reports") }
    return out
}

/// `wayfare follow`: a trace weighed against the route a passenger would have been shown,
/// report by report, as the server does while a booking is tracked.
struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "A cab's trace followed along the fastest route from --from to --to, as the server tracks a booking: each time it left the route (by the second report off it), where, and the new route taken; one JSON object.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "Where the route shown starts, as LAT,LON.") var from: String
    @Option(help: "Where it ends, as LAT,LON.") var to: String
    @Option(help: "CSV lat,lon and an optional time (seconds), one report per row, in order.") var trace: String
    @Option(name: .customLong("sigma-m"), help: "The GPS error's standard deviation, in metres (1 to 100).") var sigmaM: Double = 10

    func run() throws {
        guard sigmaM.isFinite, (1...100).contains(sigmaM) else { throw CLIError("--sigma-m must be between 1 and 100") }
        let a = try coordinate(from, option: "from"), b = try coordinate(to, option: "to")
        let reports = try readTrace(trace)
        let matcher = Matcher(network: try loadGraph(graph))
        let shown: Route
        do { shown = try matcher.router.route(from: a, to: b) } catch { throw CLIError(error.description) }
        var follower = RouteFollower(route: shown, to: b, settings: FollowSettings(gpsSigmaMetres: sigmaM))
        var deviations: [JSONValue] = [], arrivedAt: Int?
        for (k, report) in reports.enumerated() {
            switch follower.observe(report, matcher: matcher) {
            case let .deviated(at):
                deviations.append(.object([("report", .number(Double(k))), ("at", Self.point(at)), ("route", follower.route.json)]))
            case let .deviatedWithoutRoute(at):
                deviations.append(.object([("report", .number(Double(k))), ("at", Self.point(at)), ("route", .null)]))
            case .arrived where arrivedAt == nil: arrivedAt = k
            default: break
            }
        }
        print(JSONValue.object([("shown", shown.json), ("deviations", .array(deviations)),
                                ("arrived_at_report", arrivedAt.map { .number(Double($0)) } ?? .null),
                                ("remaining_m", .number(follower.remainingMetres.rounded()))]).text)
    }

    static func point(_ c: Coordinate) -> JSONValue { .object([("lat", degreesJSON(c.latitude)), ("lon", degreesJSON(c.longitude))]) }
}
