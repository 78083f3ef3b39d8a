import CitySimulation
import Foundation
import Geodesy
import RoadGraph
import Testing
import TestSupport

/// Alternative routes on Monaco, checked apart from the code that finds them: the first is
/// the fastest route, every other is slower by at most the stretch bound, and shares at most
/// γ of its length with each other route, measured on the drawn lines by brute force.
@Suite("Alternative routes: via-node alternatives that pass the admissibility tests")
struct AlternativeRouteTests {
    /// The share of `line`'s length within 3 m of `other`, every two metres, by planar
    /// distance in a plane tangent at the line's start (written here, apart from the library).
    static func sharedShare(_ line: [Coordinate], with other: [Coordinate]) -> Double {
        guard let o = line.first else { return 1 }
        let ky = 6_371_008.8 * .pi / 180, kx = ky * cos(o.latitude * .pi / 180)
        func plane(_ c: Coordinate) -> (Double, Double) { ((c.longitude - o.longitude) * kx, (c.latitude - o.latitude) * ky) }
        let others = other.map(plane)
        func near(_ p: (Double, Double)) -> Bool {
            for (a, b) in zip(others, others.dropFirst()) {
                let dx = b.0 - a.0, dy = b.1 - a.1, len2 = dx * dx + dy * dy
                let t = len2 > 0 ? min(1, max(0, ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2)) : 0
                let ex = a.0 + t * dx - p.0, ey = a.1 + t * dy - p.1
                if ex * ex + ey * ey <= 9 { return true }
            }
            return false
        }
        var total = 0.0, shared = 0.0
        for (a, b) in zip(line.map(plane), line.map(plane).dropFirst()) {
            let d = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
            let steps = max(1, Int((d / 2).rounded(.up)))
            for k in 0..<steps {
                let t = (Double(k) + 0.5) / Double(steps)
                total += d / Double(steps)
                if near((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1))) { shared += d / Double(steps) }
            }
        }
        return total > 0 ? shared / total : 1
    }

    /// Also where turns are priced: a street driven the same way is then a different edge for
    /// each way a route came in by, and must still count as shared.
    @Test("60 random trips: the fastest first, then alternatives within 1.25× its time, each sharing at most 80 % with the others",
          arguments: [false, true])
    func admissible(turnCosts: Bool) throws {
        let network = turnCosts ? Monaco.networkWithTurnCosts : Monaco.network
        let router = Router(network: network)
        let trips = GPSTraces.trips(on: network, count: 60, seed: 11, minimumMetres: 1500)
        var found = [0, 0, 0, 0]
        for trip in trips {
            let a = trip.geometry.first!, b = trip.geometry.last!
            let routes = try router.routes(from: a, to: b, count: 3)
            found[routes.count] += 1
            let fastest = try router.route(from: a, to: b, algorithm: .dijkstra)
            #expect(routes[0].cost == fastest.cost, "the first is the fastest")
            for (i, r) in routes.enumerated().dropFirst() {
                #expect(r.cost >= fastest.cost && Double(r.cost) <= 1.25 * Double(fastest.cost) + 1, "stretch \(Double(r.cost) / Double(fastest.cost))")
                #expect(r.geometry.first == routes[0].geometry.first && r.geometry.last == routes[0].geometry.last, "same ends")
                for other in routes.prefix(i) {
                    // γ 0.8 on edge lengths; the drawn lines round the ends, so a little slack.
                    #expect(Self.sharedShare(r.geometry, with: other.geometry) <= 0.85)
                }
            }
        }
        print("routes found over \(trips.count) trips: 1 → \(found[1]), 2 → \(found[2]), 3 → \(found[3])")
        #expect(found[2] + found[3] >= trips.count / 3, "alternatives for at least a third of the trips")
    }

    @Test("one route asked is the fastest route")
    func one() throws {
        let router = Router(network: Monaco.network)
        let a = Coordinate(unchecked: 43.7393, 7.4277), b = Coordinate(unchecked: 43.7314, 7.4197)
        let routes = try router.routes(from: a, to: b, count: 1)
        let fastest = try router.route(from: a, to: b)
        #expect(routes.count == 1 && routes[0].cost == fastest.cost)
    }
}
