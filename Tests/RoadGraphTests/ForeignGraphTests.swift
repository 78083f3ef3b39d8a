import Foundation
import Testing
import Geodesy
import TestSupport
@testable import RoadGraph

/// A graph from elsewhere: a perturbed-grid city exported as CSV the way other tools write
/// it (one row per direction of each two-way street, rows in no particular order, some
/// with their own LINESTRING, node coordinates at 9 decimals), routed between node
/// coordinates and checked against a textbook Dijkstra over the same rows, with its own
/// adjacency and its own heap.
@Suite struct ForeignGraphTests {
    struct Row { var from: Int; var to: Int; var length: Double; var time: Double; var wkt: String }

    /// The exported city: node coordinates as text and edge rows.
    static func city(side: Int, seed: UInt64) -> (lat: [Double], lon: [Double], rows: [Row]) {
        var rng = SeededRandom(seed: seed)
        let dLat = 110 / 111_195.0, dLon = 110 / (111_195.0 * cos(48.0 * .pi / 180))
        var lat: [Double] = [], lon: [Double] = []
        for r in 0..<side {
            for c in 0..<side {
                // 9 decimals, as a foreign tool writes them (the graph keeps 7).
                lat.append(((48.0 + (Double(r) + .random(in: -0.3...0.3, using: &rng)) * dLat) * 1e9).rounded() / 1e9)
                lon.append(((2.0 + (Double(c) + .random(in: -0.3...0.3, using: &rng)) * dLon) * 1e9).rounded() / 1e9)
            }
        }
        func metres(_ a: Int, _ b: Int) -> Double { IndependentGeodesy.haversineMetres(lat[a], lon[a], lat[b], lon[b]) }
        var rows: [Row] = []
        for r in 0..<side {
            for c in 0..<side {
                let v = r * side + c
                for (dr, dc) in [(0, 1), (1, 0)] where r + dr < side && c + dc < side {
                    let w = (r + dr) * side + c + dc
                    // One-way: every fourth row and column, alternating in direction.
                    let line = dr == 0 ? r : c
                    let oneWay = line % 4 == 1, forward = (line / 4) % 2 == 0
                    let speed = line % 5 == 0 ? 50.0 : 30.0
                    // A drawn bend for a third of the streets, 4 m off the chord.
                    var wkt = ""
                    if Double.random(in: 0..<1, using: &rng) < 0.33 {
                        let mLat = (lat[v] + lat[w]) / 2 + (dc == 1 ? 4 / 111_195.0 : 0)
                        let mLon = (lon[v] + lon[w]) / 2 + (dr == 1 ? 4 / (111_195.0 * cos(48.0 * .pi / 180)) : 0)
                        wkt = String(format: "LINESTRING (%.9f %.9f, %.9f %.9f, %.9f %.9f)", lon[v], lat[v], mLon, mLat, lon[w], lat[w])
                    }
                    func reversed(_ text: String) -> String {
                        guard text.hasPrefix("LINESTRING (") else { return text }
                        let points = text.dropFirst(12).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        return "LINESTRING (" + points.reversed().joined(separator: ", ") + ")"
                    }
                    let length = ((metres(v, w) * .random(in: 1.05...1.3, using: &rng)) * 1000).rounded() / 1000
                    let time = ((length / (speed / 3.6)) * 1000).rounded() / 1000
                    if !oneWay || forward { rows.append(Row(from: v, to: w, length: length, time: time, wkt: wkt)) }
                    if !oneWay || !forward {
                        // The other direction: its own time (a hill, a light), the same line.
                        let slower = ((time * .random(in: 1.0...1.25, using: &rng)) * 1000).rounded() / 1000
                        rows.append(Row(from: w, to: v, length: length, time: slower, wkt: reversed(wkt)))
                    }
                }
            }
        }
        rows.shuffle(using: &rng)
        return (lat, lon, rows)
    }

    /// Dijkstra from `source` over the rows (`exactDijkstra`); costs and hop counts.
    static func oracle(_ rows: [Row], nodes: Int, source: Int, time: Bool) -> (cost: [Double], hops: [Int]) {
        var adjacency = [[(to: Int, cost: Double)]](repeating: [], count: nodes)
        for r in rows { adjacency[r.from].append((r.to, time ? r.time : r.length)) }
        return exactDijkstra(adjacency: adjacency, from: source)
    }

