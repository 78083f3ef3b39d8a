import Testing
import Geodesy
import TestSupport
@testable import Projection

@Suite struct TransformerTests {
    @Test func transformsNewYorkStatePlaneToWGS84() throws {
        // A Midtown point in EPSG:2263 (US feet); PROJ's own cs2cs gives 40.7592709, -73.9835760.
        let t = try Transformer(from: "EPSG:2263")
        let (lon, lat) = try t.transform(x: 988_800.0, y: 215_900.0)
        #expect(abs(lat - 40.7592709) < 1e-7 && abs(lon - (-73.9835760)) < 1e-7)
        // The URN spelling of the file's crs member names the same CRS.
        let u = try Transformer(from: "urn:ogc:def:crs:EPSG::2263")
        let (lon2, lat2) = try u.transform(x: 988_800.0, y: 215_900.0)
        #expect(lon == lon2 && lat == lat2)
    }

    @Test func alwaysUsesLongitudeLatitudeOrder() throws {
        // EPSG:4326 is officially latitude first; Wayfare always sees x = longitude.
        let t = try Transformer(from: "EPSG:4326", to: "EPSG:3857")
        let (x, y) = try t.transform(x: 7.4246, y: 43.7384)
        // cs2cs EPSG:4326 EPSG:3857 (latitude first there): 826502.6913 5425047.8272.
        #expect(abs(x - 826_502.6913) < 1e-3 && abs(y - 5_425_047.8272) < 1e-3)
    }

    @Test func transformsArraysInOneCall() throws {
        let t = try Transformer(from: "EPSG:4326", to: "EPSG:32632")
        var xs = [7.42, 7.43, 7.44], ys = [43.73, 43.74, 43.75]
        try t.transform(x: &xs, y: &ys)
        #expect(xs.allSatisfy { $0 > 300_000 && $0 < 400_000 })
        #expect(ys.allSatisfy { $0 > 4_800_000 && $0 < 4_900_000 })
    }

    @Test func unknownCRSIsAClearError() {
        #expect(throws: ProjectionError.self) { try Transformer(from: "EPSG:999999") }
        #expect(throws: ProjectionError.self) { try Transformer(from: "not a crs at all") }
        let error = #expect(throws: ProjectionError.self) { try Transformer(from: "EPSG:999999") }
        #expect(error?.description.contains("EPSG:999999") == true)
    }

    @Test func failedTransformIsAnErrorNotNaN() throws {
        let t = try Transformer(from: "EPSG:4326", to: "EPSG:3857")
        var xs = [7.0, 7.0], ys = [43.0, 95.0]
        #expect(throws: ProjectionError.self) { try t.transform(x: &xs, y: &ys) }
        var a = [1.0], b = [1.0, 2.0]
        #expect(throws: ProjectionError.mismatchedArrays(1, 2)) { try t.transform(x: &a, y: &b) }
    }

    @Test func equalAreaFrameIsMetric() throws {
        let t = try Transformer.equalArea(around: try Coordinate(latitude: 43.73, longitude: 7.42))
        let (x, y) = try t.transform(x: 7.42, y: 43.73)
        #expect(abs(x) < 1e-6 && abs(y) < 1e-6)
        let (_, y2) = try t.transform(x: 7.42, y: 43.74)
        #expect(abs(y2 - 1_111.6) < 2)
    }

    @Test func recognisesWGS84Names() {
        #expect(Transformer.isWGS84("EPSG:4326"))
        #expect(Transformer.isWGS84("urn:ogc:def:crs:OGC:1.3:CRS84"))
        #expect(!Transformer.isWGS84("EPSG:2263"))
    }
}

@Suite struct GeodesicTests {
    @Test func matchesKarneysReferenceDistance() throws {
        // JFK to LHR on WGS84: 5,554,908.791 m from PROJ's `geod -I` command, a separate program.
        let jfk = try Coordinate(latitude: 40.6413, longitude: -73.7781)
        let lhr = try Coordinate(latitude: 51.4700, longitude: -0.4543)
        let line = Geodesic.wgs84.inverse(from: jfk, to: lhr)
        #expect(abs(line.distance - 5_554_908.791) < 1e-3)
        #expect(abs(line.initialAzimuth - 51.3816) < 1e-4)
        let d = line.distance
        // Haversine stays within 0.5 % of the ellipsoid.
        #expect(abs(jfk.distance(to: lhr) - d) / d < 0.005)
    }

    @Test func shortDistancesAgreeWithHaversineClosely() throws {
        let a = try Coordinate(latitude: 43.7384, longitude: 7.4246)
        let b = a.destination(bearing: 45, distance: 150)
        let g = Geodesic.wgs84.distance(from: a, to: b)
        #expect(abs(g - 150) < 0.5)
    }

    @Test func geodesysVincentyMatchesItsPublishedExample() throws {
        // Vincenty's own test line, Flinders Peak to Buninyong (Geoscience Australia's
        // worked example): 54,972.271 m.
        let d = WGS84.distance(from: try Coordinate(latitude: -(37 + 57 / 60.0 + 3.72030 / 3600), longitude: 144 + 25 / 60.0 + 29.52440 / 3600),
                               to: try Coordinate(latitude: -(37 + 39 / 60.0 + 10.15610 / 3600), longitude: 143 + 55 / 60.0 + 35.38390 / 3600))
        #expect(d.map { abs($0 - 54_972.271) < 1e-3 } == true, "\(String(describing: d))")
    }

    /// Two implementations written apart check each other: PROJ's (Karney) and Geodesy's
    /// (Vincenty, which the favourites use without linking PROJ).
    @Test func projAndGeodesyAgreeToAMillimetre() throws {
        var rng = SeededRandom(seed: 16)
        for i in 0..<4_000 {
            let a = try Coordinate(latitude: .random(in: -80...80, using: &rng), longitude: .random(in: -180...180, using: &rng))
            let far = i % 4 == 0 ? 5_000_000.0 : 20_000
            let b = a.destination(bearing: .random(in: 0..<360, using: &rng), distance: .random(in: 0...far, using: &rng))
            let vincenty = try #require(WGS84.distance(from: a, to: b))
            #expect(abs(Geodesic.wgs84.distance(from: a, to: b) - vincenty) < 1e-3, "\(a) → \(b)")
        }
        // Across the antimeridian, the shorter way round.
        let east = try Coordinate(latitude: 10, longitude: 179.9995), west = try Coordinate(latitude: 10, longitude: -179.9995)
        #expect(abs(try #require(WGS84.distance(from: east, to: west)) - Geodesic.wgs84.distance(from: east, to: west)) < 1e-3)
        // Nearly antipodal: no answer rather than a wrong one.
        let here = try Coordinate(latitude: 0, longitude: 0), there = try Coordinate(latitude: 0.5, longitude: 179.7)
        if let d = WGS84.distance(from: here, to: there) { #expect(abs(d - Geodesic.wgs84.distance(from: here, to: there)) < 1) }
    }
}
