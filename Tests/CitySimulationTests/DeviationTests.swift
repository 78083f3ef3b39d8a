import CitySimulation
import Foundation
import Geodesy
import RoadGraph
import Testing
import TestSupport

/// Route deviation against the simulator's truth: drivers shown a route through Monaco who
/// take a wrong turn at a given rate, their phones reporting with GPS noise, followed report
/// by report (`RouteFollower`). Where each cab truly was is known, so when it left the route
/// is measured apart from the follower, by brute force (`GPSTraces.metres(from:to:)`).
@Suite("Route deviation: drivers who take wrong turns, followed report by report")
struct DeviationTests {
    /// What one followed drive gave: the report of the first deviation, the report by which
    /// the cab was truly off the route, and how many deviations in all.
    struct Outcome { var caughtAt: Int?; var leftAt: Int?; var firstOff: Int?; var deviations: Int; var arrived = false; var remaining = 0.0 }

    /// Follows one drive: `path` taking `seconds`, shown `route`, reports every `interval`
    /// with noise `sigma`.
    static func follow(path: [Coordinate], seconds: Double, shown route: Route, interval: Double, sigma: Double, seed: UInt64,
                       matcher: Matcher) -> Outcome {
        var random = SeededRandom(seed: seed)
        let reports = GPSTraces.reports(along: path, durationSeconds: seconds, every: interval, noiseMetres: 0, using: &random)
        var follower = RouteFollower(route: route, to: route.geometry.last!, settings: FollowSettings(gpsSigmaMetres: max(5, sigma)))
        var outcome = Outcome(deviations: 0)
        for (k, truth) in reports.enumerated() {
            // The truth: how far the cab really is from the route it was shown.
            let off = GPSTraces.metres(from: truth.coordinate, to: route.geometry)
            if off > 3, outcome.firstOff == nil { outcome.firstOff = k }
            if off > max(30, 4 * sigma), outcome.leftAt == nil { outcome.leftAt = k }
            var noisy = truth
            noisy.coordinate = GPSTraces.displaced(truth.coordinate, sigma: sigma, using: &random)
            switch follower.observe(noisy, matcher: matcher) {
            case .deviated, .deviatedWithoutRoute:
                if outcome.caughtAt == nil { outcome.caughtAt = k }
            default: break
            }
        }
        outcome.deviations = follower.deviations
        outcome.arrived = follower.hasArrived
        outcome.remaining = follower.remainingMetres
        return outcome
    }

    @Test("one driver in two takes a wrong turn: every one caught by the second report off the route, none on the clean trips",
          arguments: [(sigma: 5.0, interval: 5.0), (sigma: 10.0, interval: 5.0), (sigma: 5.0, interval: 2.0)])
    func everyWrongTurnCaughtAndNoneInvented(sigma: Double, interval: Double) throws {
        let matcher = Matcher(network: Monaco.network)
        var random = SeededRandom(seed: 7)
        var wrong = 0, clean = 0, caught = 0, falseAlarms = 0, lags: [Int] = []
        for (n, route) in GPSTraces.trips(on: Monaco.network, count: 60, seed: 11, minimumMetres: 1200).enumerated() {
            let takesWrongTurn = Double.random(in: 0..<1, using: &random) < 0.5, turnAt = Double.random(in: 0.2...0.7, using: &random)
            if takesWrongTurn, let detour = GPSTraces.wrongTurn(on: Monaco.network, from: route, at: turnAt,
                                                                 seed: UInt64(n)) {
                wrong += 1
                let o = Self.follow(path: detour.path, seconds: detour.durationSeconds, shown: route, interval: interval, sigma: sigma,
                                    seed: UInt64(n), matcher: matcher)
                guard let leftAt = o.leftAt, let firstOff = o.firstOff else {
                    Issue.record("trip \(n): the detour never left the route by \(max(30, 4 * sigma)) m"); continue
                }
                if let at = o.caughtAt {
                    // Not before the cab turns: at most two reports before it is 3 m off the route
                    // (the reports of the turn itself).
                    #expect(at >= firstOff - 2, "trip \(n): deviation at report \(at), before the cab left the route (report \(firstOff))")
                    #expect(at <= leftAt + 1, "trip \(n): deviation at report \(at), the cab was off the route by report \(leftAt)")
                    caught += 1
                    lags.append(at - firstOff)
                } else {
                    Issue.record("trip \(n): the wrong turn (off the route from report \(firstOff)) was never caught")
                }
            } else {
                clean += 1
                let o = Self.follow(path: route.geometry, seconds: route.durationSeconds, shown: route, interval: interval, sigma: sigma,
                                    seed: UInt64(n), matcher: matcher)
                #expect(o.arrived, "trip \(n): the clean trip never arrived (\(o.remaining) m left)")
                if o.deviations > 0 {
                    falseAlarms += 1
                    Issue.record("trip \(n): a clean trip reported \(o.deviations) deviation(s), the first at report \(o.caughtAt ?? -1)")
                }
            }
        }
        print("σ \(sigma) m every \(interval) s: \(caught) of \(wrong) wrong turns caught, reports after leaving \(lags.sorted()); \(falseAlarms) false alarms on \(clean) clean trips")
        #expect(wrong >= 10 && clean >= 10)
    }

