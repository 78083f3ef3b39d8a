import ArgumentParser
import CitySimulation
import Foundation
import Geodesy
import RoadGraph
import WayfareAPI

/// `wayfare bench alternatives`: the routes offered between random places, measured the same
/// way for Wayfare and for another engine's answers to the same pairs.
struct BenchAlternatives: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "alternatives",
        abstract: "Up to three routes between random junctions, fastest first: how often 1, 2 and 3 are found, their stretch (time over the fastest's) and sharing with the fastest (length within 3 m of it, by brute force), how many pass the common admissibility bounds (sharing ≤ 80 %, stretch ≤ 1.25), and the time per query; with --peer, another engine's answers to the same pairs measured the same way. One JSON line per engine.")
    @Argument(help: "A graph file.") var graph: String
    @Option(help: "Pairs of places.") var pairs: Int = 200
    @Option(help: "Seed of the pairs.") var seed: UInt64 = 1
    @Option(name: .customLong("pairs-out"), help: "Write the pairs as JSON lines {id, from: [lat, lon], to: [lat, lon]}.") var pairsOut: String?
    @Option(help: "JSON lines {id, routes: [{duration_s, geometry: [[lon, lat]]}], seconds} of another engine for the same pairs.") var peer: String?
    @Option(name: .customLong("peer-name"), help: "The other engine's name in the output.") var peerName: String = "peer"

    struct PairLine: Codable { let id: String; let from: [Double]; let to: [Double] }
    struct PeerLine: Codable {
        struct PeerRoute: Codable { let durationS: Double; let geometry: [[Double]]
            enum CodingKeys: String, CodingKey { case durationS = "duration_s", geometry } }
        let id: String; let routes: [PeerRoute]; let seconds: Double
    }

    func run() throws {
        guard (1...10_000).contains(pairs) else { throw CLIError("--pairs must be between 1 and 10000") }
        let network = try loadGraph(graph)
        let trips = GPSTraces.trips(on: network, count: pairs, seed: seed)
        guard !trips.isEmpty else { throw CLIError("\(graph): no pairs of junctions 1 km or more apart by road") }
        let places = trips.compactMap { r -> (Coordinate, Coordinate)? in r.geometry.first.flatMap { a in r.geometry.last.map { (a, $0) } } }
        if let pairsOut {
            let lines = places.enumerated().map { n, p in
                WireEncoder.string(PairLine(id: "\(n)", from: [p.0.latitude, p.0.longitude], to: [p.1.latitude, p.1.longitude]))
            }
            try writeOutput(lines.joined(separator: "\n") + "\n", to: pairsOut)
        }
        let router = Router(network: network)
        var ours = Offer(engine: "wayfare")
        for (a, b) in places { _ = try? router.routes(from: a, to: b, count: 3) }  // warm
        for (a, b) in places {
            let (found, ns) = timed { (try? router.routes(from: a, to: b, count: 3)) ?? [] }
            ours.add(found.map { ($0.durationSeconds, $0.geometry) }, seconds: ns / 1e9)
        }
        printJSONLine(ours.report())
        if let peer {
            let answers = try readPeer(peer)
            var theirs = Offer(engine: peerName)
            for n in places.indices {
                guard let answer = answers["\(n)"] else { continue }
                theirs.add(answer.routes.map { r in (r.durationS, r.geometry.compactMap { $0.count == 2 ? Coordinate(unchecked: $0[1], $0[0]) : nil }) },
                           seconds: answer.seconds)
            }
            printJSONLine(theirs.report())
        }
    }

    func readPeer(_ path: String) throws(CLIError) -> [String: PeerLine] {
        try readJSONLines(path, PeerLine.self, shape: "{id, routes, seconds}").reduce(into: [:]) { $0[$1.id] = $1 }
    }
}

/// One engine's routes over the pairs.
struct Offer {
    let engine: String
    var queries = 0
    var found = [0, 0, 0, 0]  // queries with 0, 1, 2 and 3 routes
    var admissible = 0, alternatives = 0
    var stretch: [Double] = [], sharing: [Double] = [], microseconds: [Double] = []

    init(engine: String) { self.engine = engine }

    mutating func add(_ routes: [(seconds: Double, line: [Coordinate])], seconds: Double) {
        queries += 1
        found[min(3, routes.count)] += 1
        microseconds.append(seconds * 1e6)
        guard let best = routes.first else { return }
        for r in routes.dropFirst() {
            alternatives += 1
            let s = best.seconds > 0 ? r.seconds / best.seconds : 1
            let shared = GPSTraces.sharedFraction(of: r.line, with: best.line)
            stretch.append(s)
            sharing.append(shared)
            if s <= 1.25 + 1e-9, shared <= 0.8 { admissible += 1 }
        }
    }

    struct Report: Encodable {
        let engine: String, queries: Int, with1: Int, with2: Int, with3: Int, none: Int, alternatives: Int, admissible: Int
        let stretchMedian: Double, stretchMax: Double, sharingMedian: Double, sharingMax: Double, usPerQueryP50: Double, usPerQueryMean: Double
    }

    func report() -> Report {
        Report(engine: engine, queries: queries, with1: found[1], with2: found[2], with3: found[3], none: found[0], alternatives: alternatives,
               admissible: admissible, stretchMedian: rounded(median(stretch), 3), stretchMax: rounded(stretch.max() ?? 0, 3),
               sharingMedian: rounded(median(sharing), 3), sharingMax: rounded(sharing.max() ?? 0, 3),
               usPerQueryP50: rounded(median(microseconds), 1), usPerQueryMean: rounded(microseconds.reduce(0, +) / Double(max(1, queries)), 1))
    }
}
