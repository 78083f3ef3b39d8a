import Foundation
import Geodesy
import Services
import RoadGraph
import Testing
import TestSupport

/// `TripMeasurement` on made-up tracks, with a road that is the straight line unless a test
/// says otherwise: each rule of the billed distance on its own.
@Suite("Trip measurement: the billed distance and waiting from a cab's reports")
struct TripMeasurementTests {
    static let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    /// A point `metres` north of the Casino, `seconds` after t0.
    static func at(_ metres: Double, _ seconds: Double) -> TrackPoint {
        TrackPoint(position: Coordinate(unchecked: 43.7393 + metres / 111_195, 7.4277), time: t0.addingTimeInterval(seconds))
    }
    static let straight: @Sendable (Coordinate, Coordinate) -> Double? = { $0.distance(to: $1) }

    func measure(_ track: [TrackPoint], completedAfter seconds: Double? = nil, booked: Double? = 2_894,
                 road: @escaping (Coordinate, Coordinate) -> Double? = straight) -> TripMeasurement {
        let end = seconds.map { Self.t0.addingTimeInterval($0) } ?? track.last?.time ?? Self.t0
        return TripMeasurement.measure(track: track, pickup: Self.at(0, 0).position, destination: track.last?.position ?? Self.at(0, 0).position,
                                       completedAt: end, booked: booked, route: road)
    }

    @Test("a steady drive is billed the road between reports")
    func steadyDrive() {
        let track = (0...20).map { Self.at(Double($0) * 50, Double($0) * 5) }  // 50 m every 5 s: 36 km/h
        let m = measure(track)
        #expect(abs(Double(m.metres) - 1_000) <= 1 && m.waitingSeconds == 0 && m.reports == 20, "\(m)")
    }

    @Test("no reports: the booked route")
    func noReports() {
        for track in [[Self.at(0, 0)], []] {
            let m = measure(track)
            #expect(m.metres == 2_894 && m.waitingSeconds == 0 && m.reports == 0, "\(m)")
        }
    }

    @Test("standing still is waiting, and GPS jitter is not distance")
    func standingStill() {
        let jitter = [0.0, 4, -3, 6, -2, 1].enumerated().map { Self.at($0.element, Double($0.offset) * 5) }
        let m = measure(jitter)
        #expect(m.metres == 0 && m.waitingSeconds == 25, "\(m)")
        // A gap longer than two minutes says nothing: not waiting.
        #expect(measure([Self.at(0, 0), Self.at(2, 300)]).waitingSeconds == 0)
    }

    @Test("a route round the block between reports seconds apart is a snapping artefact: the straight line is billed")
    func snappingArtefact() {
        let a = Self.at(0, 0), b = Self.at(30, 5)
        let roundTheBlock: (Coordinate, Coordinate) -> Double? = { _, _ in 400 }
        #expect(abs(Double(measure([a, b], road: roundTheBlock).metres) - 30) <= 1)
        // Minutes apart, the cab may have gone round: the route stands.
        let later = Self.at(30, 90)
        #expect(measure([a, later], road: roundTheBlock).metres == 400)
    }

    @Test("no one is billed for a jump no cab could drive")
    func impossibleJump() {
        let m = measure([Self.at(0, 0), Self.at(5_000, 5)])
        #expect(m.metres == 180, "36 m/s for 5 s: \(m)")
    }

    @Test("a phone that went quiet before the end: the leg to the destination is added")
    func staleEnd() {
        let track = [Self.at(0, 0), Self.at(500, 50)]
        let m = TripMeasurement.measure(track: track, pickup: Self.at(0, 0).position, destination: Self.at(1_500, 0).position,
                                        completedAt: Self.t0.addingTimeInterval(400), booked: nil, route: Self.straight)
        #expect(abs(Double(m.metres) - 1_500) <= 1, "\(m)")
    }
}

extension TripMeasurementTests {
    @Test("with a matcher, a noisy track is billed the road it was driven on, not the zig-zag between reports")
    func matchedTrack() throws {
        let router = Router(network: Monaco.network)
        let route = try router.route(from: Coordinate(unchecked: 43.7393, 7.4277), to: Coordinate(unchecked: 43.7314, 7.4197))
        // A report every 60 m along the route, 5 s apart, 12 m off to alternate sides.
        var track: [TrackPoint] = [], along = 0.0, next = 0.0, side = 1.0
        for (a, b) in zip(route.geometry, route.geometry.dropFirst()) {
            let d = a.distance(to: b)
            while next <= along + d {
                let t = d > 0 ? (next - along) / d : 0
                let lat = a.latitude + t * (b.latitude - a.latitude) + side * 12 / 111_195
                track.append(TrackPoint(position: Coordinate(unchecked: lat, a.longitude + t * (b.longitude - a.longitude)),
                                        time: Self.t0.addingTimeInterval(Double(track.count) * 5)))
                side = -side
                next += 60
            }
            along += d
        }
        let matcher = Matcher(network: Monaco.network)
        let matched = TripMeasurement.measure(track: track, pickup: route.geometry[0], destination: route.geometry.last!,
                                              completedAt: track.last!.time, booked: route.distanceMetres,
                                              route: { try? router.route(from: $0, to: $1, metric: .distance).distanceMetres },
                                              match: { matcher.match($0, settings: MatchSettings(gpsSigmaMetres: 10)) })
        #expect(abs(Double(matched.metres) - route.distanceMetres) < 0.03 * route.distanceMetres, "\(matched) against \(route.distanceMetres) m")
        #expect(matched.reports == track.count - 1)
    }
}
