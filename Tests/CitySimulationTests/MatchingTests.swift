import CitySimulation
import Foundation
import Geodesy
import RoadGraph
import Testing
import TestSupport

/// Map matching against the truth: traces made from known routes through Monaco, with the
/// noise and report intervals of phones in a city, matched back and compared with the
/// route they came from (Newson and Krumm's mismatch fraction, measured by brute force in
/// `GPSTraces`, apart from the matcher).
@Suite("Map matching: traces from known routes matched back to them")
struct MatchingTests {
    /// Routes between random junctions of Monaco, at least `minimumMetres` long.
    static func routes(_ count: Int, seed: UInt64, minimumMetres: Double = 1000) -> [Route] {
        GPSTraces.trips(on: Monaco.network, count: count, seed: seed, minimumMetres: minimumMetres)
    }

    /// A line's length by haversine, apart from the library's geodesy.
    static func length(_ line: [Coordinate]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + IndependentGeodesy.haversineMetres($1.0.latitude, $1.0.longitude, $1.1.latitude, $1.1.longitude) }
    }

    static func trace(_ route: Route, every interval: Double, sigma: Double, seed: UInt64) -> [TracePoint] {
        var random = SeededRandom(seed: seed)
        return GPSTraces.reports(along: route.geometry, durationSeconds: route.durationSeconds, every: interval, noiseMetres: sigma,
                                 using: &random)
    }

    /// The bounds sit a little above what the matcher reaches (README, "Map matching"), so a
    /// change that makes it worse fails here.
    @Test("40 routes at each noise and interval: the mismatch and the billed distance's error stay within bounds",
          arguments: [(sigma: 5.0, interval: 5.0, median: 0.003, mean: 0.006),
                      (sigma: 15.0, interval: 5.0, median: 0.015, mean: 0.04),
                      (sigma: 15.0, interval: 1.0, median: 0.03, mean: 0.05),
                      (sigma: 15.0, interval: 30.0, median: 0.025, mean: 0.08),
                      (sigma: 30.0, interval: 5.0, median: 0.05, mean: 0.1)])
    func matchesBackToTheTruth(sigma: Double, interval: Double, median: Double, mean: Double) {
        let matcher = Matcher(network: Monaco.network)
        var fractions: [Double] = [], distanceErrors: [Double] = [], breaks = 0
        for (n, route) in Self.routes(40, seed: 1).enumerated() {
            let trace = Self.trace(route, every: interval, sigma: sigma, seed: UInt64(n))
            let m = matcher.match(trace, settings: MatchSettings(gpsSigmaMetres: sigma))
            breaks += m.breaks.count
            fractions.append(GPSTraces.mismatchFraction(truth: route.geometry, matched: m.pieces))
            distanceErrors.append(abs(m.distanceMetres - Self.length(route.geometry)) / Self.length(route.geometry))
        }
        fractions.sort()
        distanceErrors.sort()
        // Every trip was driven without a gap; one break in 40 is a report sequence no route
        // explains within the time (σ 15 m every second in Cap-d'Ail), a break rather than a guess.
        #expect(breaks <= 1, "\(breaks) breaks")
        print("σ \(sigma) m every \(interval) s: mismatch median \(fractions[fractions.count / 2]), mean \(fractions.reduce(0, +) / Double(fractions.count)); distance error median \(distanceErrors[distanceErrors.count / 2])")
        #expect(fractions[fractions.count / 2] <= median, "median mismatch \(fractions[fractions.count / 2])")
        #expect(fractions.reduce(0, +) / Double(fractions.count) <= mean, "mean mismatch \(fractions.reduce(0, +) / Double(fractions.count))")
        #expect(distanceErrors[distanceErrors.count / 2] <= 2 * median, "median distance error \(distanceErrors[distanceErrors.count / 2])")
    }

    @Test("a trace without noise is matched to its route: the same streets, the same length within 0.5 %")
    func cleanTraces() {
        let matcher = Matcher(network: Monaco.network)
        for (n, route) in Self.routes(10, seed: 2).enumerated() {
            let m = matcher.match(Self.trace(route, every: 5, sigma: 0, seed: UInt64(n)), settings: MatchSettings(gpsSigmaMetres: 3))
            #expect(GPSTraces.mismatchFraction(truth: route.geometry, matched: m.pieces) < 0.002, "route \(n)")
            #expect(abs(m.distanceMetres - Self.length(route.geometry)) < 0.005 * Self.length(route.geometry), "route \(n): \(m.distanceMetres) against \(Self.length(route.geometry))")
            #expect(abs(m.durationSeconds - route.durationSeconds) < 0.005 * route.durationSeconds + 1, "route \(n)")
        }
    }

    @Test("each report lies on the matched track near where it was, with an edge of the graph and a confidence in 0…1")
    func pointsLieOnTheTrack() {
        let matcher = Matcher(network: Monaco.network)
        let settings = MatchSettings(gpsSigmaMetres: 15)
        for (n, route) in Self.routes(5, seed: 3).enumerated() {
            let trace = Self.trace(route, every: 2, sigma: 15, seed: UInt64(n))
            let m = matcher.match(trace, settings: settings)
            #expect(m.points.count == trace.count)
            #expect(m.points.allSatisfy { $0 != nil }, "route \(n): every report of a clean drive is matched")
            for (report, point) in zip(trace, m.points) {
                guard let point else { continue }
                #expect(abs(report.coordinate.distance(to: point.coordinate) - point.metresFromReport) < 0.5)
                #expect(point.metresFromReport <= settings.searchRadiusMetres + 1)
                #expect((0...1).contains(point.confidence))
                #expect((0..<Monaco.network.edgeCount).contains(point.edge))
                let c = point.coordinate
                let nearest = m.pieces.flatMap { line in
                    zip(line, line.dropFirst()).map {
                        IndependentGeodesy.metresToSegment(c.latitude, c.longitude, from: ($0.latitude, $0.longitude), to: ($1.latitude, $1.longitude))
                    }
                }.min() ?? .infinity
                #expect(nearest < 1, "route \(n): a matched point \(nearest) m off the track")
            }
        }
    }

    @Test("a report far from every road is an outlier; a jump no cab could drive is a break, not a detour")
    func outliersAndBreaks() throws {
        let matcher = Matcher(network: Monaco.network)
        let routes = Self.routes(2, seed: 4, minimumMetres: 1500)
        var first = Self.trace(routes[0], every: 5, sigma: 5, seed: 1)
        // Out at sea, a kilometre from the shore.
        first.insert(TracePoint(Coordinate(unchecked: 43.735, 7.445), time: first[5].time), at: 6)
        let alone = matcher.match(first, settings: MatchSettings(gpsSigmaMetres: 5))
        #expect(alone.points[6] == nil)
        #expect(alone.breaks.isEmpty)
        #expect(GPSTraces.mismatchFraction(truth: routes[0].geometry, matched: alone.pieces) < 0.02)
        // The second trip one second after the first ends, wherever it starts.
        let end = try #require(first.last?.time)
        let second = Self.trace(routes[1], every: 5, sigma: 5, seed: 2).map { TracePoint($0.coordinate, time: ($0.time ?? 0) + end + 1) }
        let both = matcher.match(first + second, settings: MatchSettings(gpsSigmaMetres: 5))
        #expect(both.breaks == [first.count])
        #expect(both.pieces.count == 2)
        let expected = Self.length(routes[0].geometry) + Self.length(routes[1].geometry)
        #expect(abs(both.distanceMetres - expected) / expected < 0.03, "\(both.distanceMetres) against \(expected)")
    }

    @Test("a report too near the last one weighed takes its place on the track, unless the track is farther than the search radius: then it is an outlier")
    func reportsTooNearToWeigh() throws {
        let matcher = Matcher(network: Monaco.network)
        // σ 20 m: reports within 100 m (5σ) and 10 s of the last one weighed are not
        // weighed; the search radius is 80 m (4σ).
        let settings = MatchSettings(gpsSigmaMetres: 20)
        var checked = 0
        for (n, route) in Self.routes(6, seed: 7).enumerated() {
            let clean = Self.trace(route, every: 5, sigma: 0, seed: UInt64(n))
            let a = clean[0], ahead = clean[1]
            guard let far = clean.firstIndex(where: { $0.coordinate.distance(to: a.coordinate) > 150 }), far + 1 < clean.count else { continue }
            let across = a.coordinate.initialBearing(to: ahead.coordinate) + 90
            func trace(offset: Double) -> [TracePoint] {
                let off = TracePoint(a.coordinate.destination(bearing: across, distance: offset), time: (a.time ?? 0) + 1)
                return [a, off] + clean[1...far]
            }
            func trackDistance(_ m: MapMatch, _ c: Coordinate) -> Double {
                m.pieces.flatMap { line in
                    zip(line, line.dropFirst()).map {
                        IndependentGeodesy.metresToSegment(c.latitude, c.longitude, from: ($0.latitude, $0.longitude), to: ($1.latitude, $1.longitude))
                    }
                }.min() ?? .infinity
            }
            let near = trace(offset: 30), wide = trace(offset: 92)
            let nearMatch = matcher.match(near, settings: settings), wideMatch = matcher.match(wide, settings: settings)
            // Only where the street runs straight enough that the offsets say what they mean.
            guard trackDistance(nearMatch, near[1].coordinate) < 40, trackDistance(wideMatch, wide[1].coordinate) > 85 else { continue }
            let point = try #require(nearMatch.points[1], "route \(n): a report 30 m off lies on the track")
            #expect(abs(point.metresFromReport - trackDistance(nearMatch, near[1].coordinate)) < 1)
            #expect(wideMatch.points[1] == nil, "route \(n): a report 92 m off the track is an outlier")
            #expect(wideMatch.points.enumerated().allSatisfy { $0.offset == 1 || $0.element != nil })
            checked += 1
        }
        #expect(checked >= 2)
    }

    @Test("an empty trace matches nothing; one report is one point on the road")
    func tinyTraces() {
        let matcher = Matcher(network: Monaco.network)
        let none = matcher.match([])
        #expect(none.points.isEmpty && none.pieces.isEmpty && none.distanceMetres == 0)
        let one = matcher.match([TracePoint(Monaco.network.coordinate(ofNode: 10))])
        #expect(one.points.count == 1 && one.points[0] != nil && one.distanceMetres == 0 && one.pieces.count == 1)
    }
}
