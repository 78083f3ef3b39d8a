import BinaryFile
import Foundation
import Testing
import Workloads
@testable import ZoneImport
import Geodesy
import TestSupport
@testable import Zones

@Suite struct ImportChecksTests {
    let folder = TemporaryFolder()

    @Test func overlapsAreReportedInSquareMetresAndRefused() throws {
        // Two 0.01° squares at the equator overlapping by 0.002° × 0.01° ≈ 222 m × 1113 m.
        let path = folder.write("overlap.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("b", [square(0.008, 0, 0.01)])]))
        let (_, report) = try ZoneImporter.check(zonesAt: path)
        #expect(report.overlaps.count == 1)
        let area = try #require(report.overlaps.first?.squareMetres)
        #expect(abs(area - 222.6 * 1_105.7) / area < 0.01)
        #expect(!report.isClean)
        #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: path) }
        var options = ZoneImportOptions()
        options.allowOverlaps = true
        let (set, _) = try ZoneImporter.load(zonesAt: path, options: options)
        // In the overlap, the first zone wins.
        #expect(set.zone(containing: try Coordinate(latitude: 0.005, longitude: 0.009))?.id == "a")
    }

    @Test func overlapsBelowTheToleranceAreSlivers() throws {
        // 1e-6° × 0.01° ≈ 0.11 m × 1113 m = 124 m², under a 200 m² tolerance.
        let path = folder.write("sliver.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("b", [square(0.009999, 0, 0.01)])]))
        let (_, report) = try ZoneImporter.check(zonesAt: path, options: ZoneImportOptions(toleranceSquareMetres: 200))
        #expect(report.overlaps.isEmpty)
        #expect(report.sliverCount == 1)
        #expect(report.isClean)
    }

    @Test func gapsAndOutsideZonesAreFound() throws {
        let zones = folder.write("zones.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("b", [square(0.02, 0, 0.01)])]))
        let area = folder.write("area.geojson", featureCollection([("city", [square(0, 0, 0.025)])]))
        let (_, report) = try ZoneImporter.check(zonesAt: zones, serviceAreasAt: area)
        #expect(report.outside == ["b"])          // b sticks out of the city
        #expect(report.gaps.count == 1)            // the city between and above the zones
        #expect(report.isClean)                    // gaps do not break disjointness
    }

    @Test func holesBetweenZonesAreGapsOfTheDefaultServiceArea() throws {
        // Four squares around an empty middle square.
        let z = folder.write("ring.geojson", featureCollection([
            ("s", [[(0, 0), (0.03, 0), (0.03, 0.01), (0, 0.01), (0, 0)]]),
            ("n", [[(0, 0.02), (0.03, 0.02), (0.03, 0.03), (0, 0.03), (0, 0.02)]]),
            ("w", [square(0, 0.01, 0.01)]), ("e", [square(0.02, 0.01, 0.01)]),
        ]))
        let (set, report) = try ZoneImporter.load(zonesAt: z)
        #expect(report.gaps.count == 1)
        let gap = try #require(report.gaps.first)
        #expect(abs(gap.squareMetres - 1_113.2 * 1_105.7) / gap.squareMetres < 0.01)
        // The hole is inside the service area but in no zone.
        let middle = try Coordinate(latitude: 0.015, longitude: 0.015)
        #expect(set.isServed(middle))
        #expect(set.zone(containing: middle) == nil)
        #expect(set.adjacency.map(\.count) == [2, 2, 2, 2])
    }

    @Test func featuresSharingAnIdAreMerged() throws {
        let path = folder.write("island.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("a", [square(0.05, 0, 0.01)]),
                                                                    ("b", [square(0.01, 0, 0.01)])]))
        let (set, report) = try ZoneImporter.load(zonesAt: path)
        #expect(set.zones.map(\.id) == ["a", "b"])
        #expect(report.merged.count == 1 && report.merged[0].features == 2)
        #expect(set.zone(containing: try Coordinate(latitude: 0.005, longitude: 0.055))?.id == "a")
    }

    @Test func selfIntersectionIsReportedRefusedAndRepairable() throws {
        let path = folder.write("bowtie.geojson", featureCollection([("x", [[(0, 0), (0.01, 0.01), (0.01, 0), (0, 0.01), (0, 0)]])]))
        let (_, report) = try ZoneImporter.check(zonesAt: path)
        #expect(report.invalid.count == 1)
        #expect(report.invalid[0].reason.contains("Self-intersection"))
        #expect(!report.isClean)
        let error = #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: path) }
        #expect(error?.description.contains("feature 0") == true)
        #expect(error?.description.contains("--repair") == true)
        let (set, repaired) = try ZoneImporter.load(zonesAt: path, options: ZoneImportOptions(repair: true))
        #expect(repaired.invalid.first?.repaired == true)
        #expect(set.zone(containing: try Coordinate(latitude: 0.005, longitude: 0.002))?.id == "x")  // the left lobe
    }

    @Test func projectedFilesNeedTheirCRS() throws {
        // Web Mercator metres around Monaco, declared in the file.
        let ring = [(826_000.0, 5_424_000.0), (827_000, 5_424_000), (827_000, 5_425_000), (826_000, 5_425_000), (826_000, 5_424_000)]
        let declared = folder.write("merc.geojson", featureCollection([("m", [ring])], crs: "EPSG:3857"))
        let (set, _) = try ZoneImporter.load(zonesAt: declared)
        #expect(set.zone(containing: try Coordinate(latitude: 43.736, longitude: 7.424))?.id == "m")
        // Without the crs member the numbers are not longitudes: a clear error; --crs fixes it.
        let bare = folder.write("bare.geojson", featureCollection([("m", [ring])]))
        let error = #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: bare) }
        #expect(error?.description.contains("--crs") == true)
        _ = try ZoneImporter.load(zonesAt: bare, options: ZoneImportOptions(crs: "EPSG:3857"))
    }

    @Test func wktFilesAreAccepted() throws {
        let path = folder.write("zones.wkt", "# two zones\nPOLYGON ((0 0, 0.01 0, 0.01 0.01, 0 0.01, 0 0))\n\nPOLYGON ((0.01 0, 0.02 0, 0.02 0.01, 0.01 0.01, 0.01 0))\n")
        let (set, _) = try ZoneImporter.load(zonesAt: path)
        #expect(set.zones.map(\.id) == ["1", "2"])
        #expect(set.zone(containing: try Coordinate(latitude: 0.005, longitude: 0.015))?.id == "2")
    }

    @Test func idAndNameFieldsAreChosen() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"code":12,"label":"Port"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}}]}"#
        let path = folder.write("fields.geojson", text)
        let (set, _) = try ZoneImporter.load(zonesAt: path, options: ZoneImportOptions(idField: "code", nameField: "label"))
        #expect(set.zones[0].id == "12" && set.zones[0].name == "Port")
        #expect(set.zones[0].properties == #"{"code":12,"label":"Port"}"#)
        let error = #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: path, options: ZoneImportOptions(idField: "nope")) }
        #expect(error?.description.contains("feature 0") == true && error?.description.contains("nope") == true)
    }
}

