import Foundation
import Testing
import Geodesy
import GeoJSON
import TestSupport

@Suite struct FleetCLITests {
    let folder = TemporaryFolder()

    /// `bench knn --answers` against a brute-force haversine ranking (a different formula
    /// from the tree's chords), after the moves: every rank's distance matches.
    @Test func answersMatchABruteForceRankingAfterMoves() throws {
        let dir = folder.path("city")
        let sample = try runWayfare(["fleet", "sample", "--cabs", "1500", "--queries", "120", "--seed", "7", "--out-dir", dir])
        #expect(sample.status == 0, "\(sample.stderr)")
        let answers = folder.path("answers.csv")
        let r = try runWayfare(["bench", "knn", "--cabs", dir + "/cabs.csv", "--queries", dir + "/queries.csv",
                                "--moves", dir + "/moves.csv", "--k", "8", "--answers", answers, "--repeats", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        for key in ["cabs", "queries", "build_ms", "knn1_ns", "knnk_ns", "radius_ns", "updates_per_s", "knnk_ns_after_moves",
                    "baseline_knn1_ns", "baseline_knnk_ns", "baseline_radius_ns"] {
            #expect(json[key] != nil, "\(key)")
        }
        func rows(_ path: String) throws -> [[String]] {
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
        }
        let moved = Dictionary(uniqueKeysWithValues: try rows(dir + "/moves.csv").map { ($0[0], Coordinate(unchecked: Double($0[1])!, Double($0[2])!)) })
        let queries = try rows(dir + "/queries.csv").map { Coordinate(unchecked: Double($0[0])!, Double($0[1])!) }
        var got: [Int: [(rank: Int, id: String, d: Double)]] = [:]
        for row in try rows(answers) { got[Int(row[0])!, default: []].append((Int(row[1])!, row[2], Double(row[3])!)) }
        #expect(got.count == queries.count)
        for (qi, q) in queries.enumerated() {
            let truth = moved.values.map { q.distance(to: $0) }.sorted().prefix(8)
            let mine = (got[qi] ?? []).sorted { $0.rank < $1.rank }
            #expect(mine.count == 8)
            for (m, t) in zip(mine, truth) {
                #expect(abs(m.d - t) < 1e-6)
                #expect(abs(q.distance(to: moved[m.id]!) - m.d) < 1e-6)
            }
        }
    }

    @Test func badFleetInputIsOneLineAndNonzero() throws {
        let cabs = folder.write("cabs.csv", "id,lat,lon\na,40.7,-73.9\nb,40.8,-73.9\n")
        let queries = folder.write("q.csv", "lat,lon\n40.7,-73.95\n")
        let cases: [([String], String)] = [
            (["bench", "knn", "--cabs", folder.write("dup.csv", "id,lat,lon\na,40.7,-73.9\na,40.8,-73.9\n"), "--queries", queries], "line 3: duplicate id \"a\""),
            (["bench", "knn", "--cabs", folder.write("range.csv", "id,lat,lon\na,40.7,-193.9\n"), "--queries", queries], "line 2: longitude -193.9 is outside"),
            (["bench", "knn", "--cabs", cabs, "--queries", queries, "--moves", folder.write("m.csv", "id,lat,lon\nzz,40.7,-73.9\n")], "unknown cab id \"zz\""),
            (["bench", "knn", "--cabs", cabs, "--queries", folder.write("empty.csv", "lat,lon\n")], "no queries"),
            (["bench", "knn", "--cabs", cabs, "--queries", queries, "--k", "0"], "--k must be between"),
            (["bench", "knn", "--cabs", cabs, "--queries", queries, "--radius-m=-5"], "--radius-m must be"),
        ]
        for (args, expected) in cases {
            let r = try runWayfare(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
            #expect(r.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(args)")
        }
    }

    /// `bench fleet`: its JSON contract, data never older than the publish interval plus a
    /// scheduling margin, and one-line errors.
    @Test func benchFleetPrintsItsContractAndRefusesBadInput() throws {
        let dir = folder.path("fleetbench")
        let sample = try runWayfare(["fleet", "sample", "--cabs", "2000", "--queries", "500", "--seed", "3", "--out-dir", dir])
        #expect(sample.status == 0, "\(sample.stderr)")
        let r = try runWayfare(["bench", "fleet", "--cabs", dir + "/cabs.csv", "--queries", dir + "/queries.csv",
                                "--moves", dir + "/moves.csv", "--seconds", "0.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["cabs"] as? Int == 2000)
        for key in ["reports_per_s", "reader_queries", "reader_p50_ns", "reader_p99_ns"] {
            #expect((json[key] as? Double ?? 0) > 0, "\(key): \(r.stdout)")
        }
        // Debug builds on a loaded machine are slow, so the bound is loose; the benchmark
        // figures in the README come from release builds.
        #expect((json["max_staleness_ms"] as? Double ?? .infinity) < 50 + 250, "\(r.stdout)")
        let cabs = dir + "/cabs.csv", queries = dir + "/queries.csv"
        for (args, expected) in [
            (["--moves", folder.write("ghost.csv", "id,lat,lon\nghost,40.7,-73.9\n")], "cab \"ghost\" is not in"),
            (["--moves", dir + "/moves.csv", "--seconds", "0"], "--seconds must be"),
            (["--moves", dir + "/moves.csv", "--k", "0"], "--k must be between"),
        ] as [([String], String)] {
            let bad = try runWayfare(["bench", "fleet", "--cabs", cabs, "--queries", queries] + args)
            #expect(bad.status != 0 && bad.stderr.contains(expected), "\(args): \(bad.stderr)")
            #expect(bad.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(args)")
        }
    }
}

/// `wayfare simulate`: the default city runs out of the box, prints its summary as the last
/// line, writes its four files, and repeats itself byte for byte.
@Suite struct SimulateCLITests {
    @Test func theDefaultCityRunsAndRepeats() throws {
        let folder = TemporaryFolder()
        var outputs: [String] = []
        for run in ["a", "b"] {
            let r = try runWayfare(["simulate", "--cabs", "40", "--hours", "0.2", "--requests", "150", "--out-dir", folder.path(run)])
            #expect(r.status == 0, "\(r.stderr)")
            let last = try #require(r.stdout.split(separator: "\n").last)
            let summary = try JSONParser.parse(Array(last.utf8))
            for key in ["requests", "served", "not_served", "pickup_eta_s", "offers_per_request", "decision_us"] { #expect(summary[key] != nil, "\(key)") }
            #expect(summary["pickup_eta_s"]?["p95"]?.numberValue != nil && summary["decision_us"]?["p99"]?.numberValue != nil)
            outputs.append(String(last))
        }
        for name in ["trips.geojson", "decisions.jsonl", "drivers.csv"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder.path("a/\(name)")))
            let b = try Data(contentsOf: URL(fileURLWithPath: folder.path("b/\(name)")))
            #expect(a == b && a.count > 100, "\(name)")
        }
        let trips = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: folder.path("a/trips.geojson")))))
        #expect((trips["features"]?.arrayValue?.count ?? 0) > 100)
        func stable(_ s: String) -> String {
            s.replacingOccurrences(of: #""decision_us":\{[^}]*\}"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: #""wall_seconds":[0-9.e-]+"#, with: "", options: .regularExpression)
        }
        #expect(stable(outputs[0]) == stable(outputs[1]))
    }

    @Test func badArgumentsAreOneLineErrors() throws {
        for (args, message) in [(["--cabs", "0"], "--cabs must be between"), (["--hours", "nan"], "--hours must be"),
                                (["--accept", "0.9", "--decline", "0.5"], "add up to at most 1"),
                                (["--graph", "x.wfg"], "--graph and --zones go together")] {
            let r = try runWayfare(["simulate", "--out-dir", "/tmp/never"] + args)
            #expect(r.status != 0 && r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }

    @Test func throughTheServicesOnSQLite() throws {
        let folder = TemporaryFolder()
        let r = try runWayfare(["simulate", "--services", "--cabs", "12", "--hours", "0.5", "--requests", "60", "--out-dir", folder.path("s")])
        #expect(r.status == 0, "\(r.stderr)")
        let last = try #require(r.stdout.split(separator: "\n").last)
        let summary = try JSONParser.parse(Array(last.utf8))
        #expect(summary["store"]?.stringValue == "sqlite" && summary["ledger_balanced"] == .bool(true))
        #expect((summary["completed"]?.numberValue ?? 0) > 0 && summary["revenue"]?.numberValue == summary["commission"]?.numberValue)
        #expect(summary["unexpected_errors"] == .object([]), "\(last)")
        #expect(FileManager.default.fileExists(atPath: folder.path("s/services.sqlite")))
        let onDisk = try String(contentsOfFile: folder.path("s/summary.json"), encoding: .utf8)
        #expect(onDisk == last + "\n")
        // The store must be new: a second run into the same folder is refused, untouched.
        let again = try runWayfare(["simulate", "--services", "--cabs", "12", "--hours", "0.5", "--out-dir", folder.path("s")])
        #expect(again.status != 0 && again.stderr.contains("services.sqlite: exists"), "\(again.stderr)")
        for (args, message) in [(["--services", "--passengers", "0"], "--passengers must be between"),
                                (["--services", "--store", "mysql://x"], "--store must be sqlite:PATH or postgres://"),
                                (["--services", "--fares", "/nonexistent/fares.json"], "/nonexistent/fares.json"),
                                (["--store", "sqlite:/tmp/x.sqlite"], "go with --services")] {
            let r = try runWayfare(["simulate", "--out-dir", folder.path("bad")] + args)
            #expect(r.status != 0 && r.stderr.contains(message), "\(args): \(r.stderr)")
        }
    }
}
