import Foundation
import Testing
import TestSupport

/// The geocoding commands on the default city's extract (Data/monaco, in the repository).
@Suite struct GeocodeCLITests {
    let folder = TemporaryFolder()

    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func buildGeocodeReverseAndBench() throws {
        let table = folder.path("monaco.wfgc")
        let gazetteer = folder.write("g.csv", "lat,lon,name,admin1,admin2,cc\n43.7384,7.4246,Monaco,Monaco,,MC\n43.7311,7.4197,Monaco-Ville,Monaco,,MC\n")
        let b = try runWayfare(["geocoder", "build", "--osm", "Data/monaco/monaco.osm.pbf", "--gazetteer", gazetteer, "--out", table])
        #expect(b.status == 0, "\(b.stderr)")
        let summary = try #require(try json(b.stdout) as? [String: Any])
        #expect((summary["entries"] as? Int ?? 0) > 500 && (summary["addresses"] as? Int ?? 0) > 50)

        let g = try runWayfare(["geocode", table, "Bd des Moulins", "--limit", "3"])
        #expect(g.status == 0, "\(g.stderr)")
        let answers = try #require(try json(g.stdout) as? [[String: Any]])
        #expect(answers.first?["label"] as? String == "Boulevard des Moulins" && answers.first?["kind"] as? String == "street")
        for a in answers { for key in ["label", "lat", "lon", "kind", "score"] { #expect(a[key] != nil, "\(key)") } }

        let r = try runWayfare(["reverse", table, "43.7393,7.4277"])
        // Coordinates in outputs carry at most 7 decimals (it printed 7.425472399999999).
        let long = try NSRegularExpression(pattern: #""lo?a?t?n?":-?\d+\.\d{8,}"#)
        for text in [g.stdout, r.stdout] {
            #expect(long.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) == nil, "\(text)")
        }
        let reverse = try #require(try json(r.stdout) as? [String: Any])
        for key in ["label", "lat", "lon", "kind", "distance_m"] { #expect(reverse[key] != nil, "\(key)") }

        let queries = folder.write("q.csv", "query,near_lat,near_lon\nBoulevard des Moulins,,\nmonaco,43.73,7.42\nzzzzqqq,,\n")
        let bg = try runWayfare(["bench", "geocode", table, "--queries", queries, "--out", folder.path("r.csv")])
        let bgj = try #require(try json(bg.stdout) as? [String: Any])
        #expect(bgj["queries"] as? Int == 3 && bgj["not_found"] as? Int == 1 && bgj["p50_us"] != nil && bgj["p99_us"] != nil)
        let rows = try String(contentsOfFile: folder.path("r.csv"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.first == "i,label,lat,lon,kind,score" && rows[3] == "2,,,,,")

        // Restricted to Monaco's communes, "Avenue de Verdun" is Monaco's own, not Menton's
        // or Nice's; the sampled input is seeded, so two runs write the same files.
        let wards = try runWayfare(["zones", "import", "Data/monaco/wards.geojson", "--service-area", "Data/monaco/communes.geojson",
                                    "--out", folder.path("m.wfz")])
        #expect(wards.status == 0, "\(wards.stderr)")
        let everywhere = try #require(try json(try runWayfare(["geocode", table, "Avenue de Verdun"]).stdout) as? [[String: Any]])
        let inMonaco = try #require(try json(try runWayfare(["geocode", table, "Avenue de Verdun", "--service-areas", folder.path("m.wfz")]).stdout)
                                    as? [[String: Any]])
        #expect(everywhere.count > 1 && inMonaco.count == 1 && abs((inMonaco[0]["lat"] as? Double ?? 0) - 43.7459) < 0.001)
        for run in ["a", "b"] {
            let s = try runWayfare(["geocoder", "sample", table, "--queries", "50", "--points", "40", "--out-dir", folder.path(run)])
            #expect(s.status == 0, "\(s.stderr)")
        }
        for file in ["queries.csv", "points.csv"] {
            let a = try String(contentsOfFile: folder.path("a/\(file)"), encoding: .utf8)
            #expect(a == (try String(contentsOfFile: folder.path("b/\(file)"), encoding: .utf8)))
            #expect(a.split(separator: "\n").count == (file == "points.csv" ? 41 : 51))
        }
        let sampled = try runWayfare(["bench", "geocode", table, "--queries", folder.path("a/queries.csv")])
        #expect((try json(sampled.stdout) as? [String: Any])?["queries"] as? Int == 50, "\(sampled.stderr)")

        let points = folder.write("p.csv", "lat,lon\n43.7393,7.4277\n60.17,24.94\n")
        let br = try runWayfare(["bench", "reverse", table, "--points", points])
        let brj = try #require(try json(br.stdout) as? [String: Any])
        #expect(brj["queries"] as? Int == 2 && brj["p50_ns"] != nil && brj["p99_ns"] != nil)
    }

    @Test func badInputIsAOneLineErrorAndANonzeroExit() throws {
        let table = folder.path("g.wfgc")
        let bad = folder.write("bad.csv", "lat,lon,name,admin1,admin2,cc\n1,2,A,,,X\nnorth,2,B,,,X\n")
        let b = try runWayfare(["geocoder", "build", "--gazetteer", bad, "--out", table])
        #expect(b.status != 0 && b.stderr.contains("bad.csv: line 3: lat \"north\" is not a finite number"))
        #expect(!FileManager.default.fileExists(atPath: table))
        let empty = try runWayfare(["geocoder", "build", "--gazetteer", folder.write("e.csv", "lat,lon,name,admin1,admin2,cc\n"), "--out", table])
        #expect(empty.status != 0 && empty.stderr.contains("nothing to look up"))
        let ok = folder.write("ok.csv", "lat,lon,name,admin1,admin2,cc\n1,2,Alpha,,,X\n")
        #expect(try runWayfare(["geocoder", "build", "--gazetteer", ok, "--out", table]).status == 0)
        for (args, message) in [(["geocode", table, ""], "empty query"),
                                (["geocode", table, String(repeating: "x", count: 10_000)], "query too long"),
                                (["geocode", table, "a\u{7}b"], "control characters"),
                                (["geocode", folder.write("fake.wfgc", "nope"), "x"], "not a Wayfare geocoder table"),
                                (["reverse", table, "91,0"], "--point \"91,0\""),
                                (["geocoder", "sample", table, "--queries", "0", "--out-dir", folder.path("s")], "between 1 and"),
                                (["geocoder", "sample", folder.path("missing.wfgc"), "--out-dir", folder.path("s")], "missing.wfgc: no such file"),
                                (["geocode", table, "alpha", "--service-areas", folder.write("z.geojson", "{\"type\":")], "z.geojson")] {
            let r = try runWayfare(args)
            #expect(r.status != 0 && r.stderr.contains(message), "\(args.prefix(2)): \(r.stderr)")
        }
    }
}
