import Foundation
import Geodesy
import Testing
import TestSupport

/// `wayfare match` on Monaco's graph: a trace driven along a route it printed itself comes
/// back as that route; broken input is one line naming the row.
@Suite(.serialized) struct MatchCLITests {
    let folder = TemporaryFolder()

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func aRouteDrivenIsMatchedBack() throws {
        let graph = folder.path("monaco.wfg")
        #expect(try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--out", graph]).status == 0)
        let route = try json(try runWayfare(["route", graph, "--from", "43.7393,7.4277", "--to", "43.7314,7.4197"]).stdout)
        let line = try #require(route["geometry"] as? [[Double]]).map { Coordinate(unchecked: $0[1], $0[0]) }
        let metres = try #require(route["distance_m"] as? Double), seconds = try #require(route["duration_s"] as? Double)
        // A report every 40 m of the route, with the time an even speed gives, 8 m off to the north-east.
        var rows = ["lat,lon,time"], along = 0.0, next = 0.0
        for (a, b) in zip(line, line.dropFirst()) {
            let d = a.distance(to: b)
            while next <= along + d {
                let t = d > 0 ? (next - along) / d : 0
                rows.append("\(a.latitude + t * (b.latitude - a.latitude) + 0.00005),\(a.longitude + t * (b.longitude - a.longitude) + 0.00005),\(next / metres * seconds)")
                next += 40
            }
            along += d
        }
        let trace = folder.path("trace.csv")
        try rows.joined(separator: "\n").write(toFile: trace, atomically: true, encoding: .utf8)
        let r = try runWayfare(["match", graph, "--trace", trace, "--sigma-m", "10"])
        #expect(r.status == 0, "\(r.stderr)")
        let match = try json(r.stdout)
        let distance = try #require(match["distance_m"] as? Double)
        #expect(abs(distance - metres) < 0.05 * metres, "matched \(distance) m of a \(metres) m route")
        #expect((match["geometry"] as? [String: Any])?["type"] as? String == "LineString")
        #expect((match["breaks"] as? [Int]) == [])
        let points = try #require(match["points"] as? [Any])
        #expect(points.count == rows.count - 1)
        for case let p as [String: Any] in points {
            #expect((0...1).contains(p["confidence"] as? Double ?? -1))
            #expect((p["distance_m"] as? Double ?? 99) < 30)
            #expect(p["edge"] as? Int != nil)
        }

        for (text, message) in [("lat,lon\n", "no reports"), ("lat,lon,time\n43.73,7.42,10\n43.73,7.42,5\n", "line 3: time is earlier"),
                                ("lat,lon\n91,7.42\n", "line 2"), ("lon\n7.42\n", "lat"), ("lat,lon,time\n43.73,7.42,-1\n", "line 2: time")] {
            let bad = folder.path("bad.csv")
            try text.write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try runWayfare(["match", graph, "--trace", bad])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        }
        #expect(try runWayfare(["match", graph, "--trace", trace, "--sigma-m", "nan"]).status != 0)

        // `wayfare follow`: the same drive along the route it was shown never leaves it and
        // arrives; shown the way to Fontvieille instead, it leaves it, and is re-routed.
        let kept = try runWayfare(["follow", graph, "--from", "43.7393,7.4277", "--to", "43.7314,7.4197", "--trace", trace, "--sigma-m", "10"])
        #expect(kept.status == 0, "\(kept.stderr)")
        let onRoute = try json(kept.stdout)
        #expect((onRoute["deviations"] as? [Any])?.isEmpty == true && onRoute["arrived_at_report"] as? Int != nil, "\(kept.stdout.prefix(300))")
        let left = try json(try runWayfare(["follow", graph, "--from", "43.7393,7.4277", "--to", "43.7275,7.4155", "--trace", trace]).stdout)
        let deviations = try #require(left["deviations"] as? [[String: Any]])
        #expect(!deviations.isEmpty && deviations.allSatisfy { ($0["route"] as? [String: Any])?["distance_m"] as? Double != nil })
        let refused = try runWayfare(["follow", graph, "--from", "43.7393,7.4277", "--to", "91,7", "--trace", trace])
        #expect(refused.status != 0 && refused.stderr.contains("to"), "\(refused.stderr)")
    }

    /// `bench match --trips-on`: the drives come from the other graph, so the same drives are
    /// matched on a graph with turn costs and one without (the same points in both runs,
    /// which drives drawn on each graph would not give); a file that is not a graph is one
    /// line naming it.
    @Test func benchMatchDrivesOnAnotherGraph() throws {
        let plain = folder.path("plain.wfg"), priced = folder.path("priced.wfg")
        #expect(try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--out", plain]).status == 0)
        #expect(try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--turn-costs", "--out", priced]).status == 0)
        func score(_ graph: String, _ extra: [String]) throws -> [String: Any] {
            let r = try runWayfare(["bench", "match", graph, "--trips", "4", "--sigmas", "15", "--intervals", "5", "--long-runs", "1"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try json(String(try #require(r.stdout.split(separator: "\n").first)))
        }
        let own = try score(plain, []), onPlain = try score(plain, ["--trips-on", priced]), onPriced = try score(priced, [])
        #expect(onPlain["traces"] as? Int == 4 && onPriced["traces"] as? Int == 4)
        #expect(onPlain["points"] as? Int == onPriced["points"] as? Int, "the priced graph's drives, matched on each graph")
        #expect(own["points"] as? Int != onPriced["points"] as? Int, "each graph draws drives of its own")
        for m in [onPlain, onPriced] { #expect((m["mismatch_median"] as? Double ?? 1) < 0.05, "\(m)") }
        let refused = try runWayfare(["bench", "match", plain, "--trips-on", folder.path("missing.wfg")])
        #expect(refused.status != 0 && refused.stderr.contains("missing.wfg"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }
}