    @Test func everyAlgorithmMatchesAnIndependentDijkstraBetweenJunctions() throws {
        let side = 32
        let (lat, lon, rows) = Self.city(side: side, seed: 16)
        let folder = TemporaryFolder()
        var nodes = "id,lat,lon\n"
        for i in lat.indices { nodes += "n\(i),\(String(format: "%.9f,%.9f", lat[i], lon[i]))\n" }
        var edges = "from,to,length_m,time_s,wkt\n"
        for r in rows { edges += "n\(r.from),n\(r.to),\(String(format: "%.3f,%.3f", r.length, r.time)),\(r.wkt.isEmpty ? "" : "\"\(r.wkt)\"")\n" }
        let (g, report) = try RoadNetwork.importCSV(nodes: folder.write("nodes.csv", nodes), edges: folder.write("edges.csv", edges))
        #expect(report.droppedNodes == 0, "the exported city is strongly connected")
        #expect(report.edges == rows.count)
        // Two-way rows became shared pieces: fewer pieces than rows.
        let twoWay = rows.count - Set(rows.map { [min($0.from, $0.to), max($0.from, $0.to)] }).count
        #expect(g.pieceCount == rows.count - twoWay, "\(g.pieceCount) pieces for \(rows.count) rows, \(twoWay) two-way pairs")

        var rng = SeededRandom(seed: 17)
        let pairs = (0..<1_000).map { _ in (Int.random(in: 0..<lat.count, using: &rng), Int.random(in: 0..<lat.count, using: &rng)) }
        let router = Router(network: g)
        var oracles: [Bool: [Int: (cost: [Double], hops: [Int])]] = [true: [:], false: [:]]
        var worst = 0.0
        for (s, t) in pairs where s != t {
            for metric in [Metric.time, .distance] {
                let time = metric == .time
                if oracles[time]![s] == nil { oracles[time]![s] = Self.oracle(rows, nodes: lat.count, source: s, time: time) }
                let truth = oracles[time]![s]!.cost[t], hops = Double(oracles[time]![s]!.hops[t])
                #expect(truth.isFinite)
                // Integer costs: each edge rounds to the nearest millisecond or decimetre, so
                // a route is off by at most half a unit per edge (the file has 3 decimals).
                let unit = time ? 0.001 : 0.1
                for algorithm in RoutingAlgorithm.allCases {
                    let route = try router.route(from: Coordinate(unchecked: lat[s], lon[s]), to: Coordinate(unchecked: lat[t], lon[t]),
                                                 metric: metric, algorithm: algorithm)
                    let got = Double(route.cost) * unit
                    worst = max(worst, abs(got - truth) / truth)
                    #expect(abs(got - truth) <= unit / 2 * hops + 1e-6,
                            "\(algorithm) \(metric) n\(s)→n\(t): \(got) vs oracle \(truth) (\(hops) edges)")
                }
            }
        }
        #expect(worst < 0.001, "largest relative difference \(worst)")
    }

    @Test func aGeometryMustMeetItsNodes() throws {
        let folder = TemporaryFolder()
        let nodes = folder.write("n.csv", "id,lat,lon\na,48,2\nb,48.001,2\n")
        func importing(_ wkt: String) throws(GraphError) -> RoadNetwork {
            let edges = folder.write("e.csv", "from,to,length_m,time_s,geometry\na,b,120,10,\"\(wkt)\"\nb,a,120,12,\"\(wkt.isEmpty ? "" : "")\"\n")
            return try RoadNetwork.importCSV(nodes: nodes, edges: edges).0
        }
        // Drawn the other way round: turned. Its end points are put on the nodes exactly.
        let g = try importing("LINESTRING (2.0000001 48.001, 2.0003 48.0005, 2 48)")
        #expect(g.pieceCount == 2 && g.pointLatE7.count == 5)
        #expect(throws: GraphError.self) { try importing("LINESTRING (3 48, 2 48.001)") }
        for (wkt, message) in [("POINT (2 48)", "e.csv: line 2: geometry: expected LINESTRING"),
                               ("LINESTRING (2 48)", "two distinct points"),
                               ("LINESTRING (2 48, 2 x)", "point 2 \"2 x\" is not \"lon lat\""),
                               ("LINESTRING (2 48, 2 148)", "point 2"),
                               ("LINESTRING 2 48, 2 48.001", "parentheses"),
                               ("LINESTRING (2.01 48, 2 48.001)", "starts 744 m from its from node")] {
            do { _ = try importing(wkt); Issue.record("\(wkt) was accepted") } catch {
                #expect(error.description.contains(message), "\(wkt): \(error.description)")
            }
        }
    }
}
