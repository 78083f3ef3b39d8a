import Testing
import GeoJSON
@testable import Geometry

@Suite struct GeometryTests {
    let context = GEOSContext()

    @Test func readsAndWritesWKT() throws {
        let g = try Geometry(wkt: "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))", in: context)
        #expect(g.typeName == "Polygon")
        #expect(g.area == 16)
        #expect(g.wkt == "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))")
    }

    @Test func roundTripsWKBAndGeoJSON() throws {
        let g = try Geometry(wkt: "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))", in: context)
        let fromWKB = try Geometry(wkb: g.wkb, in: context)
        #expect(fromWKB.wkt == g.wkt)
        let fromJSON = try Geometry(geoJSON: g.geoJSON, in: context)
        #expect(fromJSON.wkt == g.wkt)
    }

    @Test func badTextIsAnError() {
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POLYGON ((0 0, 1 1", in: context) }
        #expect(throws: GeometryError.self) { try Geometry(wkb: [1, 2, 3], in: context) }
        #expect(throws: GeometryError.self) { try Geometry(geoJSON: "{\"type\":", in: context) }
    }

    @Test func reportsValidityWithTheReasonAndRepairs() throws {
        let bowtie = try Geometry(wkt: "POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))", in: context)
        guard case let .invalid(reason) = bowtie.validity else {
            Issue.record("a bow-tie was called valid"); return
        }
        #expect(reason.contains("Self-intersection"))
        let fixed = try bowtie.makeValid()
        #expect(fixed.validity == .valid)
        #expect(abs(fixed.area - 2) < 1e-12)
    }

    @Test func preparedGeometryAnswersContainment() throws {
        let square = try Geometry(wkt: "POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))", in: context)
        let prepared = try square.prepared()
        #expect(prepared.contains(try .point(x: 2, y: 2, in: context)))
        #expect(!prepared.contains(try .point(x: 4, y: 2, in: context)))  // boundary: not contained
        #expect(prepared.covers(try .point(x: 4, y: 2, in: context)))     // but covered
        #expect(!prepared.covers(try .point(x: 5, y: 2, in: context)))
    }

    @Test func buildsFromGeoJSONPositions() throws {
        let rings = [[Position(x: 0, y: 0), Position(x: 2, y: 0), Position(x: 2, y: 2), Position(x: 0, y: 2), Position(x: 0, y: 0)],
                     [Position(x: 0.5, y: 0.5), Position(x: 1, y: 0.5), Position(x: 1, y: 1), Position(x: 0.5, y: 0.5)]]
        let g = try Geometry(.polygon(rings), in: context)
        #expect(abs(g.area - 3.875) < 1e-12)
        #expect(try g.polygonRings() == [rings])
    }

    @Test func overlayAndPredicates() throws {
        let a = try Geometry(wkt: "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", in: context)
        let b = try Geometry(wkt: "POLYGON ((1 0, 3 0, 3 2, 1 2, 1 0))", in: context)
        #expect(try a.intersection(b).area == 2)
        #expect(try a.union(b).area == 6)
        #expect(try a.difference(b).area == 2)
        #expect(a.intersects(b))
        let far = try Geometry(wkt: "POLYGON ((2.5 3, 3 3, 3 4, 2.5 3))", in: context)
        #expect(!a.isWithin(distance: 0.5, of: far))
        #expect(a.isWithin(distance: 1.2, of: far))
    }

    @Test func envelopeTreeFindsCandidates() throws {
        let tree = EnvelopeTree(in: context)
        for i in 0..<10 {
            tree.insert(try Geometry(wkt: "POLYGON ((\(i) 0, \(i + 1) 0, \(i + 1) 1, \(i) 1, \(i) 0))", in: context), item: i)
        }
        var found: [Int] = []
        tree.query(try .point(x: 3.5, y: 0.5, in: context), into: &found)
        #expect(found == [3])
    }

    @Test func manyGeometriesAreFreed() throws {
        // Run under valgrind or ASan to see every handle freed exactly once.
        for _ in 0..<2_000 {
            let g = try Geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 0))", in: context)
            _ = try g.prepared().covers(try .point(x: 0.5, y: 0.2, in: context))
            _ = try g.union(g).wkb
        }
    }
}
