import Foundation
import Essentials
import Fleet
import Geodesy
import RoadGraph
import TaxiDispatch
import Testing
import TestSupport

/// The built-in policies on one scenario, each with the outcome the specifications
/// predict, and the hooks.
@Suite struct PolicyTests {
    /// Three cabs in the pickup's zone, queued in an order that is neither the fastest nor
    /// the shortest by road, with the expected winners computed from one-to-one routes.
    static func scenario() throws -> (pickup: Coordinate, cabs: [(String, Coordinate)], fastest: String, shortest: String) {
        let (_, pickup, places) = try OfferTests.home()
        let router = Router(network: Monaco.network)
        let routes = try places.map { try router.route(from: $0, to: pickup) }
        // The fastest, the shortest, and a slow one to stand first in the queue.
        let fastest = routes.indices.min { routes[$0].durationSeconds < routes[$1].durationSeconds }!
        let shortest = routes.indices.min { routes[$0].distanceMetres < routes[$1].distanceMetres }!
        let slow = routes.indices.max { routes[$0].durationSeconds < routes[$1].durationSeconds }!
        var order = [slow]
        for i in [shortest, fastest] where !order.contains(i) { order.append(i) }
        if order.count < 3 { order.append(places.indices.first { !order.contains($0) }!) }
        return (pickup, order.map { ("cab\($0)", places[$0]) }, "cab\(fastest)", "cab\(shortest)")
    }

    @Test func eachBuiltInPolicyOffersTheCabTheSpecificationsPredict() throws {
        let (pickup, cabs, fastest, shortest) = try Self.scenario()
        let expected: [(any DispatchPolicy, String)] = [
            (ZoneQueuePolicy(), cabs[0].0),  // "the first taxi driver in the zone queue"
            (FastestArrivalPolicy(), fastest),  // BR1: "the fastest arrival time"
            (NearestByRoadPolicy(), shortest),
        ]
        for (policy, winner) in expected {
            let h = try Harness(policy: policy)
            try h.cabs(cabs)
            _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
            #expect(h.lastOffer?.cab == winner, "\(type(of: policy))")
        }
    }

    /// A backend's own ordering through the protocol: the last in the queue first.
    struct LastInQueueFirst: DispatchPolicy {
        var gathering: CandidateGathering { .queueOrder }
        func rank(_ candidates: inout [Candidate], for request: RideRequest) { candidates.sort { $0.queueOrder > $1.queueOrder } }
    }

    @Test func aBackendSuppliesItsOwnPolicy() throws {
        let (pickup, cabs, _, _) = try Self.scenario()
        let h = try Harness(policy: LastInQueueFirst())
        try h.cabs(cabs)
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        #expect(h.lastOffer?.cab == cabs.last!.0)
    }

    @Test func hooksAdjustTheSelectionReplaceTheDecisionAndOverrideTheQueue() throws {
        let (pickup, cabs, _, _) = try Self.scenario()
        let seen = NotificationCounter()
        let hooks = DispatchHooks(
            adjustSelection: { request, p in if request.customer == "vip" { p.minimumSeats = 7 } },
            reservation: { request, candidates in
                seen.add(candidates.count)
                return request.customer == "picky" ? .offer(candidateIndex: 1) : request.customer == "later" ? .hold : .proceed
            },
            placementAfterDecline: { _, _ in .unchanged })
        let h = try Harness(hooks: hooks)
        try h.cabs(cabs)
        let (zone, _, _) = try OfferTests.home()
        _ = try h.dispatcher.request(RideRequest(customer: "vip", pickup: pickup))
        #expect(h.offers.isEmpty)  // no cab has 7 seats
        _ = try h.dispatcher.request(RideRequest(customer: "later", pickup: pickup))
        #expect(h.offers.isEmpty)  // held by the hook
        _ = try h.dispatcher.request(RideRequest(customer: "picky", pickup: pickup))
        #expect(h.lastOffer?.cab == cabs[1].0)  // the hook chose the second
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        #expect(h.dispatcher.queue(ofZone: zone).first(where: { $0 != h.lastOffer?.cab }) == cabs[0].0)
        #expect(h.dispatcher.queue(ofZone: zone).contains(cabs[1].0))
        #expect(h.dispatcher.queue(ofZone: zone).last != cabs[1].0)  // not sent to the bottom
        #expect(seen.total > 0)
    }
}

/// `Sendable`: its one field is behind `Locked`.
final class NotificationCounter: Sendable {
    private let sum = Locked(0)
    func add(_ n: Int) { sum.withLock { $0 += n } }
    var total: Int { sum.withLock { $0 } }
}

/// A nearest-first policy in a crowded zone gathers through the fleet's R-tree instead of
/// walking the queue: the candidates must still be exactly the eligible cabs of the zone
/// nearest the pickup, checked against a brute-force haversine ranking.
@Suite struct CrowdedZoneTests {
    @Test func theSpatialGatheringFindsTheNearestEligibleCabsOfTheZone() throws {
        var config = Dispatcher.Configuration()
        config.maxCandidates = 5
        let h = try Harness(configuration: config, policy: FastestArrivalPolicy())
        let (zone, pickup, _) = try OfferTests.home()
        let zones = Monaco.zones
        let all = Monaco.junctions()
        // 120 cabs at the pickup zone's junctions farthest from the pickup, and 40 at the
        // neighbouring zones' junctions nearest it: the nearest cabs are not the zone's.
        let byDistance = { (c: [Coordinate]) in c.sorted { $0.distance(to: pickup) < $1.distance(to: pickup) } }
        let mine = byDistance(Array(all[zone].dropFirst())).suffix(120)
        let theirs = byDistance(zones.adjacency[zone].flatMap { all[$0] }).prefix(40)
        let places = Array(mine) + Array(theirs)
        try h.cabs(places.enumerated().map { ("cab\($0.offset)", $0.element) })
        try h.dispatcher.setStatus(of: "cab1", to: .busy)  // not eligible
        h.scheduler.advance(by: 0.1)  // the fleet publishes: the R-tree holds them all
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        guard case let .candidates(cabs, _) = try #require(h.log.records.first(where: {
            if case .candidates = $0.kind { true } else { false } })?.kind) else { return }
        let eligible = mine.indices.map { $0 - mine.startIndex }.filter { $0 != 1 }
        let expected = eligible.sorted {
            (IndependentGeodesy.haversineMetres(places[$0].latitude, places[$0].longitude, pickup.latitude, pickup.longitude), $0)
                < (IndependentGeodesy.haversineMetres(places[$1].latitude, places[$1].longitude, pickup.latitude, pickup.longitude), $1)
        }.prefix(5).map { "cab\($0)" }
        #expect(Set(cabs) == Set(expected))
        #expect(cabs.count == 5)
    }
}
