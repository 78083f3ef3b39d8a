import Foundation
import Testing
@testable import ZoneImport
import Workloads
@testable import ZoneImport
import Geodesy
import GeoJSON
import Geometry
import TestSupport
@testable import Zones

@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
struct NYCTaxiZoneTests {
    /// The known points of ../shared/data/README.md, checked there with shapely.
    static let known: [(String, Double, Double, String?)] = [
        ("Times Square", 40.7580, -73.9855, "230"), ("JFK Terminal 4", 40.6441, -73.7822, "132"),
        ("LaGuardia", 40.7769, -73.8740, "138"), ("Central Park", 40.7812, -73.9665, "43"),
        ("Newark Airport", 40.6895, -74.1745, "1"), ("Atlantic Ocean", 40.5500, -73.8000, nil),
    ]

    @Test func statePlaneImportGivesTheKnownZones() throws {
        let set = try #require(NYC.fromStatePlane)
        #expect(set.zones.count == 260)  // 263 features; ids 56 and 103 span several
        for (place, lat, lon, id) in Self.known {
            let zone = set.zone(containing: try Coordinate(latitude: lat, longitude: lon))
            #expect(zone?.id == id, "\(place)")
        }
        // The batch form gives the same answers, in order.
        let batch = set.zones(containing: Self.known.map { Coordinate(unchecked: $0.1, $0.2) })
        #expect(batch.map { $0?.id } == Self.known.map(\.3))
        #expect(try set.zone(id: "230").name == "Times Sq/Theatre District")
    }

    @Test func importReportsTheMergedIslandZones() throws {
        let (_, report) = try ZoneImporter.check(zonesAt: SharedData.path("nyc/taxi-zones.epsg2263.geojson"),
                                                 options: NYC.options)
        #expect(report.features == 263)
        #expect(report.merged.map(\.id) == ["56", "103"])
        #expect(report.merged.map(\.features) == [2, 3])
        #expect(report.crs == "urn:ogc:def:crs:EPSG::2263")
        #expect(report.isClean)
        #expect(report.sliverCount > 0)   // reprojected files are full of them
    }

