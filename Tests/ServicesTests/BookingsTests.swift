import CityModel
import Fares
import CitySimulation
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing

/// A harness with the Monaco city's bookings on its store and clock.
struct BookingRig {
    let h: Harness
    let bookings: Bookings
    let admin: String

    init?(_ engine: Engine, settings: BookingSettings = BookingSettings()) async throws {
        guard let h = try Harness(engine) else { return nil }
        self.h = h
        bookings = try Bookings(store: h.store, city: Monaco.city(settings), scheduler: h.clock)
        admin = try await h.adminSession()
    }

    /// A driver on shift in a sedan at `position`, available.
    func driver(_ n: Int, at position: Coordinate) async throws -> Int64 {
        let d = try await h.driver(n, adminSession: admin).id
        try await bookings.startShift(driver: d, cab: CabProfile(id: "cab-\(n)", type: .sedan, seats: 4))
        try bookings.report(driver: d, position: position, at: h.clock.now())
        try bookings.setAvailable(driver: d, true)
        return d
    }

    /// A passenger with `balance` paise in the wallet.
    func passenger(_ n: Int, balance: Int64 = 0) async throws -> Int64 {
        let p = try await h.passenger(n).id
        if balance > 0 {
            _ = try await h.wallet.refill(passenger: p, amount: balance, paymentToken: "tok_visa", key: .random())
        }
        return p
    }

    func request(_ p: Int64, from: Coordinate = Monaco.casino, to: Coordinate = Monaco.palace, payment: PaymentMethod = .wallet) -> BookingRequest {
        BookingRequest(passenger: p, pickup: from, destination: to, cabType: .sedan, payment: payment)
    }

    /// Passenger `n` (with 100,000 in the wallet) booked now from the Casino to the Palace,
    /// driver `n` at `at` accepted, arrived and started the trip.
    func startedTrip(_ n: Int, driverAt at: Coordinate) async throws -> (passenger: Int64, driver: Int64, booking: Booking) {
        let p = try await passenger(n, balance: 100_000)
        let d = try await driver(n, at: at)
        let booked = try await bookings.bookNow(request(p), key: IdempotencyKey("trip-\(n)"))
        try await accept(d)
        try await bookings.arrived(booked.number, driver: d)
        try await bookings.started(booked.number, driver: d)
        return (p, d, booked)
    }

    /// Accepts the one outstanding offer of `driver`.
    func accept(_ driver: Int64) async throws {
        let offers = bookings.offers(for: driver)
        try #require(offers.count == 1, "offers: \(offers)")
        try await bookings.answer(offer: offers[0].id, driver: driver, accept: true)
    }

    /// Outbox messages of a kind, as written (not yet sent).
    func outbox(_ kind: NotificationKind) throws -> [[String: String]] {
        try h.store.blockingRead { c in
            try c.query("SELECT payload FROM outbox WHERE kind = ? ORDER BY id", [.text(kind.rawValue)]).map {
                try JSONDecoder().decode([String: String].self, from: Data(try $0.string("payload").utf8))
            }
        }
    }
}

@Suite("Bookings now and later, tracking, history, fares, feedback (000 UC05–07, 13, 14, 19, 22–24; 001; 004)")
struct BookingsTests {
    func key(_ s: String) throws -> IdempotencyKey { try IdempotencyKey(s) }