    @Test("after a deviation the follower's route starts where the cab is and ends where the shown one did")
    func reroutesFromWhereTheCabIs() throws {
        let matcher = Matcher(network: Monaco.network)
        // Guards, not #require: a failed #require prints the whole network.
        let drives = GPSTraces.trips(on: Monaco.network, count: 10, seed: 11, minimumMetres: 1500).lazy.compactMap { route in
            GPSTraces.wrongTurn(on: Monaco.network, from: route, at: 0.4, seed: 1).map { (route, $0) }
        }
        guard let (route, detour) = drives.first else {
            Issue.record("no wrong turn off the route"); return
        }
        var random = SeededRandom(seed: 2)
        var follower = RouteFollower(route: route, to: route.geometry.last!)
        for report in GPSTraces.reports(along: detour.path, durationSeconds: detour.durationSeconds, every: 5, noiseMetres: 5, using: &random) {
            if case let .deviated(at) = follower.observe(report, matcher: matcher) {
                #expect(follower.route.geometry.first!.distance(to: at) < 30)
                #expect(follower.route.geometry.last!.distance(to: route.geometry.last!) < 1)
                #expect(follower.metresAlong == 0 && follower.remainingMetres == follower.route.distanceMetres)
                return
            }
        }
        Issue.record("no deviation")
    }

    @Test("a cab waiting 30 m off its road (a rank, a car park) stays on its route however often it reports")
    func aCabOffTheRoadIsNotOffItsRoute() throws {
        let matcher = Matcher(network: Monaco.network), router = Router(network: Monaco.network)
        var tried = 0
        for route in GPSTraces.trips(on: Monaco.network, count: 20, seed: 21, minimumMetres: 1000) {
            let start = route.geometry[0], next = route.geometry[1]
            // 30 m square to the road at the start, on whichever side has no other road nearer.
            let east = (next.longitude - start.longitude) * cos(start.latitude * .pi / 180), north = next.latitude - start.latitude
            let norm = (east * east + north * north).squareRoot()
            guard norm > 0 else { continue }
            for side in [1.0, -1.0] {
                let d = 30.0 / 111_195 * side
                let parked = Coordinate(unchecked: start.latitude + d * east / norm,
                                        start.longitude - d * north / norm / cos(start.latitude * .pi / 180))
                // Only where the nearest road is the route's own: else it is not "off its road".
                guard let nearest = router.candidates(of: parked, within: 60, count: 1).first, nearest.metres > 25,
                      GPSTraces.metres(from: nearest.coordinate, to: route.geometry) < 1 else { continue }
                tried += 1
                var follower = RouteFollower(route: route, to: route.geometry.last!, settings: FollowSettings(gpsSigmaMetres: 5))
                for k in 0..<20 { _ = follower.observe(TracePoint(parked, time: Double(k) * 5), matcher: matcher) }
                #expect(follower.deviations == 0, "a cab parked \(nearest.metres) m off the road by its route left it \(follower.deviations) times")
            }
        }
        #expect(tried >= 3, "only \(tried) places 30 m off a route's road with no other road nearer")
    }
}
