import Foundation
import Testing
import Geodesy
import TestSupport
@testable import Geocoding

/// Where a building's address is answered, and which object a range or suffix query
/// finds, on small OSM files whose answers are known by construction.
@Suite struct BuildingPointTests {
    let folder = TemporaryFolder()
    static let origin = (lat: 60.17, lon: 24.94)
    static let metresPerDegree = 111_195.0

    /// A coordinate `east` and `north` metres from the origin.
    static func at(_ east: Double, _ north: Double) -> (Double, Double) {
        (origin.lat + north / metresPerDegree, origin.lon + east / metresPerDegree / cos(origin.lat * .pi / 180))
    }

    /// A table from an OSM XML file with a street and the given buildings (rings of metre
    /// offsets) and address nodes.
    func table(buildings: [(number: String, ring: [(Double, Double)])], nodes: [(number: String, east: Double, north: Double)] = []) throws -> GeocoderTable {
        var xml = "<osm version=\"0.6\">\n"
        var id = 1
        func node(_ p: (Double, Double), tags: String = "") -> Int {
            id += 1
            let (lat, lon) = Self.at(p.0, p.1)
            xml += "<node id=\"\(id)\" lat=\"\(lat)\" lon=\"\(lon)\">\(tags)</node>\n"
            return id
        }
        let street = [node((-50, -20)), node((250, -20))]
        for n in nodes {
            _ = node((n.east, n.north), tags: "<tag k=\"addr:housenumber\" v=\"\(n.number)\"/><tag k=\"addr:street\" v=\"Testikatu\"/>")
        }
        var ways = "<way id=\"1\"><nd ref=\"\(street[0])\"/><nd ref=\"\(street[1])\"/><tag k=\"highway\" v=\"residential\"/><tag k=\"name\" v=\"Testikatu\"/></way>\n"
        for (k, b) in buildings.enumerated() {
            let refs = b.ring.map { node($0) }
            ways += "<way id=\"\(100 + k)\">" + (refs + [refs[0]]).map { "<nd ref=\"\($0)\"/>" }.joined()
                + "<tag k=\"building\" v=\"yes\"/><tag k=\"addr:housenumber\" v=\"\(b.number)\"/><tag k=\"addr:street\" v=\"Testikatu\"/></way>\n"
        }
        xml += ways + "</osm>\n"
        var builder = GeocoderBuilder()
        try builder.addOSM(path: folder.write("buildings.osm", xml))
        return builder.build()
    }

    /// Metres east and north of the origin.
    func local(_ c: Coordinate) -> (Double, Double) {
        ((c.longitude - Self.origin.lon) * cos(Self.origin.lat * .pi / 180) * Self.metresPerDegree,
         (c.latitude - Self.origin.lat) * Self.metresPerDegree)
    }

    @Test func aRectangleDrawnWithManyNodesOnOneWallIsAnsweredAtItsCentre() throws {
        // 40 × 20 m; the south wall has 30 extra nodes, which pull the mean of the nodes
        // about 7 m south; the centroid stays at (20, 10).
        let south = (1..<31).map { (Double($0) * 40 / 31, 0.0) }
        let ring = [(0.0, 0.0)] + south + [(40, 0), (40, 20), (0, 20)]
        let t = try table(buildings: [("5", ring)])
        let top = try #require(try t.geocode("5 Testikatu").first)
        let (x, y) = local(top.coordinate)
        #expect(abs(x - 20) < 0.05 && abs(y - 10) < 0.05, "\(x), \(y)")
    }

    @Test func anLShapedBuildingIsAnsweredOnItsSurfaceNearItsCentroid() throws {
        // Two 100 × 10 m arms meeting at the origin: the centroid, (28.7, 28.7), lies
        // outside, in the crook.
        let ring: [(Double, Double)] = [(0, 0), (100, 0), (100, 10), (10, 10), (10, 100), (0, 100)]
        let t = try table(buildings: [("7", ring)])
        let top = try #require(try t.geocode("7 Testikatu").first)
        let (x, y) = local(top.coordinate)
        let inside = (0...100).contains(x) && (0...100).contains(y) && (x <= 10 || y <= 10)
        #expect(inside, "\(x), \(y) is outside the building")
        // On an arm, within a wall's margin of the line through the centroid.
        // The arms are 1000 m² (x centroid 50) and 900 m² (x centroid 5).
        let centroid: Double = (1000.0 * 50 + 900.0 * 5) / 1900
        #expect(hypot(x - centroid, y - centroid) < 30, "\(x), \(y)")
    }

    @Test func aUShapedBlockIsAnsweredInTheWingNearestItsCentroid() throws {
        // A 60 × 60 m block open to the north, wings 10 m thick: the centroid lies in the
        // courtyard; the nearest surface is the south wing, straight below it.
        let ring: [(Double, Double)] = [(0, 0), (60, 0), (60, 60), (50, 60), (50, 10), (10, 10), (10, 60), (0, 60)]
        let t = try table(buildings: [("9", ring)])
        let top = try #require(try t.geocode("9 Testikatu").first)
        let (x, y) = local(top.coordinate)
        #expect(abs(x - 30) < 0.05 && y > 0 && y < 10, "\(x), \(y)")
    }

    @Test func aRangeOrSuffixTypedAsTaggedFindsThatObjectFirst() throws {
        let t = try table(buildings: [("14-20", [(100, 0), (160, 0), (160, 20), (100, 20)])],
                          nodes: [("14", 0, 0), ("12", -20, 0), ("12a", -10, 0)])
        #expect(try t.geocode("14-20 Testikatu").first?.label == "14-20 Testikatu")
        #expect(try t.geocode("Testikatu 14 - 20").first?.label == "14-20 Testikatu")
        #expect(try t.geocode("14 Testikatu").first?.label == "14 Testikatu")
        #expect(try t.geocode("12a Testikatu").first?.label == "12a Testikatu")
        #expect(try t.geocode("12 A Testikatu").first?.label == "12a Testikatu")
        #expect(try t.geocode("12 Testikatu").first?.label == "12 Testikatu")
        // Without a "14" object, "14" finds the range.
        let rangeOnly = try table(buildings: [("14-20", [(100, 0), (160, 0), (160, 20), (100, 20)])])
        #expect(try rangeOnly.geocode("14 Testikatu").first?.label == "14-20 Testikatu")
    }

    @Test func aCommaBeforeWordsIsOneNumberNotAList() throws {
        let t = try table(buildings: [], nodes: [("33, Floor 1", 0, 0), ("5,7", 30, 0)])
        #expect(try t.geocode("33 Testikatu").first?.label == "33, Floor 1 Testikatu")
        #expect(try t.geocode("5 Testikatu").first?.label == "5 Testikatu")
        #expect(try t.geocode("7 Testikatu").first?.label == "7 Testikatu")
    }
}