    @Test("book now: the accepting cab is allocated, tracked, and the trip paid from the hold with waiting and the first-ride promotion",
          arguments: Engine.allCases)
    func bookNowEndToEnd(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(1, balance: 100_000)
        let d = try await r.driver(1, at: Monaco.portHercule)
        let estimate = try await r.bookings.estimate(r.request(p))
        let booked = try await r.bookings.bookNow(r.request(p), key: key("b1"))
        #expect(booked.state == .requested && booked.kind == .now && booked.estimate == estimate.total && estimate.discount > 0)
        #expect((100_000...999_999).contains(booked.number))
        #expect(try await r.h.wallet.balance(of: p) == WalletBalance(available: 100_000 - booked.estimate, held: booked.estimate))
        // The driver is offered the booking, with its pickup, and accepts.
        let offer = try #require(r.bookings.offers(for: d).first)
        #expect(offer.booking == booked.number && offer.pickup.distance(to: Monaco.casino) < 1 && offer.etaSeconds > 0)
        try await r.accept(d)
        let allocated = try await r.bookings.booking(booked.number, for: p)
        #expect(allocated.state == .allocated && allocated.cab == "cab-1" && allocated.driver == d && (allocated.etaSeconds ?? 0) > 0)
        #expect(try r.outbox(.cabAllocated).map { $0["booking"] } == ["\(booked.number)"])
        // Tracking: the cab's reported position, the road to the pickup and its time.
        let t = try await r.bookings.track(booked.number, for: p)
        #expect(t.cabPosition == Monaco.portHercule && t.remainingRoute.count > 1 && (t.etaSeconds ?? 0) > 0)
        #expect(t.remainingRoute.last!.distance(to: Monaco.casino) < 50)
        try await r.bookings.arrived(booked.number, driver: d)
        r.h.clock.advance(by: 15 * 60)  // 15 minutes at the pickup: 5 past the free 10
        try await r.bookings.started(booked.number, driver: d)
        let startedTrack = try await r.bookings.track(booked.number, for: p)
        #expect(startedTrack.remainingRoute.last!.distance(to: Monaco.palace) < 50)
        let invoice = try await r.bookings.complete(booked.number, driver: d, trip: TripReport(metres: 2_345), key: key("c1"))
        // No report during the trip: billed the route it was estimated on, not the meter's
        // 2,345 m (which is within the tolerance: no review of the meter).
        #expect(invoice.billedMetres > 2_000 && invoice.meterMetres == 2_345 && invoice.review?.contains("meter") == false, "\(invoice)")
        #expect(invoice.distance == estimate.distance && invoice.distance == (1200 * invoice.billedMetres + 500) / 1000)
        // The fare, by hand: 5000 + the distance + one started half hour of waiting (5000);
        // 10 % off for the first ride.
        let charged = 5000 + invoice.distance + 5000
        #expect(invoice.base == 5000 && invoice.waiting == 5000 && invoice.tolls == 0)
        #expect(invoice.discount == (charged * 10 + 50) / 100 && invoice.total == charged - invoice.discount)
        // The waiting took the fare above the estimate plus 50 %: the wallet paid that much,
        // and the rest waits for the passenger's confirmation.
        let cap = booked.estimate * 150 / 100
        #expect(invoice.total > cap && invoice.walletPaid == cap && invoice.awaitingConfirmation == invoice.total - cap)
        #expect(invoice.method == "wallet" && invoice.cashPaid == 0)
        #expect(invoice.commission == (invoice.walletPaid * 20 + 50) / 100)
        #expect(try await r.h.wallet.balance(of: p) == WalletBalance(available: 100_000 - cap, held: 0))
        #expect(try await r.bookings.confirmFare(booked.number, for: p, key: key("f1")) == invoice.awaitingConfirmation)
        #expect(try await r.bookings.confirmFare(booked.number, for: p, key: key("f1")) == invoice.awaitingConfirmation)
        #expect(try await r.h.wallet.balance(of: p) == WalletBalance(available: 100_000 - invoice.total, held: 0))
        try r.h.expectSoundLedger()
        // Repeated completion: the first invoice.
        #expect(try await r.bookings.complete(booked.number, driver: d, trip: TripReport(metres: 2_345), key: key("c1")) == invoice)
        #expect(try r.bookings.dispatcher.fleet.cab("cab-1").status == .available)
        let history = try await r.bookings.history(of: booked.number, for: p)
        #expect(history.map(\.state) == [.requested, .allocated, .arrived, .started, .completed, .completed])
        #expect(history[5].detail == "the passenger confirmed \(invoice.awaitingConfirmation) more")
        #expect(history[3].time.timeIntervalSince(history[2].time) == 15 * 60)
        let none = try await r.bookings.pending(for: p)
        #expect(none.bookings.isEmpty && none.message == "No Pending Cabs for Passenger")
        #expect(try await r.bookings.previous(for: p).bookings.map(\.number) == [booked.number])
        // The second ride pays full price.
        let again = try await r.bookings.estimate(r.request(p))
        #expect(again.discount == 0 && again.total > estimate.total)
        try r.h.expectSoundLedger()
    }