    @Test func theRoundedWGS84CopyShowsItsOverlaps() throws {
        let (_, report) = try ZoneImporter.check(zonesAt: SharedData.path("nyc/taxi-zones.wgs84.geojson"), options: NYC.options)
        #expect(report.overlaps.map { "\($0.a)-\($0.b)" } == ["37-96", "81-184", "122-130"])
        #expect(report.overlaps.allSatisfy { $0.squareMetres > 1 && $0.squareMetres < 3 })
        #expect(!report.isClean)
        #expect(throws: ZoneError.self) {
            try ZoneImporter.load(zonesAt: SharedData.path("nyc/taxi-zones.wgs84.geojson"), options: NYC.options)
        }
    }

    @Test func statePlaneAndWGS84FilesAgreeOnTenThousandPoints() throws {
        let a = try #require(NYC.fromStatePlane), b = try #require(NYC.fromWGS84)
        let points = ZoneSampler.points(in: a, count: 10_000, insideShare: 1, seed: 2263)
        var disagreements: [Coordinate] = []
        for p in points where a.zone(containing: p)?.id != b.zone(containing: p)?.id { disagreements.append(p) }
        // Two transforms of the same shapefile may differ by a hair at a border: any point
        // where they disagree must have a different zone within 1e-6° (about 10 cm).
        for p in disagreements {
            let here = a.zone(containing: p)?.id
            let nearBorder = [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0), (1, 1), (-1, -1), (1, -1), (-1, 1)].contains { d in
                let q = Coordinate(unchecked: p.latitude + d.1 * 1e-6, p.longitude + d.0 * 1e-6)
                return a.zone(containing: q)?.id != here
            }
            #expect(nearBorder, "\(p) disagrees far from a border")
        }
        #expect(disagreements.count <= 10, "\(disagreements.count) disagreements")
    }

    @Test func engineEqualsBruteForceGEOSCovers() throws {
        let set = try #require(NYC.fromStatePlane)
        let oracle = try GEOSZoneLocator(set, indexed: false)
        var points = ZoneSampler.points(in: set, count: 3_000, insideShare: 0.7, seed: 99)
        // Add points exactly on borders: every 50th vertex of every zone (shared vertices
        // fall under the lowest-index rule).
        for z in set.zones {
            for poly in set.polygons(of: z) { for ring in poly { for p in ring.enumerated() where p.offset % 50 == 0 {
                points.append(Coordinate(unchecked: p.element.y, p.element.x))
            } } }
        }
        var mismatches = 0
        for p in points {
            let engine = set.zoneIndex(longitude: p.longitude, latitude: p.latitude)
            let truth = oracle.zoneIndex(longitude: p.longitude, latitude: p.latitude)
            if engine != truth { mismatches += 1 }
        }
        #expect(mismatches == 0, "\(mismatches) of \(points.count) differ from GEOS")
        #expect(points.count > 4_000)
    }

    @Test func indexedBaselineEqualsEngineOnAHundredThousandPoints() throws {
        let set = try #require(NYC.fromStatePlane)
        let baseline = try GEOSZoneLocator(set)
        let points = ZoneSampler.points(in: set, count: 100_000, insideShare: 0.7, seed: 1)
        let lons = points.map(\.longitude), lats = points.map(\.latitude)
        var engine: [Int32] = []
        set.zoneIndices(longitudes: lons, latitudes: lats, into: &engine)
        let mismatches = points.indices.filter { Int(engine[$0]) != baseline.zoneIndex(longitude: lons[$0], latitude: lats[$0]) }
        #expect(mismatches.isEmpty)
        // And the cover adds nothing the plain scan would not find.
        for k in stride(from: 0, to: points.count, by: 97) {
            #expect(Int(engine[k]) == set.zoneIndexByScan(longitude: lons[k], latitude: lats[k]))
        }
    }

    @Test func adjacencyIsSymmetricAndSensible() throws {
        let set = try #require(NYC.fromStatePlane)
        for z in set.zones { for n in set.adjacency[z.index] { #expect(set.adjacency[n].contains(z.index)) } }
        // Times Square touches Midtown Center (161) and not JFK.
        let times = try set.zone(id: "230")
        let neighbours = set.neighbours(of: times).map(\.id)
        #expect(neighbours.contains("161"))
        #expect(!neighbours.contains("132"))
    }

    @Test func serviceAreaRefusesTheOcean() throws {
        let set = try #require(NYC.fromStatePlane)
        _ = try set.serviceArea(containing: try Coordinate(latitude: 40.7580, longitude: -73.9855))
        #expect(throws: ZoneError.outOfServiceArea(try Coordinate(latitude: 40.55, longitude: -73.8))) {
            try set.serviceArea(containing: try Coordinate(latitude: 40.55, longitude: -73.8))
        }
    }

    @Test func zoneFileRoundTripsExactly() throws {
        let set = try #require(NYC.fromStatePlane)
        let bytes = ZoneFile.encode(set)
        let back = try ZoneFile.decode(bytes, path: "nyc.wfz")
        #expect(back == set)
    }
}

@Suite(.enabled(if: SharedData.isAvailable, SharedData.skipMessage))
struct MonacoTests {
    @Test func wardsImportWithTheCommunesAsServiceAreas() throws {
        let (set, report) = try ZoneImporter.load(zonesAt: SharedData.path("monaco/wards.geojson"),
                                                  serviceAreasAt: SharedData.path("monaco/communes.geojson"))
        #expect(set.zones.count == 9)
        #expect(set.serviceAreas.map(\.name).sorted() == ["Beausoleil", "Cap-d'Ail", "La Turbie", "Monaco"])
        #expect(report.isClean)
        #expect(report.outside.isEmpty)
        // The Casino de Monte-Carlo is in the Monte-Carlo ward, in the city of Monaco.
        let casino = try Coordinate(latitude: 43.7393, longitude: 7.4277)
        #expect(set.zone(containing: casino)?.name == "Monte-Carlo")
        #expect(try set.serviceArea(containing: casino).name == "Monaco")
        // Beausoleil is served but has no zone yet: a gap in the report.
        let beausoleil = try Coordinate(latitude: 43.7440, longitude: 7.4230)
        #expect(set.zone(containing: beausoleil) == nil)
        #expect(try set.serviceArea(containing: beausoleil).name == "Beausoleil")
        #expect(report.gaps.contains { $0.squareMetres > 1_000_000 })
    }

    @Test func everyWardTouchesAnother() throws {
        let (set, _) = try ZoneImporter.load(zonesAt: SharedData.path("monaco/wards.geojson"))
        #expect(set.zones.allSatisfy { !set.adjacency[$0.index].isEmpty })
    }
}
