import Foundation
import Fleet
import Geodesy
import RoadGraph
import TaxiDispatch
import TestSupport
import Testing
import Zones

/// The specification's offer rules, each on Monaco with a virtual clock: nothing sleeps.
@Suite struct OfferTests {
    /// The zone with the most junctions, a pickup in it and places for cabs in it.
    static func home() throws -> (zone: Int, pickup: Coordinate, places: [Coordinate]) {
        let j = Monaco.junctions()
        let zone = j.indices.max { j[$0].count < j[$1].count }!
        return (zone, j[zone][0], Array(j[zone].dropFirst().enumerated().filter { $0.offset % 7 == 3 }.map(\.element)))
    }

    @Test func theFirstTaxiInTheZoneQueueIsOfferedAndADeclineGoesToTheBottom() throws {
        let h = try Harness()
        let (zone, pickup, places) = try Self.home()
        try h.cabs([("a", places[0]), ("b", places[1]), ("c", places[2])])
        #expect(h.dispatcher.queue(ofZone: zone) == ["a", "b", "c"])
        let id = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        #expect(h.lastOffer?.cab == "a" && h.lastOffer?.request == id)
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        // "placed in the bottom of the zone queue", and the request "forwarded to the next".
        #expect(h.dispatcher.queue(ofZone: zone) == ["b", "c", "a"])
        #expect(h.lastOffer?.cab == "b")
        try h.dispatcher.answer(h.lastOffer!.id, accept: true)
        guard case let .assigned(a) = try h.dispatcher.status(of: id) else { Issue.record("not assigned"); return }
        #expect(a.cab == "b" && a.eta.seconds > 0 && a.eta.seconds <= 1800)
        #expect(a.route.map { $0.durationSeconds == a.eta.seconds } == true)  // the ETA is the route's
        #expect(h.dispatcher.queue(ofZone: zone) == ["c", "a"])  // busy: out of every queue
        #expect(try h.dispatcher.fleet.cab("b").status == .busy)
    }

    @Test func anUnansweredOfferLapsesAfter15SecondsAndTheNextTaxiIsAsked() throws {
        let h = try Harness()
        let (zone, pickup, places) = try Self.home()
        try h.cabs([("a", places[0]), ("b", places[1])])
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        let first = try #require(h.lastOffer)
        #expect(first.cab == "a" && first.expires == h.now.addingTimeInterval(15))
        h.scheduler.advance(by: 14.999)
        #expect(h.offers.count == 1)
        h.scheduler.advance(by: 0.001)
        #expect(h.offers.count == 2 && h.lastOffer?.cab == "b")
        #expect(h.dispatcher.queue(ofZone: zone) == ["b", "a"])
        // The lapsed offer can no longer be accepted.
        #expect(throws: DispatchError.offerNotOutstanding(first.id)) { try h.dispatcher.answer(first.id, accept: true) }
        #expect(h.log.records.contains { $0.kind == .timedOut(cab: "a") })
    }

    @Test func aTaxiIsAskedAtMostTwiceAndTheSearchEndsAfterTwoMinutes() throws {
        let h = try Harness()
        let (_, pickup, places) = try Self.home()
        try h.cabs([("a", places[0])])
        let id = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        #expect(h.offers.map(\.cab) == ["a", "a"])  // asked again: its second time
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        h.scheduler.advance(by: 119)
        #expect(h.offers.count == 2)  // never a third time
        guard case .searching = try h.dispatcher.status(of: id) else { Issue.record("ended early"); return }
        h.scheduler.advance(by: 1)
        guard case .notServed(.noTaxiAccepted) = try h.dispatcher.status(of: id) else { Issue.record("should end at 2 min"); return }
        // The customer may ask again.
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
    }

    @Test func withNoTaxiTheRequestEndsUnservedAtTwoMinutesAndACabThatComesInTimeIsOffered() throws {
        let h = try Harness()
        let (_, pickup, places) = try Self.home()
        let lonely = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        h.scheduler.advance(by: 120)
        guard case .notServed(.noTaxiAvailable) = try h.dispatcher.status(of: lonely) else { Issue.record("not ended"); return }
        let id = try h.dispatcher.request(RideRequest(customer: "bob", pickup: pickup))
        h.scheduler.advance(by: 30)
        try h.cabs([("late", places[0])])
        // Offered the moment it joins the queue, not at the request's next retry.
        #expect(h.lastOffer?.cab == "late" && h.lastOffer?.request == id)
    }

    @Test func anOfferOutAtTheSearchLimitKeepsItsFifteenSeconds() throws {
        let h = try Harness()
        let (_, pickup, places) = try Self.home()
        let id = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        h.scheduler.advance(by: 110)
        try h.cabs([("a", places[0])])  // offered at 1:50
        let offer = try #require(h.lastOffer)
        h.scheduler.advance(by: 12)  // 2:02: past the limit, the offer still out
        guard case .searching = try h.dispatcher.status(of: id) else { Issue.record("the offer was withdrawn"); return }
        try h.dispatcher.answer(offer.id, accept: false)
        guard case .notServed(.noTaxiAccepted) = try h.dispatcher.status(of: id) else { Issue.record("no new offer after 2 min"); return }
        #expect(h.offers.count == 1)
    }