    @Test("a booking names the route chosen among those offered: priced on it, kept with the booking, refused when not offered",
          arguments: Engine.allCases)
    func bookingOnAChosenRoute(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(1, balance: 100_000)
        let offered = try Router(network: Monaco.network).routes(from: Monaco.casino, to: Monaco.palace, count: 3)
        try #require(offered.count >= 2, "Monaco offers \(offered.count) route(s) from the Casino to the Palace")
        var request = r.request(p)
        request.route = 1
        let estimate = try await r.bookings.estimate(request)
        #expect(estimate.distance == (1200 * Int64(offered[1].distanceMetres.rounded()) + 500) / 1000, "\(estimate)")
        let booked = try await r.bookings.bookNow(request, key: key("b1"))
        #expect(booked.route == 1 && booked.estimate == estimate.total)
        #expect(try await r.bookings.booking(booked.number, for: p).route == 1)
        for choice in [offered.count, -1, 7] {
            request.route = choice
            do {
                _ = try await r.bookings.estimate(request)
                Issue.record("route \(choice) was priced")
            } catch {
                guard case let .invalid(field, _) = error else { Issue.record("\(error)"); continue }
                #expect(field == "route", "\(error)")
            }
        }
    }

    @Test("a cab that leaves the trip's route is noticed by the second report off it: re-routed, the tracking answer and the history say so",
          arguments: Engine.allCases)
    func deviationWhileTracked(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let (p, d, booked) = try await r.startedTrip(1, driverAt: Monaco.casino)
        // The route the passenger was shown, and a drive that leaves it (the simulator's).
        let shown = try Router(network: Monaco.network).route(from: Monaco.casino, to: Monaco.palace)
        let detour = try #require((1...30).lazy.compactMap { GPSTraces.wrongTurn(on: Monaco.network, from: shown, at: 0.4, seed: UInt64($0)) }.first)
        var caughtAt: Int?, firstOff: Int?
        var random = SeededRandom(seed: 1)
        let reports = GPSTraces.reports(along: detour.path, durationSeconds: detour.durationSeconds, every: 5, noiseMetres: 5, using: &random)
        for (k, report) in reports.enumerated() {
            r.h.clock.advance(by: 5)
            try r.bookings.report(driver: d, position: report.coordinate, at: r.h.clock.now())
            let truth = detour.position(at: report.time ?? 0)
            if firstOff == nil, GPSTraces.metres(from: truth, to: shown.geometry) > 3 { firstOff = k }
            let t = try await r.bookings.track(booked.number, for: p)
            if caughtAt == nil, t.deviations > 0 {
                caughtAt = k
                #expect(t.routeChangedAt == r.h.clock.now())
                #expect(t.remainingRoute.first!.distance(to: truth) < 40 && t.remainingRoute.last!.distance(to: Monaco.palace) < 50)
            }
        }
        let off = try #require(firstOff), caught = try #require(caughtAt, "the wrong turn was not noticed")
        // The history gets the deviations with the owner's next positions (every 2 s).
        #expect(try await r.bookings.history(of: booked.number, for: p).allSatisfy { !$0.detail.hasPrefix("left the route") })
        try await r.bookings.persistPositions()
        #expect(caught >= off - 2 && caught <= off + 4, "noticed at report \(caught); off the route from report \(off)")
        let notes = try await r.bookings.history(of: booked.number, for: p).filter { $0.detail.hasPrefix("left the route") }
        #expect(notes.count >= 1 && notes.allSatisfy { $0.state == .started }, "\(notes)")
        #expect(try await r.bookings.drivenTrack(of: booked.number, for: p).isEmpty)  // not before completion
        _ = try await r.bookings.complete(booked.number, driver: d, trip: TripReport(metres: 3_000), key: key("c1"))
        // The matched track is kept with the trip: the detour, not the route shown.
        let driven = try await r.bookings.drivenTrack(of: booked.number, for: p)
        let mismatch = GPSTraces.mismatchFraction(truth: detour.path, matched: driven)
        #expect(!driven.isEmpty && mismatch < 0.05, "mismatch \(mismatch) against the road driven")
        #expect(GPSTraces.mismatchFraction(truth: shown.geometry, matched: driven) > mismatch)
        // The trip is over: its cab's reports are not followed any more.
        try r.bookings.report(driver: d, position: Monaco.portHercule, at: r.h.clock.now())
        #expect(try await r.bookings.history(of: booked.number, for: p).filter { $0.detail.hasPrefix("left the route") }.count == notes.count)
    }