@Suite struct BadInputTests {
    let folder = TemporaryFolder()

    /// Imports `text` and returns the one-line error.
    private func failure(_ name: String, _ text: String, options: ZoneImportOptions = .init()) -> String {
        let path = folder.write(name, text)
        do {
            _ = try ZoneImporter.load(zonesAt: path, options: options)
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test func eachBadFileIsAClearOneLineError() {
        let cases: [(String, String, String)] = [
            ("broken.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature""#, "not valid JSON: line 1"),
            ("unclosed.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}}]}"#, "ring is not closed"),
            ("empty-collection.geojson", #"{"type":"FeatureCollection","features":[]}"#, "has no features"),
            ("empty.geojson", "", "the file is empty"),
            ("range.geojson", featureCollection([("a", [square(179.5, 0, 1)])]), "is not a longitude/latitude"),
            ("nan.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[NaN,0],[1,0],[1,1],[0,0]]]}}]}"#, "not valid JSON"),
            ("strings.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[["0","0"],[1,0],[1,1],["0","0"]]]}}]}"#, "expected a number"),
            ("line.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]}}]}"#, "not a Polygon or MultiPolygon"),
            ("nogeom.geojson", #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}]}"#, "no geometry"),
        ]
        for (name, text, expected) in cases {
            let message = failure(name, text)
            #expect(message.contains(expected), "\(name): \(message)")
            #expect(message.contains(name), "\(name): the error names the file: \(message)")
            #expect(!message.contains("\n"), "\(name): one line")
        }
    }

    @Test func unknownCRSIsAClearError() {
        let message = failure("crs.geojson", featureCollection([("a", [square(0, 0, 1)])], crs: "EPSG:999999"))
        #expect(message.contains("EPSG:999999"))
        let bad = failure("crs2.geojson", featureCollection([("a", [square(0, 0, 1)])]), options: ZoneImportOptions(crs: "EPSG:nonsense"))
        #expect(bad.contains("nonsense"))
    }

    @Test func tensOfMegabytesOfRandomBytesAreRefusedQuickly() {
        var rng = SeededRandom(seed: 3)
        var bytes = [UInt8](repeating: 0, count: 32 << 20)
        for k in stride(from: 0, to: bytes.count, by: 8) {
            withUnsafeBytes(of: rng.next()) { for (j, b) in $0.enumerated() where k + j < bytes.count { bytes[k + j] = b } }
        }
        bytes[0] = UInt8(ascii: "{")   // looks like JSON for one byte
        let path = folder.write("random.geojson", bytes: bytes)
        let error = #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: path) }
        #expect(error?.description.contains("random.geojson") == true)
        bytes[0] = 0xFE                // and as a WKT file, not UTF-8
        let other = folder.write("random.bin", bytes: bytes)
        #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: other) }
    }

    @Test func missingFileIsAClearError() {
        let error = #expect(throws: ZoneError.self) { try ZoneImporter.load(zonesAt: "/nonexistent/zones.geojson") }
        #expect(error?.description == "/nonexistent/zones.geojson: no such file")
    }
}

@Suite struct ZoneFileTests {
    let folder = TemporaryFolder()

    private func sample() throws -> ZoneSet {
        let path = folder.write("z.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("b", [square(0.01, 0, 0.01)])]))
        return try ZoneImporter.load(zonesAt: path).0
    }

    @Test func roundTripsThroughDisk() throws {
        let set = try sample()
        let path = folder.path("z.wfz")
        try ZoneFile.write(set, to: path)
        #expect(try ZoneFile.read(path: path) == set)
    }

    @Test func refusesForeignTruncatedCorruptAndOtherVersions() throws {
        let bytes = ZoneFile.encode(try sample())
        #expect(throws: ZoneError.self) { try ZoneFile.decode(Array("hello world, not a zone file at all....".utf8), path: "x") }
        #expect(throws: ZoneError.self) { try ZoneFile.decode([], path: "x") }
        #expect(throws: ZoneError.self) { try ZoneFile.decode(Array(bytes.prefix(bytes.count / 2)), path: "x") }
        var corrupt = bytes
        corrupt[bytes.count - 100] ^= 0x40
        let error = #expect(throws: ZoneError.self) { try ZoneFile.decode(corrupt, path: "x.wfz") }
        #expect(error?.description == "x.wfz: zone file is corrupt (checksum mismatch)")
        var version = bytes
        version[8] = 99
        let v = #expect(throws: ZoneError.self) { try ZoneFile.decode(version, path: "x.wfz") }
        #expect(v?.description.contains("version 99") == true)
    }

    @Test func refusesAWellChecksummedButInconsistentPayload() throws {
        // Flip a byte in the payload and fix the checksum: validation must still catch it
        // or the file must decode to a set that answers without crashing.
        let bytes = ZoneFile.encode(try sample())
        var rng = SeededRandom(seed: 11)
        for _ in 0..<300 {
            var b = bytes
            let k = Int.random(in: 32..<b.count, using: &rng)
            b[k] = UInt8.random(in: 0...255, using: &rng)
            let payload = Array(b[32...])
            let sum = BinaryFile.checksum(payload)
            withUnsafeBytes(of: sum.littleEndian) { for j in 0..<8 { b[24 + j] = $0[j] } }
            if let set = try? ZoneFile.decode(b, path: "x") {
                for i in 0..<50 {
                    _ = set.zoneIndex(longitude: Double(i) * 0.0005, latitude: 0.005)
                }
            }
        }
    }
}

@Suite struct ConcurrencyTests {
    /// Eight concurrent lookups against one shared ZoneSet (run under ThreadSanitizer by
    /// scripts/test.sh). A ZoneSet is Sendable: immutable arrays, no lock needed.
    @Test func eightConcurrentLookupsAgreeWithSequentialOnes() async throws {
        let folder = TemporaryFolder()
        var features: [(id: String, rings: [[(Double, Double)]])] = []
        for i in 0..<10 { for j in 0..<10 { features.append(("\(i)-\(j)", [square(Double(i) * 0.01, Double(j) * 0.01, 0.01)])) } }
        let path = folder.write("grid.geojson", featureCollection(features))
        let set = try ZoneImporter.load(zonesAt: path).0
        let points = ZoneSampler.points(in: set, count: 20_000, insideShare: 0.8, seed: 5)
        let expected = points.map { set.zone(containing: $0)?.id }
        let results = await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var ok = true
                    for k in stride(from: worker, to: points.count, by: 1) where set.zone(containing: points[k])?.id != expected[k] {
                        ok = false
                    }
                    return ok
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }

    /// GEOS and PROJ on many threads at once, each with contexts of its own (the rule in
    /// GEOSContext and Transformer); the import itself runs its union on a second thread.
    @Test func importsRunConcurrentlyWithAContextPerThread() async throws {
        let folder = TemporaryFolder()
        let path = folder.write("four.geojson", featureCollection([("a", [square(0, 0, 0.01)]), ("b", [square(0.01, 0, 0.01)]),
                                                                   ("c", [square(0, 0.01, 0.01)]), ("d", [square(0.01, 0.01, 0.01)])],
                                                                  crs: "EPSG:4326"))
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let (set, report) = try ZoneImporter.load(zonesAt: path)
                    let locator = try GEOSZoneLocator(set)
                    let index = locator.zoneIndex(longitude: 0.015, latitude: 0.015)
                    return set.zones.count * 100 + report.adjacentPairs * 10 + index
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == [463, 463, 463, 463])  // 4 zones, 6 adjacent pairs, d holds the point
    }
}
