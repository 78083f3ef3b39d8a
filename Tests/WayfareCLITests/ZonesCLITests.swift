import Foundation
import Testing
import TestSupport

private let wards = "Data/monaco/wards.geojson"
private let communes = "Data/monaco/communes.geojson"

@Suite struct ZonesCLITests {
    let folder = TemporaryFolder()

    @Test func importThenLookupKeepsOrderAndFormat() throws {
        let out = folder.path("monaco.wfz")
        let imported = try runWayfare(["zones", "import", wards, "--service-area", communes, "--out", out])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("wrote \(out): 9 zones, 4 service areas"))
        let points = folder.write("in.csv", "lat,lon\n43.7393,7.4277\n43.7300,7.4400\n43.7277,7.4158\n")
        let lookup = try runWayfare(["zones", "lookup", out, "--points", points])
        #expect(lookup.status == 0)
        #expect(lookup.stdout == "lat,lon,zone_id,zone_name\n43.7393,7.4277,4,Monte-Carlo\n43.7300,7.4400,,\n43.7277,7.4158,9,Fontvieille\n")
        // GeoJSON works as ZONES too, and --out writes the same CSV to a file.
        let csv = folder.path("out.csv")
        let direct = try runWayfare(["zones", "lookup", wards, "--points", points, "--out", csv])
        #expect(direct.status == 0)
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == lookup.stdout)
    }

    @Test func checkExitsNonzeroOnlyWhenNotDisjoint() throws {
        let ok = try runWayfare(["zones", "check", wards])
        #expect(ok.status == 0)
        #expect(ok.stdout.contains("result: valid and disjoint"))
        let overlapping = folder.write("o.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"a"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]]]}},{"type":"Feature","properties":{"id":"b"},"geometry":{"type":"Polygon","coordinates":[[[0.005,0],[0.015,0],[0.015,0.01],[0.005,0.01],[0.005,0]]]}}]}"#)
        let bad = try runWayfare(["zones", "check", overlapping])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("overlap: zones a and b overlap by"))
        // Import refuses the same file and leaves no output behind.
        let out = folder.path("never.wfz")
        let refused = try runWayfare(["zones", "import", overlapping, "--out", out])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not disjoint"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let allowed = try runWayfare(["zones", "import", overlapping, "--allow-overlaps", "--out", out])
        #expect(allowed.status == 0)
    }

    @Test func badInputIsOneLineAndNonzero() throws {
        let cases: [([String], String)] = [
            (["zones", "lookup", wards, "--points", folder.write("bad1.csv", "lat,lon\n43.7,7.4\n95,7.4\n")], "line 3: latitude 95.0 is outside [-90, 90]"),
            (["zones", "lookup", wards, "--points", folder.write("bad2.csv", "latitude,longitude\n1,2\n")], "has no column \"lat\""),
            (["zones", "lookup", wards, "--points", folder.write("bad3.csv", "lat,lon\n43.7,east\n")], "line 2: lon \"east\" is not a finite number"),
            (["zones", "lookup", wards, "--points", folder.write("bad4.csv", bytes: Array("lat,lon\n43.7,7.4\n".utf8) + [0xFF, 0xFE, 0x0A])], "line 3: invalid UTF-8"),
            (["zones", "lookup", wards, "--points", folder.write("bad5.csv", "")], "the file is empty"),
            (["zones", "lookup", wards, "--points", "/nonexistent.csv"], "/nonexistent.csv: no such file"),
            (["zones", "check", folder.write("x.geojson", "{\"type\":\"FeatureCollection\"")], "not valid JSON: line 1"),
            (["zones", "check", wards, "--crs", "EPSG:0"], "EPSG:0"),
            (["zones", "lookup", folder.write("fake.wfz", "WFZONES\0garbage"), "--points", folder.write("p.csv", "lat,lon\n")], "fake.wfz"),
            (["zones", "locate", wards, "91,7"], "latitude 91.0 is outside"),
        ]
        for (args, expected) in cases {
            let r = try runWayfare(args)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(expected), "\(args): \(r.stderr)")
            #expect(r.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "\(args): one line: \(r.stderr)")
        }
    }

    @Test func failedWriteLeavesTheOldFileIntact() throws {
        // 2,000 lookups make about 60 kB of CSV; a 16-block (8 kB) file-size limit fails
        // the write itself partway (EFBIG), after the input was read and every point looked up.
        let points = folder.path("p.csv")
        #expect(try runWayfare(["zones", "sample", wards, "--count", "2000", "--seed", "4", "--out", points]).status == 0)
        let out = folder.write("keep.csv", "precious\n")
        let r = try runWayfare(["zones", "lookup", wards, "--points", points, "--out", out], fileSizeLimitBlocks: 16)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("keep.csv: cannot write: writing: File too large"), "\(r.stderr)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "precious\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
        // Without the limit the same command replaces the file whole.
        #expect(try runWayfare(["zones", "lookup", wards, "--points", points, "--out", out]).status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count == 2001)
    }

    @Test func locatePrintsZoneServiceAreaAndNeighbours() throws {
        let r = try runWayfare(["zones", "locate", wards, "43.7393,7.4277", "--service-area", communes])
        #expect(r.status == 0)
        #expect(r.stdout.contains(#""zone":{"id":"4","name":"Monte-Carlo"}"#))
        #expect(r.stdout.contains(#""service_area":{"id":"4","name":"Monaco"}"#))
        #expect(r.stdout.contains(#"{"id":"2","name":"Larvotto"}"#))
    }

    @Test func benchPrintsOneJSONLineWithNoMismatches() throws {
        let points = folder.path("points.csv")
        let sample = try runWayfare(["zones", "sample", wards, "--count", "2000", "--seed", "9", "--out", points])
        #expect(sample.status == 0)
        let r = try runWayfare(["bench", "zones", wards, "--points", points, "--repeats", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["points"] as? Int == 2000)
        #expect(json["mismatches"] as? Int == 0)
        #expect((json["engine_points_per_s"] as? Int ?? 0) > 0)
        #expect((json["baseline_points_per_s"] as? Int ?? 0) > 0)
    }
}

@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
struct NYCCLITests {
    @Test func importsTheStatePlaneFileAndFindsTimesSquare() throws {
        let folder = TemporaryFolder()
        let out = folder.path("nyc.wfz")
        let r = try runWayfare(["zones", "import", SharedData.path("nyc/taxi-zones.epsg2263.geojson"),
                                "--id-field", "LocationID", "--name-field", "zone", "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("merged: 3 features share id 103"))
        let located = try runWayfare(["zones", "locate", out, "40.7580,-73.9855"])
        #expect(located.stdout.contains(#""zone":{"id":"230","name":"Times Sq/Theatre District"}"#))
    }
}