    @Test("book now with no cab in reach ends not served with the reason, and the hold is released", arguments: Engine.allCases)
    func bookNowNotServed(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(2, balance: 50_000)
        let b = try await r.bookings.bookNow(r.request(p), key: key("n1"))
        r.h.clock.advance(by: 121)  // the 2-minute search limit
        let ended = try await r.bookings.booking(b.number, for: p)
        #expect(ended.state == .notServed && ended.reason == "no cab could reach the pickup within the ETA limit")
        #expect(try await r.h.wallet.balance(of: p) == WalletBalance(available: 50_000, held: 0))
        #expect(try r.outbox(.bookingNotServed).first?["reason"] == ended.reason)
        #expect(try await r.bookings.history(of: b.number, for: p).map(\.state) == [.requested, .notServed])
        // Outside every service area: the specification's words, nothing stored.
        await #expect(throws: ServiceError.invalid(field: "pickup", reason: "present location is out of bounds of any service area")) {
            _ = try await r.bookings.bookNow(r.request(p, from: Monaco.nice), key: key("n2"))
        }
        #expect(try await r.bookings.previous(for: p).bookings.count == 1)
        try r.h.expectSoundLedger()
    }

    @Test("book later: 30 minutes to 3 days ahead, ±30 minutes conflicts, change and cancel until allocation 20 minutes before",
          arguments: Engine.allCases)
    func bookLater(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(3, balance: 200_000)
        let now = r.h.clock.now()
        await #expect(throws: ServiceError.invalid(field: "pickupTime", reason: "must be at least 30 minutes ahead")) {
            _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(29 * 60 + 59), key: key("l0"))
        }
        await #expect(throws: ServiceError.invalid(field: "pickupTime", reason: "must be at most 3 days ahead")) {
            _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(3 * 86_400 + 1), key: key("l0"))
        }
        let soonest = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(30 * 60), key: key("l1"))
        let latest = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(3 * 86_400), key: key("l2"))
        #expect(soonest.kind == .later && soonest.state == .requested && latest.state == .requested)
        // ±30 minutes of another booking, inclusive, is refused; 30 min 1 s is not.
        let middle = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(2 * 86_400), key: key("l3"))
        for offset in [-30 * 60, 0, 30 * 60] as [TimeInterval] {
            await #expect(throws: ServiceError.conflict("already a booking exists")) {
                _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(2 * 86_400 + offset), key: .random())
            }
        }
        _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(2 * 86_400 + 30 * 60 + 1), key: key("l5"))
        // Booking now collides with the one in 30 minutes.
        await #expect(throws: ServiceError.conflict("already a booking exists")) { _ = try await r.bookings.bookNow(r.request(p), key: key("l6")) }
        // Change: a new destination and time; the hold follows the new estimate.
        let heldBefore = try await r.h.wallet.balance(of: p).held
        let changed = try await r.bookings.change(middle.number, for: p, BookingChange(destination: Monaco.stadium,
                                                  pickupTime: now.addingTimeInterval(2 * 86_400 - 3600)), key: key("l7"))
        let expected = try await r.bookings.estimate(r.request(p, to: Monaco.stadium)).total
        #expect(changed.destination.distance(to: Monaco.stadium) < 0.01 && changed.estimate == expected && expected != middle.estimate)
        #expect(try await r.h.wallet.balance(of: p).held == heldBefore - middle.estimate + changed.estimate)
        // Cancel: the hold is released.
        let cancelled = try await r.bookings.cancel(latest.number, for: p, key: key("l8"))
        #expect(cancelled.state == .cancelled)
        #expect(try await r.h.wallet.balance(of: p).held == heldBefore - middle.estimate + changed.estimate - latest.estimate)
        // Allocation 20 minutes before: nothing is due yet; 10 minutes later the first is.
        let d = try await r.driver(3, at: Monaco.portHercule)
        #expect(try await r.bookings.runDue() == 0)
        r.h.clock.advance(by: 10 * 60)
        try r.bookings.report(driver: d, position: Monaco.portHercule, at: r.h.clock.now())  // drivers report every few seconds
        #expect(try await r.bookings.runDue() == 1)
        try await r.accept(d)
        #expect(try await r.bookings.booking(soonest.number, for: p).state == .allocated)
        #expect(try r.outbox(.pickupNotice).map { $0["booking"] } == ["\(soonest.number)"])
        await #expect(throws: ServiceError.conflict("booking \(soonest.number) is already allocated")) {
            _ = try await r.bookings.cancel(soonest.number, for: p, key: key("l9"))
        }
        await #expect(throws: ServiceError.conflict("booking \(soonest.number) is already allocated")) {
            _ = try await r.bookings.change(soonest.number, for: p, BookingChange(destination: Monaco.stadium), key: key("l10"))
        }
        let pending = try await r.bookings.pending(for: p)
        #expect(pending.message == nil && pending.bookings.map(\.pickupTime) == pending.bookings.map(\.pickupTime).sorted(by: >))
        // The cab comes 18 minutes early and the passenger boards 5 minutes after the time
        // booked: waiting counts from the time booked, so the 5 minutes are free (counted
        // from the arrival, 23 minutes would cost a block).
        r.h.clock.advance(by: 2 * 60)
        try await r.bookings.arrived(soonest.number, driver: d)
        r.h.clock.advance(by: 23 * 60)
        try await r.bookings.started(soonest.number, driver: d)
        let invoice = try await r.bookings.complete(soonest.number, driver: d, trip: TripReport(metres: 2_000), key: key("l11"))
        #expect(invoice.waiting == 0 && invoice.total > 0)
        try r.h.expectSoundLedger()
    }

    @Test("the seeds' other rules are settings: 001 wants 2 hours ahead, 004 allows a week")
    func perCitySettings() async throws {
        guard let r = try await BookingRig(.sqlite, settings: .specification001) else { return }
        let p = try await r.passenger(4, balance: 100_000)
        let now = r.h.clock.now()
        await #expect(throws: ServiceError.invalid(field: "pickupTime", reason: "must be at least 120 minutes ahead")) {
            _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(3600), key: .random())
        }
        _ = try await r.bookings.bookLater(r.request(p), at: now.addingTimeInterval(2 * 3600), key: .random())
        #expect(BookingSettings.specification004.maximumLead == 7 * 86_400 && BookingSettings.specification004.allocateBefore == 600)
    }

    @Test("booking ids are six random digits, unique, with no order to guess", arguments: Engine.allCases)
    func bookingNumbers(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(5, balance: 0)
        var numbers: [Int] = []
        let start = r.h.clock.now()
        for k in 0..<120 {  // an hour apart, within the 3 days
            let b = try await r.bookings.bookLater(r.request(p, payment: .cash), at: start.addingTimeInterval(3600 + Double(k) * 1900), key: .random())
            numbers.append(b.number)
        }
        #expect(Set(numbers).count == numbers.count && numbers.allSatisfy { (100_000...999_999).contains($0) })
        // Sequential ids would rise every time; random ones rise about half the time.
        let rises = zip(numbers, numbers.dropFirst()).filter { $0 < $1 }.count
        #expect((35...85).contains(rises), "\(rises) rises in 119 steps")
    }

    @Test("booking numbers never run out: when the configured space is full, numbers come from one ten times larger", arguments: Engine.allCases)
    func numbersNeverRunOut(engine: Engine) async throws {
        var settings = BookingSettings()
        settings.numberSpace = 100_000...100_004
        guard let r = try await BookingRig(engine, settings: settings) else { return }
        var numbers: [Int] = []
        for n in 1...8 {
            let p = try await r.passenger(40 + n, balance: 100_000)
            numbers.append(try await r.bookings.bookNow(r.request(p), key: .random()).number)
        }
        #expect(Set(numbers).count == 8)
        // The first from the configured space; at least the last three, and any whose 32
        // draws missed the space's last free numbers, from the next.
        #expect((100_000...100_004).contains(numbers[0]) && numbers.allSatisfy { (100_000...1_000_049).contains($0) }, "\(numbers)")
        #expect(numbers.filter { $0 > 100_004 }.count >= 3, "\(numbers)")
    }

    @Test("a passenger sees only their own bookings; a driver answers only their own offers", arguments: Engine.allCases)
    func ownership(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(6, balance: 50_000), q = try await r.passenger(7, balance: 50_000)
        let d1 = try await r.driver(6, at: Monaco.portHercule), d2 = try await r.driver(7, at: Monaco.stadium)
        let b = try await r.bookings.bookNow(r.request(p), key: key("o1"))
        for call in [{ _ = try await r.bookings.booking(b.number, for: q) },
                     { _ = try await r.bookings.cancel(b.number, for: q, key: .random()) },
                     { _ = try await r.bookings.track(b.number, for: q) },
                     { _ = try await r.bookings.history(of: b.number, for: q) }] as [@Sendable () async throws -> Void] {
            await #expect(throws: ServiceError.notFound("booking \(b.number)")) { try await call() }
        }
        let offered = [d1, d2].first { !r.bookings.offers(for: $0).isEmpty }!
        let other = offered == d1 ? d2 : d1
        let offer = r.bookings.offers(for: offered)[0]
        await #expect(throws: ServiceError.forbidden("offer \(offer.id) is another driver's")) {
            try await r.bookings.answer(offer: offer.id, driver: other, accept: true)
        }
        await #expect(throws: ServiceError.notFound("booking \(b.number)")) { try await r.bookings.arrived(b.number, driver: other) }
        // The same key with the same request: the same booking, one hold; with another request: refused.
        let again = try await r.bookings.bookNow(r.request(p), key: key("o1"))
        let held = try await r.h.wallet.balance(of: p).held
        #expect(again.number == b.number && held == b.estimate)
        await #expect(throws: ServiceError.idempotencyKeyReused("o1")) {
            _ = try await r.bookings.bookNow(r.request(p, to: Monaco.stadium), key: key("o1"))
        }
    }

    @Test("a short wallet pays cash: the driver collects the fare and owes the commission; tolls are on the invoice",
          arguments: Engine.allCases)
    func cashAndTolls(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(8, balance: 1_000)
        let d = try await r.driver(8, at: Monaco.portHercule)
        let b = try await r.bookings.bookNow(r.request(p), key: key("k1"))
        #expect(b.payment == .cash && b.reason == "the wallet holds 1000, less than the estimate: pay cash")
        try await r.accept(d)
        try await r.bookings.arrived(b.number, driver: d)
        try await r.bookings.started(b.number, driver: d)
        let invoice = try await r.bookings.complete(b.number, driver: d, trip: TripReport(metres: 10_000, tollWays: [101431181, 101431177]),
                                                    key: key("k2"))
        // The booked route (no reports), not the meter's 10 km, which is flagged: 5000 + the
        // distance, 10 % off; the La Turbie toll once, undiscounted.
        let charged = 5000 + (1200 * invoice.billedMetres + 500) / 1000
        #expect(invoice.review?.hasPrefix("meter 10000 m, track \(invoice.billedMetres) m") == true, "\(invoice)")
        #expect(invoice.tolls == 30_000 && invoice.discount == (charged * 10 + 50) / 100 && invoice.total == charged - invoice.discount + 30_000)
        #expect(invoice.method == "cash" && invoice.cashPaid == invoice.total && invoice.walletPaid == 0)
        #expect(try await r.h.wallet.balance(of: p) == WalletBalance(available: 1_000, held: 0))
        try r.h.expectSoundLedger()
    }

    @Test("feedback once per completed booking, ratings 1 to 5; history older than two years is purged", arguments: Engine.allCases)
    func feedbackAndRetention(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(9, balance: 100_000)
        let d = try await r.driver(9, at: Monaco.portHercule)
        let b = try await r.bookings.bookNow(r.request(p), key: .random())
        await #expect(throws: ServiceError.conflict("booking \(b.number) is not completed")) {
            try await r.bookings.giveFeedback(Feedback(driver: 5, cab: 5, experience: 5), on: b.number, for: p)
        }
        try await r.accept(d)
        try await r.bookings.arrived(b.number, driver: d)
        try await r.bookings.started(b.number, driver: d)
        _ = try await r.bookings.complete(b.number, driver: d, trip: TripReport(metres: 3_000), key: .random())
        for (f, field) in [(Feedback(driver: 0, cab: 5, experience: 5), "driver"), (Feedback(driver: 5, cab: 6, experience: 5), "cab"),
                           (Feedback(driver: 5, cab: 5, experience: -1), "experience")] {
            await #expect(throws: ServiceError.invalid(field: field, reason: "must be a rating from 1 to 5")) {
                try await r.bookings.giveFeedback(f, on: b.number, for: p)
            }
        }
        await #expect(throws: ServiceError.invalid(field: "comment", reason: "must be at most 500 characters")) {
            try await r.bookings.giveFeedback(Feedback(driver: 5, cab: 4, experience: 3, comment: String(repeating: "x", count: 501)), on: b.number, for: p)
        }
        try await r.bookings.giveFeedback(Feedback(driver: 5, cab: 4, experience: 3, comment: "Quick; clean'); DROP TABLE feedback;--"), on: b.number, for: p)
        await #expect(throws: ServiceError.conflict("feedback for booking \(b.number) was already given")) {
            try await r.bookings.giveFeedback(Feedback(driver: 1, cab: 1, experience: 1), on: b.number, for: p)
        }
        #expect(try await r.bookings.feedback(on: b.number, for: p)?.comment == "Quick; clean'); DROP TABLE feedback;--")
        // Two years on, the trip is still kept; a day later it is gone, history and all.
        r.h.clock.advance(by: 730 * 86_400)
        #expect(try await r.bookings.purgeHistory() == 0)
        r.h.clock.advance(by: 86_400)
        #expect(try await r.bookings.purgeHistory() == 1)
        await #expect(throws: ServiceError.notFound("booking \(b.number)")) { _ = try await r.bookings.booking(b.number, for: p) }
        try r.h.expectSoundLedger()
    }

    @Test("a new process resumes: cabs on shift rejoin and open searches are searched again", arguments: Engine.allCases)
    func resume(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(10, balance: 100_000)
        _ = try await r.driver(10, at: Monaco.portHercule)
        let b = try await r.bookings.bookNow(r.request(p), key: .random())
        // The process stops; another starts on the same store.
        let next = try Bookings(store: r.h.store, city: Monaco.city(), scheduler: r.h.clock)
        try await next.resume()
        #expect(try next.dispatcher.fleet.cab("cab-10").status == .unattended)
        let d = try #require(try await r.h.store.read { c in try c.first("SELECT driver_id FROM cab_drivers", [])?.int64("driver_id") })
        try next.report(driver: d, position: Monaco.portHercule, at: r.h.clock.now())
        try next.setAvailable(driver: d, true)
        let offer = try #require(next.offers(for: d).first)
        #expect(offer.booking == b.number)
        try await next.answer(offer: offer.id, driver: d, accept: true)
        #expect(try await next.booking(b.number, for: p).state == .allocated)
    }

    @Test("replicas: the lease goes to one claimant at a time, and a replica writes dispatch outcomes only under the lease's current token", arguments: Engine.allCases)
    func leaseAndFence(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let start = r.h.clock.now()
        let a = CityLease(store: r.h.store, city: "Monaco", owner: "replica-a", url: "http://a")
        let b = CityLease(store: r.h.store, city: "Monaco", owner: "replica-b", url: "http://b")
        let first = try await a.claim(now: start)
        #expect(first.owner == "replica-a" && first.token == 1)
        #expect(try await b.claim(now: start.addingTimeInterval(1)).owner == "replica-a", "held: B cannot take it")
        #expect(try await a.claim(now: start.addingTimeInterval(2)).token == 1, "renewed: same token")
        let taken = try await b.claim(now: start.addingTimeInterval(5.1))
        #expect(taken.owner == "replica-b" && taken.token == 2 && taken.url == "http://b", "lapsed: B takes it, the token goes up")

        // This process is replica A, fenced at its old token 1: its allocation is refused.
        r.bookings.fence(city: "Monaco", token: 1)
        let p = try await r.passenger(20, balance: 100_000)
        let d = try await r.driver(20, at: Monaco.portHercule)
        let booking = try await r.bookings.bookNow(r.request(p), key: .random())
        try await r.accept(d)
        #expect(try await r.bookings.booking(booking.number, for: p).state == .requested, "no allocation under a lapsed lease")
        // Under the current token the outcome kept aside is written.
        r.bookings.fence(city: "Monaco", token: 2)
        _ = try await r.bookings.runDue()
        #expect(try await r.bookings.booking(booking.number, for: p).state == .allocated)
    }

    @Test("a former owner fenced at its old token claims no due booking and writes no position; the current owner does", arguments: Engine.allCases)
    func fenceOnEveryOwnerWrite(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let start = r.h.clock.now()
        _ = try await CityLease(store: r.h.store, city: "Monaco", owner: "replica-a", url: "http://a").claim(now: start)
        let taken = try await CityLease(store: r.h.store, city: "Monaco", owner: "replica-b", url: "http://b").claim(now: start.addingTimeInterval(10))
        #expect(taken.token == 2)
        let p = try await r.passenger(21, balance: 100_000)
        _ = try await r.driver(21, at: Monaco.portHercule)
        let later = try await r.bookings.bookLater(r.request(p), at: start.addingTimeInterval(45 * 60), key: .random())
        r.h.clock.advance(by: 30 * 60)  // the booking falls due (20 minutes before its pickup)
        func dispatched() async throws -> Int {
            try await r.h.store.read { c in try c.first("SELECT dispatched FROM bookings WHERE number = ?", [.integer(Int64(later.number))])!.int("dispatched") }
        }
        func positions() async throws -> Int {
            try await r.h.store.read { c in try c.first("SELECT COUNT(*) AS n FROM cab_positions")!.int("n") }
        }
        // Replica A, paused past its lease, still thinks it owns the city: refused, nothing written.
        r.bookings.fence(city: "Monaco", token: 1)
        await #expect(throws: ServiceError.self) { _ = try await r.bookings.runDue() }
        await #expect(throws: ServiceError.self) { try await r.bookings.persistPositions() }
        let (claimedByA, writtenByA) = (try await dispatched(), try await positions())
        #expect(claimedByA == 0 && writtenByA == 0)
        #expect(try await r.bookings.booking(later.number, for: p).state == .requested)
        // Under the current token both go through.
        r.bookings.fence(city: "Monaco", token: 2)
        #expect(try await r.bookings.runDue() == 1)
        try await r.bookings.persistPositions()
        let (claimedByB, writtenByB) = (try await dispatched(), try await positions())
        #expect(claimedByB == 1 && writtenByB == 1)
    }

    @Test("a replica taking over starts with the cabs where the last owner wrote them down: a recent, available cab is offered at once", arguments: Engine.allCases)
    func resumeFromPersistedPositions(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(30, balance: 100_000)
        _ = try await r.driver(30, at: Monaco.portHercule)
        try await r.bookings.persistPositions()
        // The owner dies; the next one resumes from the store alone, before any report.
        let next = try Bookings(store: r.h.store, city: Monaco.city(), scheduler: r.h.clock)
        try await next.resume()
        let cab = try next.dispatcher.fleet.cab("cab-30")
        #expect(cab.status == .available)
        let position = try #require(cab.position)
        #expect(position.distance(to: Monaco.portHercule) < 0.05, "the position as written, to 1e-7 degrees")
        let b = try await next.bookNow(r.request(p), key: .random())
        let d = try #require(try await r.h.store.read { c in try c.first("SELECT driver_id FROM cab_drivers", [])?.int64("driver_id") })
        #expect(next.offers(for: d).first?.booking == b.number, "offered with no new report")
    }

    @Test("a pickup in the service area but outside every taxi zone is still served, from the nearest queues")
    func pickupOutsideEveryZone() async throws {
        guard let r = try await BookingRig(.sqlite) else { return }
        let network = Monaco.network
        let zoneless = try #require((0..<network.nodeCount).lazy.map { network.coordinate(ofNode: $0) }.first {
            (try? Monaco.zones.serviceArea(containing: $0))?.name == "Beausoleil" && Monaco.zones.zoneIndex(longitude: $0.longitude, latitude: $0.latitude) < 0 && $0.distance(to: Monaco.palace) > 500
        })
        let p = try await r.passenger(11, balance: 100_000)
        let d = try await r.driver(11, at: Monaco.portHercule)
        let b = try await r.bookings.bookNow(r.request(p, from: zoneless), key: .random())
        try await r.accept(d)
        #expect(try await r.bookings.booking(b.number, for: p).state == .allocated)
    }
}
