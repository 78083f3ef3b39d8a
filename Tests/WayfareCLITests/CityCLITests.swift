import Foundation
import GeoJSON
import TestSupport
import Testing

/// `wayfare city build` and `city check`: Monaco from `Data/` in one step; bad sources and
/// damaged folders are one-line errors naming the file, and a failed build leaves nothing.
@Suite struct CityCLITests {
    static let sources = ["--osm", "Data/monaco/monaco.osm.pbf", "--zones", "Data/monaco/wards.geojson",
                          "--service-area", "Data/monaco/communes.geojson", "--fares", "Data/monaco/fares.json"]

    @Test func monacoBuildsLoadsAndIsRefusedWhenDamaged() throws {
        let folder = TemporaryFolder()
        let city = folder.path("monaco")
        let r = try runWayfare(["city", "build"] + Self.sources + ["--tolls", "Data/monaco/tolls.json", "--name", "Monaco", "--out", city])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try JSONParser.parse(Array(try #require(r.stdout.split(separator: "\n").last).utf8))
        #expect(summary["zones"]?.numberValue == 9 && summary["service_areas"]?.numberValue == 4 && summary["tolls"]?.numberValue == 1)
        #expect((summary["places"]?.numberValue ?? 0) > 500 && (summary["road_nodes"]?.numberValue ?? 0) > 1000)
        for stage in ["1/5 zones", "2/5 roads", "3/5 places", "4/5 fares", "5/5 settings"] { #expect(r.stderr.contains(stage), "progress: \(stage)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: city).sorted()
        #expect(names == ["city.json", "fares.json", "places.wfgc", "roads.wfg", "tolls.json", "zones.wfz"])
        let check = try runWayfare(["city", "check", city])
        #expect(check.status == 0 && check.stdout.contains("\"city\":\"Monaco\"") && check.stdout.contains("\"geocoder\":true"), "\(check.stderr)")
        // The folder exists now: a second build is refused and changes nothing.
        let again = try runWayfare(["city", "build"] + Self.sources + ["--out", city])
        #expect(again.status != 0 && again.stderr.contains("exists"), "\(again.stderr)")

        // Damage, one file at a time, in copies of the good folder.
        func damaged(_ name: String, _ change: (String) throws -> Void) throws -> CommandResult {
            let copy = folder.path("damaged-\(UUID().uuidString.prefix(6))")
            try FileManager.default.copyItem(atPath: city, toPath: copy)
            try change((copy as NSString).appendingPathComponent(name))
            return try runWayfare(["city", "check", copy])
        }
        let cases: [(String, (String) throws -> Void, String)] = [
            ("zones.wfz", { var b = try Data(contentsOf: URL(fileURLWithPath: $0)); b[b.count / 2] ^= 0xFF; try b.write(to: URL(fileURLWithPath: $0)) }, "zones.wfz:"),
            ("roads.wfg", { try FileManager.default.removeItem(atPath: $0) }, "roads.wfg:"),
            ("places.wfgc", { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: $0)) }, "places.wfgc:"),
            ("fares.json", { try #"{"currency":"INR","rates":[{"service_area":"Atlantis","cab_type":"Sedan","base":1,"per_km":1}]}"#.write(toFile: $0, atomically: true, encoding: .utf8) },
             "service area \"Atlantis\" is not in zones.wfz"),
            ("tolls.json", { try #"{"currency":"EUR","tolls":[]}"#.write(toFile: $0, atomically: true, encoding: .utf8) }, "differs from the fare chart's INR"),
            ("city.json", { try #"{"name":"","booking_rules":"000"}"#.write(toFile: $0, atomically: true, encoding: .utf8) }, "name: a name of 1 to 100"),
            ("city.json", { try #"{"name":"M","booking_rules":"999"}"#.write(toFile: $0, atomically: true, encoding: .utf8) }, "booking_rules: must be"),
            ("city.json", { try #"{"name":"M","minimum_lead_minutes":-5}"#.write(toFile: $0, atomically: true, encoding: .utf8) }, "minimum_lead_minutes: must be"),
            ("city.json", { try "{not json".write(toFile: $0, atomically: true, encoding: .utf8) }, "city.json:"),
        ]
        for (name, change, message) in cases {
            let result = try damaged(name, change)
            #expect(result.status != 0 && result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1,
                    "\(name): \(result.stderr)")
        }
    }

    @Test func aFailedBuildLeavesNothingBehind() throws {
        let folder = TemporaryFolder()
        // Fares that name a service area the zones do not have: found at the last step.
        let fares = folder.path("fares.json")
        try #"{"currency":"INR","rates":[{"service_area":"Atlantis","cab_type":"Sedan","base":5000,"per_km":1200}]}"#
            .write(toFile: fares, atomically: true, encoding: .utf8)
        var args = Self.sources
        args[args.count - 1] = fares
        let r = try runWayfare(["city", "build"] + args + ["--no-geocoder", "--out", folder.path("city")])
        #expect(r.status != 0 && r.stderr.contains("Atlantis"), "\(r.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(left == ["fares.json"], "left behind: \(left)")
        for (extra, message) in [(["--booking-rules", "7"], "--booking-rules must be"), (["--fares", "/nonexistent.json"], "/nonexistent.json")] {
            let bad = try runWayfare(["city", "build"] + Self.sources + extra + ["--out", folder.path("x")])
            #expect(bad.status != 0 && bad.stderr.contains(message), "\(extra): \(bad.stderr)")
        }
    }
}
