import Foundation
import Testing
import Geodesy
import TestSupport

/// The routing commands on the default city's extract (Data/monaco, part of the repository).
@Suite(.serialized) struct RouteCLITests {
    let folder = TemporaryFolder()

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func importMonaco() throws -> String {
        let graph = folder.path("monaco.wfg")
        let r = try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--out", graph])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try json(r.stdout)
        for key in ["nodes", "edges", "dropped_components", "seconds", "megabytes"] { #expect(summary[key] != nil, "\(key)") }
        #expect((summary["nodes"] as? Int ?? 0) > 1000)
        #expect(r.stderr.contains("100%"))  // the progress bar
        // Each metric's own share of contraction, not only their mean.
        #expect(r.stderr.contains("time 100 %") && r.stderr.contains("distance 100 %"), "\(r.stderr)")
        // Each phase timed, in the order it ran, and the shortcuts of each metric.
        let phases = try #require(summary["phases"] as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(phases == ["ways", "nodes", "junctions and pieces", "layout", "contraction (time)", "contraction (distance)",
                           "landmarks (distance)", "snapping index", "writing"])
        for name in phases { #expect(r.stderr.contains("\(name): "), "\(name) on stderr") }
        let time = summary["shortcuts_time"] as? Int ?? 0, distance = summary["shortcuts_distance"] as? Int ?? 0
        #expect(time > 0 && distance > 0 && time + distance == summary["shortcuts"] as? Int)
        #expect(r.stderr.contains("shortcuts (time): \(time)") && r.stderr.contains("shortcuts (distance): \(distance)"))
        return graph
    }

    /// `--turn-costs`: more nodes (one per junction and way in), the same lengths, longer
    /// times; refused for CSV input, which has no profile to price turns by.
    @Test func turnCostsArePricedOnRequest() throws {
        let plain = try importMonaco(), priced = folder.path("priced.wfg")
        let r = try runWayfare(["graph", "import", "Data/monaco/monaco.osm.pbf", "--turn-costs", "--out", priced])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try json(r.stdout)
        #expect((summary["nodes"] as? Int ?? 0) > 3000)
        let casino = "43.7393,7.4277", palace = "43.7314,7.4197"
        let before = try json(try runWayfare(["route", plain, "--from", casino, "--to", palace, "--metric", "distance"]).stdout)
        let after = try json(try runWayfare(["route", priced, "--from", casino, "--to", palace, "--metric", "distance"]).stdout)
        #expect(before["distance_m"] as? Double == after["distance_m"] as? Double)
        let fastest = try json(try runWayfare(["route", plain, "--from", casino, "--to", palace]).stdout)
        let fastestPriced = try json(try runWayfare(["route", priced, "--from", casino, "--to", palace]).stdout)
        #expect((fastestPriced["duration_s"] as! Double) > (fastest["duration_s"] as! Double))
        folder.write("n.csv", "id,lat,lon\n1,43.7,7.4\n2,43.71,7.4\n")
        folder.write("e.csv", "from,to,length_m,time_s\n1,2,1000,60\n2,1,1000,60\n")
        let csv = try runWayfare(["graph", "import", "--nodes", folder.path("n.csv"), "--edges", folder.path("e.csv"), "--turn-costs", "--out", folder.path("c.wfg")])
        #expect(csv.status != 0 && csv.stderr.contains("--turn-costs"), "\(csv.stderr)")
    }

