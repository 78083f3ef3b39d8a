import ArgumentParser
import CitySimulation
import Foundation
import Geodesy
import RoadGraph
import WayfareAPI

struct BenchMatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Traces made from simulated trips at each noise and report interval, matched back and scored against the trips (mismatch fraction, billed distance's error, time per report); with --peer, another matcher's answers to the same traces scored the same way. One JSON line per setting, then one for a 30-minute trace.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "Trips per setting.") var trips: Int = 100
    @Option(help: "Seed of the trips and the noise.") var seed: UInt64 = 1
    @Option(help: "GPS errors (σ, metres), comma-separated.") var sigmas: String = "5,15,30"
    @Option(help: "Report intervals (seconds), comma-separated.") var intervals: String = "1,5,15,30"
    @Option(name: .customLong("traces-out"), help: "Write the traces as JSON lines {id, sigma_m, interval_s, points: [[lat, lon, time]]}.") var tracesOut: String?
    @Option(help: "JSON lines {id, pieces: [[[lon, lat]]], seconds} of another matcher for the same traces, scored beside ours.") var peer: String?
    @Option(name: .customLong("long-runs"), help: "How many times the 30-minute trace is matched (the median is printed).") var longRuns: Int = 5
    @Option(name: .customLong("trips-on"), help: "Drive the trips and the 30-minute trace on this graph file of the same city, and match them on GRAPH (the same drives matched on a graph with and one without turn costs, say).") var tripsOn: String?

    struct TraceLine: Codable { let id: String; let sigmaM: Double; let intervalS: Double; let points: [[Double]] }
    struct PeerLine: Codable { let id: String; let pieces: [[[Double]]]; let seconds: Double }

    func run() throws {
        guard (1...10_000).contains(trips) else { throw CLIError("--trips must be between 1 and 10000") }
        guard (1...100_000).contains(longRuns) else { throw CLIError("--long-runs must be between 1 and 100000") }
        let sigmaList = try numbers(sigmas, option: "sigmas", range: 0...100)
        let intervalList = try numbers(intervals, option: "intervals", range: 0.1...600)
        let network = try loadGraph(graph)
        let peerAnswers = try peer.map(readPeer) ?? [:]
        // Why an option: trips run between random nodes, so two graphs of one city (an
        // edge-based one has twice the nodes) draw different drives, and their scores would
        // compare the drives as much as the matching.
        let driven = try tripsOn.map(loadGraph) ?? network
        let routes = GPSTraces.trips(on: driven, count: trips, seed: seed)
        guard !routes.isEmpty else { throw CLIError("\(tripsOn ?? graph): no trips of 1 km or more on this graph") }
        let matcher = Matcher(network: network)
        var traceLines: [String] = []
        for sigma in sigmaList {
            for interval in intervalList {
                var random = SeededRandom(seed: seed &+ UInt64(sigma * 1000) &+ UInt64(interval * 10))
                var ours = Score(), theirs = Score()
                let settings = MatchSettings(gpsSigmaMetres: max(1, sigma))
                for (n, route) in routes.enumerated() {
                    let trace = GPSTraces.reports(along: route.geometry, durationSeconds: route.durationSeconds, every: interval,
                                                  noiseMetres: sigma, using: &random)
                    let id = "s\(sigma)-i\(interval)-\(n)"
                    if tracesOut != nil {
                        let line = TraceLine(id: id, sigmaM: sigma, intervalS: interval,
                                             points: trace.map { [$0.coordinate.latitude, $0.coordinate.longitude, $0.time ?? 0] })
                        traceLines.append(WireEncoder.string(line, keys: .snakeCase))
                    }
                    let (match, ns) = timed { matcher.match(trace, settings: settings) }
                    ours.add(truth: route.geometry, matched: match.pieces, distance: match.distanceMetres, seconds: ns / 1e9,
                             points: trace.count, breaks: match.breaks.count)
                    if let answer = peerAnswers[id] {
                        let pieces = answer.pieces.map { $0.compactMap { $0.count == 2 ? Coordinate(unchecked: $0[1], $0[0]) : nil } }
                        theirs.add(truth: route.geometry, matched: pieces, distance: pieces.reduce(0) { $0 + length($1) }, seconds: answer.seconds,
                                   points: trace.count, breaks: max(0, pieces.count - 1))
                    }
                }
                printJSONLine(ours.report(sigma: sigma, interval: interval, peer: theirs.traces > 0 ? theirs : nil))
            }
        }
        if let tracesOut { try writeOutput(traceLines.joined(separator: "\n") + "\n", to: tracesOut) }
        // A 30-minute shift at one report every 5 s, σ 15 m: the time to match it whole.
        let tour = GPSTraces.tour(on: network, seconds: 1800, seed: seed)
        var random = SeededRandom(seed: seed)
        let trace = GPSTraces.reports(along: tour.path, durationSeconds: tour.durationSeconds, every: 5, noiseMetres: 15, using: &random)
            .filter { ($0.time ?? 0) <= 1800 }
        _ = matcher.match(trace, settings: MatchSettings(gpsSigmaMetres: 15))  // warm
        var runs: [Double] = []
        for _ in 0..<longRuns { runs.append(timed { matcher.match(trace, settings: MatchSettings(gpsSigmaMetres: 15)) }.1 / 1e6) }
        struct Long: Encodable { let longTraceS: Double; let points: Int; let milliseconds: Double }
        printJSONLine(Long(longTraceS: rounded(trace.last?.time ?? 0, 0), points: trace.count, milliseconds: rounded(median(runs), 3)))
    }

    func numbers(_ text: String, option: String, range: ClosedRange<Double>) throws(CLIError) -> [Double] {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        var out: [Double] = []
        for p in parts {
            guard let v = Double(p), v.isFinite, range.contains(v) else {
                throw CLIError("--\(option): \"\(p)\" is not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            out.append(v)
        }
        guard !out.isEmpty, out.count <= 20 else { throw CLIError("--\(option): give 1 to 20 numbers") }
        return out
    }

    func readPeer(_ path: String) throws(CLIError) -> [String: PeerLine] {
        try readJSONLines(path, PeerLine.self, shape: "{id, pieces, seconds}").reduce(into: [:]) { $0[$1.id] = $1 }
    }
}

/// The objects of a JSON-lines file, one per non-blank line; a line that is not a `T` is an
/// error naming the line and the `shape` expected.
func readJSONLines<T: Decodable>(_ path: String, _ type: T.Type, shape: String) throws(CLIError) -> [T] {
    let text: String
    do { text = try String(contentsOfFile: path, encoding: .utf8) } catch { throw CLIError("\(path): cannot be read") }
    var out: [T] = []
    for (i, line) in text.split(separator: "\n").enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
        do { out.append(try JSONDecoder().decode(T.self, from: Data(line.utf8))) } catch {
            throw CLIError("\(path): line \(i + 1): not a \(shape) object")
        }
    }
    return out
}