    @Test func oneOpenRequestPerCustomerAndOneOfferPerTaxi() throws {
        let h = try Harness()
        let (_, pickup, places) = try Self.home()
        try h.cabs([("a", places[0])])
        let first = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        #expect(throws: DispatchError.customerHasOpenRequest(customer: "ann", first)) {
            try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        }
        let second = try h.dispatcher.request(RideRequest(customer: "bob", pickup: pickup))
        #expect(h.offers.count == 1)  // "a" already holds ann's offer
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        #expect(h.offers.map(\.request) == [first, first])  // the next in the queue is "a" again
        try h.dispatcher.answer(h.lastOffer!.id, accept: false)
        // Asked twice by ann: free for bob at once, without waiting for his retry.
        #expect(h.offers.map(\.request) == [first, first, second] && h.lastOffer?.cab == "a")
    }

    @Test func aPickupOutsideEveryServiceAreaIsRefusedWithTheZonesMeaning() throws {
        let h = try Harness()
        let nice = Coordinate(unchecked: 43.7102, 7.2620)
        #expect(throws: DispatchError.outOfServiceArea(nice)) { try h.dispatcher.request(RideRequest(customer: "ann", pickup: nice)) }
        #expect(DispatchError.outOfServiceArea(nice).description.contains("is out of bounds of any service area"))
        #expect(throws: DispatchError.invalidSeats(0)) {
            try h.dispatcher.request(RideRequest(customer: "ann", pickup: nice, seats: 0))
        }
    }

    @Test func seatsTypesAndStatusFilterTheCandidates() throws {
        let h = try Harness()
        let (_, pickup, places) = try Self.home()
        try h.dispatcher.register([CabProfile(id: "small", type: .tataNano, seats: 3), CabProfile(id: "van", type: .sedan, seats: 6),
                                   CabProfile(id: "busy", type: .sedan, seats: 6)])
        for (i, id) in ["busy", "small", "van"].enumerated() {
            try h.dispatcher.report(cab: id, position: places[i], at: h.now)
            try h.dispatcher.setStatus(of: id, to: id == "busy" ? .busy : .available)
        }
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup, seats: 5))
        #expect(h.lastOffer?.cab == "van")
        _ = try h.dispatcher.request(RideRequest(customer: "bob", pickup: pickup, type: .tataNano))
        #expect(h.lastOffer?.cab == "small")
        _ = try h.dispatcher.request(RideRequest(customer: "cy", pickup: pickup, type: .sedan, seats: 5))
        #expect(h.offers.count == 2)  // van holds an offer, busy is busy
    }

    @Test func aStaleTaxiIsNeitherQueuedNorOffered() throws {
        let h = try Harness()
        let (zone, pickup, places) = try Self.home()
        try h.cabs([("a", places[0]), ("b", places[1])])
        h.scheduler.advance(by: 100)
        try h.dispatcher.report(cab: "b", position: places[1], at: h.now)
        h.scheduler.advance(by: 20)
        #expect(h.dispatcher.queue(ofZone: zone) == ["a", "b"])  // exactly 120 s: still fresh
        h.scheduler.advance(by: 0.001)
        #expect(h.dispatcher.queue(ofZone: zone) == ["b"])
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        #expect(h.lastOffer?.cab == "b")
    }

    @Test func candidatesBeyondTheETALimitAreDropped() throws {
        var config = Dispatcher.Configuration()
        config.maxETASeconds = 20
        let h = try Harness(configuration: config)
        let (_, pickup, places) = try Self.home()
        let router = Router(network: Monaco.network)
        let times = try places.map { try router.route(from: $0, to: pickup).durationSeconds }
        let far = try #require(places.indices.first { times[$0] > 20 }), near = try #require(places.indices.first { times[$0] <= 20 })
        try h.cabs([("far", places[far]), ("near", places[near])])
        _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        #expect(h.lastOffer?.cab == "near")
    }

    @Test func neighbouringZonesAreSearchedWhenThePickupsZoneHasNoCandidateUnlessSwitchedOff() throws {
        let zones = Monaco.zones
        let (zone, pickup, _) = try Self.home()
        let neighbour = try #require(zones.adjacency[zone].first)
        let place = Monaco.junctions()[neighbour][0]
        for enabled in [true, false] {
            var config = Dispatcher.Configuration()
            config.neighbourZones = enabled
            let h = try Harness(configuration: config)
            try h.cabs([("next-door", place)])
            _ = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
            #expect((h.lastOffer?.cab == "next-door") == enabled)
        }
    }

    @Test func cancellingWithdrawsTheOutstandingOffer() throws {
        let h = try Harness()
        let (zone, pickup, places) = try Self.home()
        try h.cabs([("a", places[0])])
        let id = try h.dispatcher.request(RideRequest(customer: "ann", pickup: pickup))
        let offer = try #require(h.lastOffer)
        try h.dispatcher.cancel(id)
        #expect(h.notes.all.contains { if case let .offerWithdrawn(o) = $0 { o == offer } else { false } })
        #expect(throws: DispatchError.offerNotOutstanding(offer.id)) { try h.dispatcher.answer(offer.id, accept: true) }
        #expect(throws: DispatchError.requestEnded(id)) { try h.dispatcher.cancel(id) }
        #expect(h.dispatcher.queue(ofZone: zone) == ["a"])
    }
}