    @Test func importRouteEtaAndBench() throws {
        let graph = try importMonaco()
        let casino = "43.7393,7.4277", palace = "43.7314,7.4197"
        let r = try runWayfare(["route", graph, "--from", casino, "--to", palace])
        #expect(r.status == 0, "\(r.stderr)")
        let route = try json(r.stdout)
        for key in ["distance_m", "duration_s", "from_snap_m", "to_snap_m", "geometry", "streets"] { #expect(route[key] != nil, "\(key)") }
        let geometry = try #require(route["geometry"] as? [[Double]])
        #expect(geometry.count > 10 && geometry.allSatisfy { $0.count == 2 && (7.3...7.5).contains($0[0]) && (43.7...43.8).contains($0[1]) })
        let line = geometry.map { Coordinate(unchecked: $0[1], $0[0]) }
        let drawn = zip(line, line.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
        #expect(abs(drawn - (route["distance_m"] as! Double)) < 5)
        #expect(Polyline.decode(route["polyline"] as! String)?.count == geometry.count)

        let shortest = try json(try runWayfare(["route", graph, "--from", casino, "--to", palace, "--metric", "distance"]).stdout)
        #expect((shortest["distance_m"] as! Double) <= (route["distance_m"] as! Double))
        #expect((shortest["duration_s"] as! Double) >= (route["duration_s"] as! Double))

        let feature = try json(try runWayfare(["route", graph, "--from", casino, "--to", palace, "--geojson"]).stdout)
        #expect(feature["type"] as? String == "Feature")
        #expect((feature["geometry"] as? [String: Any])?["type"] as? String == "LineString")
        #expect((feature["properties"] as? [String: Any])?["duration_s"] as? Double == route["duration_s"] as? Double)

        // ETAs: fastest first, each equal to the one-to-one route's duration.
        let eta = try runWayfare(["eta", graph, "--to", palace, "--cabs", "Data/monaco/cabs.csv"])
        #expect(eta.status == 0, "\(eta.stderr)")
        let rows = eta.stdout.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(rows.first == ["id", "eta_s", "distance_m"])
        let seconds = rows.dropFirst().map { Double($0[1])! }
        #expect(seconds.count == 8 && seconds == seconds.sorted())
        let cabs = try String(contentsOfFile: SharedData.projectRoot.appendingPathComponent("Data/monaco/cabs.csv").path, encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        let firstCab = try #require(cabs.first { $0[0] == rows[1][0] })
        let one = try json(try runWayfare(["route", graph, "--from", "\(firstCab[1]),\(firstCab[2])", "--to", palace]).stdout)
        #expect(abs((one["duration_s"] as! Double) - seconds[0]) < 0.06)
        let limited = try runWayfare(["eta", graph, "--to", palace, "--cabs", "Data/monaco/cabs.csv", "--limit-s", "120"])
        #expect(limited.stdout.split(separator: "\n").dropFirst().allSatisfy { Double($0.split(separator: ",")[1])! <= 120 })

        // bench route: one JSON line, and per-pair results whose costs match plain Dijkstra.
        let od = folder.path("od.csv")
        #expect(try runWayfare(["graph", "od", graph, "--pairs", "200", "--seed", "3", "--out", od]).status == 0)
        var durations: [String: [Substring]] = [:]
        for algorithm in ["hierarchy", "dijkstra"] {
            let out = folder.path("\(algorithm).csv")
            let b = try runWayfare(["bench", "route", graph, "--od", od, "--algorithm", algorithm, "--out", out])
            #expect(b.status == 0, "\(b.stderr)")
            let summary = try json(b.stdout)
            #expect(summary["queries"] as? Int == 200 && summary["no_route"] as? Int == 0)
            #expect((summary["p50_us"] as? Double ?? 0) > 0 && (summary["p99_us"] as? Double ?? 0) >= (summary["p50_us"] as? Double ?? 0))
            let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
            #expect(lines.first == "i,distance_m,duration_s,settled" && lines.count == 201)
            durations[algorithm] = lines.dropFirst().map { $0.split(separator: ",")[2] }
        }
        #expect(durations["hierarchy"] == durations["dijkstra"])
    }

    @Test func badInputIsAOneLineErrorAndANonzeroExit() throws {
        let graph = try importMonaco()
        func fails(_ args: [String], _ message: String) throws {
            let r = try runWayfare(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count == 1)
        }
        try fails(["route", graph, "--from", "43.70,7.47", "--to", "43.7314,7.4197"], "no road within 1000 m of 43.7,7.47")
        try fails(["route", graph, "--from", "95,7.4", "--to", "43.7314,7.4197"], "--from \"95,7.4\"")
        try fails(["route", folder.write("fake.wfg", "{}"), "--from", "43.73,7.42", "--to", "43.73,7.42"], "not a Wayfare graph file")
        try fails(["graph", "import", folder.write("page.osm", "<html></html>"), "--out", folder.path("x.wfg")], "page.osm")
        try fails(["graph", "import", "--nodes", folder.write("n.csv", "id,lat,lon\na,1,1\n"), "--edges",
                   folder.write("e.csv", "from,to,length_m,time_s\na,b,1,1\n"), "--out", folder.path("y.wfg")], "e.csv: line 2: to is an unknown node \"b\"")
        #expect(!FileManager.default.fileExists(atPath: folder.path("x.wfg")) && !FileManager.default.fileExists(atPath: folder.path("y.wfg")))
        try fails(["bench", "route", graph, "--od", folder.write("od.csv", "o_lat,o_lon,d_lat\n1,2,3\n")], "no column \"d_lon\"")
        try fails(["eta", graph, "--to", "43.7314,7.4197", "--cabs", folder.write("none.csv", "id,lat,lon\n")], "no cabs")
        try fails(["eta", graph, "--to", "43.7314,7.4197", "--cabs", folder.write("c.csv", "id,lat,lon\na,43.73,7.42\na,43.73,7.42\n")], "duplicate id \"a\"")
    }
}
