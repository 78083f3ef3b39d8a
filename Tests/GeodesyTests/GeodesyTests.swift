import Foundation
import Testing
@testable import Geodesy

@Suite struct CoordinateTests {
    @Test func validCoordinatesAreKept() throws {
        let c = try Coordinate(latitude: 43.7384, longitude: 7.4246)
        #expect(c.latitude == 43.7384 && c.longitude == 7.4246)
        _ = try Coordinate(latitude: 90, longitude: 180)
        _ = try Coordinate(latitude: -90, longitude: -180)
    }

    @Test func impossibleCoordinatesAreTypedErrors() {
        #expect(throws: CoordinateError.latitudeOutOfRange(90.0001)) { try Coordinate(latitude: 90.0001, longitude: 0) }
        #expect(throws: CoordinateError.longitudeOutOfRange(-180.5)) { try Coordinate(latitude: 0, longitude: -180.5) }
        #expect(throws: CoordinateError.self) { try Coordinate(latitude: .nan, longitude: 0) }
        #expect(throws: CoordinateError.self) { try Coordinate(latitude: 0, longitude: .infinity) }
    }

    @Test func parsesLatLonText() throws {
        let c = try Coordinate(parsing: "40.758, -73.9855")
        #expect(c.latitude == 40.758 && c.longitude == -73.9855)
        #expect(throws: CoordinateError.self) { try Coordinate(parsing: "40.7") }
        #expect(throws: CoordinateError.self) { try Coordinate(parsing: "north,east") }
        #expect(throws: CoordinateError.self) { try Coordinate(parsing: "95,0") }
    }

    /// Seven decimals, checked against printf's own rounding of the same values.
    @Test func sevenDecimalsMatchPrintf() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<10_000 {
            let v = Double.random(in: -180...180, using: &rng)
            #expect(Coordinate.sevenDecimals(v) == Double(String(format: "%.7f", v))!, "\(v)")
        }
        #expect(Coordinate.sevenDecimals(7.42781234) == 7.4278123 && Coordinate.sevenDecimals(-73.98550006) == -73.9855001)
        #expect(Coordinate.sevenDecimals(.infinity) == .infinity && Coordinate.sevenDecimals(.nan).isNaN)
    }
}

@Suite struct DistanceTests {
    @Test func haversineMatchesAKnownDistance() throws {
        // Paris (Notre-Dame) to London (St Paul's): 343,357.92 m on the mean sphere (an
        // independent haversine in Python, R = 6,371,008.8 m).
        let paris = try Coordinate(latitude: 48.8530, longitude: 2.3499)
        let london = try Coordinate(latitude: 51.5138, longitude: -0.0984)
        #expect(abs(paris.distance(to: london) - 343_357.92) < 0.01)
        #expect(paris.distance(to: paris) == 0)
        #expect(abs(paris.distance(to: london) - london.distance(to: paris)) < 1e-6)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() throws {
        let a = try Coordinate(latitude: 0, longitude: 179.9995)
        let b = try Coordinate(latitude: 0, longitude: -179.9995)
        #expect(abs(a.distance(to: b) - 111.2) < 0.5)
    }

    @Test func bearingsPointTheRightWay() throws {
        let o = try Coordinate(latitude: 0, longitude: 0)
        #expect(abs(o.initialBearing(to: try Coordinate(latitude: 1, longitude: 0)) - 0) < 1e-9)
        #expect(abs(o.initialBearing(to: try Coordinate(latitude: 0, longitude: 1)) - 90) < 1e-9)
        #expect(abs(o.initialBearing(to: try Coordinate(latitude: -1, longitude: 0)) - 180) < 1e-9)
        #expect(abs(o.initialBearing(to: try Coordinate(latitude: 0, longitude: -1)) - 270) < 1e-9)
    }

    @Test func destinationInvertsDistanceAndBearing() throws {
        let start = try Coordinate(latitude: 60.1699, longitude: 24.9384)
        for bearing in stride(from: 0.0, to: 360, by: 22.5) {
            let end = start.destination(bearing: bearing, distance: 1_500)
            #expect(abs(start.distance(to: end) - 1_500) < 1e-6)
            let b = start.initialBearing(to: end)
            #expect(min(abs(b - bearing), 360 - abs(b - bearing)) < 1e-6)
        }
        // Crossing the antimeridian wraps the longitude.
        let east = try Coordinate(latitude: 0, longitude: 179.99).destination(bearing: 90, distance: 5_000)
        #expect(east.longitude < -179.9)
    }
}

@Suite struct LocalFrameTests {
    @Test func roundTripsAndMeasuresLikeHaversine() throws {
        let origin = try Coordinate(latitude: 40.75, longitude: -73.98)
        let frame = LocalFrame(origin: origin)
        let p = try Coordinate(latitude: 40.80, longitude: -73.90)
        let back = frame.unproject(frame.project(p))
        #expect(abs(back.latitude - p.latitude) < 1e-12 && abs(back.longitude - p.longitude) < 1e-12)
        let planar = frame.project(origin).distance(to: frame.project(p))
        #expect(abs(planar - origin.distance(to: p)) / origin.distance(to: p) < 0.003)
    }

    @Test func staysContinuousAcrossTheAntimeridian() throws {
        let frame = LocalFrame(origin: try Coordinate(latitude: -17, longitude: 179.99))
        let p = frame.project(try Coordinate(latitude: -17, longitude: -179.99))
        #expect(p.x > 0 && p.x < 3_000)
    }
}

@Suite struct PolylineTests {
    @Test func encodesGooglesExample() throws {
        let path = [try Coordinate(latitude: 38.5, longitude: -120.2),
                    try Coordinate(latitude: 40.7, longitude: -120.95),
                    try Coordinate(latitude: 43.252, longitude: -126.453)]
        #expect(Polyline.encode(path) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@")
        let decoded = try #require(Polyline.decode("_p~iF~ps|U_ulLnnqC_mqNvxq`@"))
        #expect(decoded == path)
    }

    @Test func refusesBrokenText() {
        #expect(Polyline.decode("_p~iF~ps|U_") == nil)
        #expect(Polyline.decode("\u{7f}") == nil)
        #expect(Polyline.decode("") == [])
    }
}

@Suite struct BoundingBoxTests {
    @Test func growsAndContains() throws {
        let box = try #require(BoundingBox(around: [try Coordinate(latitude: 1, longitude: 2),
                                                    try Coordinate(latitude: -1, longitude: 5)]))
        #expect(try box == BoundingBox(south: -1, west: 2, north: 1, east: 5))
        #expect(box.contains(try Coordinate(latitude: 1, longitude: 5)))
        #expect(!box.contains(try Coordinate(latitude: 1.1, longitude: 5)))
        #expect(BoundingBox(around: [Coordinate]()) == nil)
    }
}

@Suite struct BoundingBoxErrorTests {
    @Test func badSidesAreTypedErrorsNotTraps() {
        #expect(throws: BoundingBoxError.self) { try BoundingBox(south: .nan, west: 0, north: 1, east: 1) }
        #expect(throws: BoundingBoxError.self) { try BoundingBox(south: 0, west: 0, north: 91, east: 1) }
        #expect(throws: BoundingBoxError.outOfOrder(south: 2, west: 0, north: 1, east: 1)) {
            try BoundingBox(south: 2, west: 0, north: 1, east: 1)
        }
        #expect(throws: BoundingBoxError.self) { try BoundingBox(south: 0, west: 5, north: 1, east: -5) }
    }
}