/// A matcher's results over one setting's traces.
struct Score {
    var traces = 0, points = 0, breaks = 0
    var mismatch: [Double] = [], distanceError: [Double] = []
    var seconds = 0.0

    mutating func add(truth: [Coordinate], matched: [[Coordinate]], distance: Double, seconds: Double, points: Int, breaks: Int) {
        traces += 1
        self.points += points
        self.breaks += breaks
        self.seconds += seconds
        mismatch.append(GPSTraces.mismatchFraction(truth: truth, matched: matched))
        let truthLength = length(truth)
        distanceError.append(truthLength > 0 ? abs(distance - truthLength) / truthLength : 0)
    }

    struct Report: Encodable {
        let sigmaM: Double, intervalS: Double, traces: Int, points: Int
        let mismatchMedian: Double, mismatchMean: Double, distanceErrorMedian: Double, breaks: Int, usPerPoint: Double
        let peer: PeerReport?
    }
    struct PeerReport: Encodable {
        let mismatchMedian: Double, mismatchMean: Double, distanceErrorMedian: Double, pieces: Int, usPerPoint: Double, speedup: Double
    }

    func report(sigma: Double, interval: Double, peer: Score?) -> Report {
        let us = points > 0 ? seconds * 1e6 / Double(points) : 0
        let peerReport = peer.map { p in
            let theirs = p.points > 0 ? p.seconds * 1e6 / Double(p.points) : 0
            return PeerReport(mismatchMedian: rounded(median(p.mismatch), 5), mismatchMean: rounded(p.mismatch.reduce(0, +) / Double(max(1, p.traces)), 5),
                              distanceErrorMedian: rounded(median(p.distanceError), 5), pieces: p.breaks, usPerPoint: rounded(theirs, 2),
                              speedup: rounded(us > 0 ? theirs / us : 0, 1))
        }
        return Report(sigmaM: sigma, intervalS: interval, traces: traces, points: points, mismatchMedian: rounded(median(mismatch), 5),
                      mismatchMean: rounded(mismatch.reduce(0, +) / Double(max(1, traces)), 5), distanceErrorMedian: rounded(median(distanceError), 5),
                      breaks: breaks, usPerPoint: rounded(us, 2), peer: peerReport)
    }
}

/// A line's length along its points, in metres.
func length(_ line: [Coordinate]) -> Double { zip(line, line.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) } }
