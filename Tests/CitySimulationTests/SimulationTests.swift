import CitySimulation
import Foundation
import TaxiDispatch
import TestSupport
import Testing

@Suite struct SimulationTests {
    /// A quarter of an hour of Monaco: the books balance, every figure is plausible, and the
    /// same seed gives the same day.
    @Test func aSimulatedQuarterHourOfMonacoBalancesAndRepeats() throws {
        let (zones, graph) = (Monaco.zones, Monaco.network)
        var config = CitySimulation.Configuration()
        config.cabs = 60; config.hours = 0.25; config.requests = 300
        let a = try CitySimulation(zones: zones, network: graph, configuration: config).run()
        let s = a.summary
        #expect(s.requests > 250 && s.requests < 350)  // Poisson around 300
        #expect(s.served + s.notServed.values.reduce(0, +) + s.refused + s.open == s.requests)
        #expect(s.served > s.requests / 2)
        #expect(s.reports == 60 * 180)  // every 5 s for 900 s
        let eta = try #require(s.pickupETA)
        #expect(eta.p50 > 0 && eta.p50 <= eta.p95 && eta.p95 <= 1800)
        // Cabs arrive when their ETA said, give or take the report interval's rounding.
        #expect(abs(try #require(s.arrivalMinusETA).mean) < 5)
        let wait = try #require(s.waitUntilAccepted)
        // Answers take 2–12 s; no offer after 2 min, and an offer out then keeps its 15 s.
        #expect(wait.p50 >= 2 && wait.p95 <= 135)
        #expect(s.offersPerRequest * Double(s.requests) >= Double(s.served))  // each served request had an offer
        // Every assignment is to a distinct cab at a time: no cab gets two passengers at once.
        var busyUntil: [String: Date] = [:]
        for r in a.decisions {
            guard case let .assigned(cab, _) = r.kind else { continue }
            if let until = busyUntil[cab] { #expect(until <= r.time) }
            busyUntil[cab] = r.time.addingTimeInterval(1)
        }
        let b = try CitySimulation(zones: zones, network: graph, configuration: config).run()
        #expect(a.decisions == b.decisions)
        #expect(a.trips.map(\.toPickup) == b.trips.map(\.toPickup) && a.trips.map(\.ride) == b.trips.map(\.ride))
        var sa = a.summary, sb = b.summary
        sa.decisionMicroseconds = nil; sb.decisionMicroseconds = nil; sa.wallSeconds = 0; sb.wallSeconds = 0
        #expect(sa == sb)
        config.seed = 43
        let c = try CitySimulation(zones: zones, network: graph, configuration: config).run()
        #expect(c.decisions != a.decisions)
    }
}
