import Essentials
import Fleet
import Foundation
import Geodesy
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing

/// Whole trips booked, allocated, driven and paid by several passengers at once, on both
/// stores: every trip lands once, and the money adds up. On PostgreSQL this is the case
/// that once failed (every settlement updates the company's accounts, and concurrent
/// `SERIALIZABLE` transactions aborted each other past every retry). Also run under
/// ThreadSanitizer (scripts/test.sh).
@Suite("BookingConcurrencyTests: whole trips from concurrent passengers on both stores")
struct BookingConcurrencyTests {
    struct Trip: Sendable { var passenger: Int64; var invoice: TripInvoice }

    @Test("4 passengers book, ride and pay 5 trips each at once; all complete and the ledger balances", arguments: Engine.allCases)
    func concurrentTrips(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let offers = Locked<[Int: DriverOffer]>([:])
        let bookings = try Bookings(store: h.store, city: Monaco.city(), scheduler: h.clock,
                                    offers: { o in offers.withLock { $0[o.booking] = o } })
        let admin = try await h.adminSession()
        let places = [Monaco.casino, Monaco.palace, Monaco.stadium, Monaco.portHercule]
        for n in 1...8 {
            let d = try await h.driver(n, adminSession: admin).id
            try await bookings.startShift(driver: d, cab: CabProfile(id: "cab-\(n)", type: .sedan, seats: 4))
            try bookings.report(driver: d, position: places[n % places.count], at: h.clock.now())
            try bookings.setAvailable(driver: d, true)
        }
        let workers = 4, tripsEach = 5, topUp: Int64 = 500_000
        var passengers: [Int64] = []
        for n in 1...workers {
            let p = try await h.passenger(n).id
            _ = try await h.wallet.refill(passenger: p, amount: topUp, paymentToken: "tok_visa", key: .random())
            passengers.append(p)
        }
        let riders = passengers
        let trips: [Trip] = try await withThrowingTaskGroup(of: [Trip].self) { group in
            for w in 0..<workers {
                group.addTask {
                    var out: [Trip] = []
                    for t in 0..<tripsEach {
                        let from = places[(w + t) % places.count], to = places[(w + t + 1) % places.count]
                        let b = try await bookings.bookNow(BookingRequest(passenger: riders[w], pickup: from, destination: to, cabType: .sedan),
                                                           key: try IdempotencyKey("book-\(w)-\(t)"))
                        let offer = try #require(offers.withLock { $0.removeValue(forKey: b.number) }, "booking \(b.number) got no offer")
                        try await bookings.answer(offer: offer.id, driver: offer.driver, accept: true)
                        try await bookings.arrived(b.number, driver: offer.driver)
                        try await bookings.started(b.number, driver: offer.driver)
                        let metres = Int64(from.distance(to: to) * 1.4)
                        let invoice = try await bookings.complete(b.number, driver: offer.driver, trip: TripReport(metres: metres),
                                                                  key: try IdempotencyKey("complete-\(w)-\(t)"))
                        out.append(Trip(passenger: riders[w], invoice: invoice))
                    }
                    return out
                }
            }
            var all: [Trip] = []
            for try await part in group { all += part }
            return all
        }

        #expect(trips.count == workers * tripsEach)
        #expect(Set(trips.map(\.invoice.booking)).count == trips.count, "every booking number is its own")
        for trip in trips {
            let b = try await bookings.booking(trip.invoice.booking, for: trip.passenger)
            #expect(b.state == .completed && b.fare == trip.invoice.total)
        }
        let audit = try LedgerAudit.run(on: h.store)
        #expect(audit.isSound, "\(audit)")
        #expect(audit.totalDebitsPending == 0, "every hold was settled")
        for p in riders {
            let paid = trips.filter { $0.passenger == p }.reduce(Int64(0)) { $0 + $1.invoice.walletPaid }
            #expect(try await h.wallet.balance(of: p) == WalletBalance(available: topUp - paid, held: 0))
        }
        let revenue = try await h.store.read { c in
            try c.first("SELECT CAST(SUM(credits_posted - debits_posted) AS BIGINT) AS b FROM ledger_accounts WHERE id LIKE 'revenue:%'")!.int64("b")
        }
        #expect(revenue == trips.reduce(0) { $0 + $1.invoice.commission })
    }

    /// The rules the booking path keeps with row locks rather than `SERIALIZABLE`, each hit
    /// by many calls at once: a passenger's bookings take turns on the passenger's row, and a
    /// booking's changes on the booking's row.
    @Test("at once: six bookings by one passenger leave one; a trip completed twice with two keys is paid once", arguments: Engine.allCases)
    func rulesUnderConcurrency(engine: Engine) async throws {
        guard let h = try Harness(engine) else { return }
        let offers = Locked<[Int: DriverOffer]>([:])
        let bookings = try Bookings(store: h.store, city: Monaco.city(), scheduler: h.clock,
                                    offers: { o in offers.withLock { $0[o.booking] = o } })
        let admin = try await h.adminSession()
        let d = try await h.driver(1, adminSession: admin).id
        try await bookings.startShift(driver: d, cab: CabProfile(id: "cab-1", type: .sedan, seats: 4))
        try bookings.report(driver: d, position: Monaco.casino, at: h.clock.now())
        try bookings.setAvailable(driver: d, true)
        let p = try await h.passenger(1).id
        _ = try await h.wallet.refill(passenger: p, amount: 500_000, paymentToken: "tok_visa", key: .random())

        // Six bookings for now, each with its own key: the conflict rule (no two within 30
        // minutes) reads bookings no call has locked, so only the passenger's row keeps it.
        let outcomes: [Int?] = await withTaskGroup(of: Int?.self) { group in
            for k in 0..<6 {
                group.addTask {
                    try? await bookings.bookNow(BookingRequest(passenger: p, pickup: Monaco.casino, destination: Monaco.palace, cabType: .sedan),
                                                key: try IdempotencyKey("book-at-once-\(k)")).number
                }
            }
            var all: [Int?] = []
            for await o in group { all.append(o) }
            return all
        }
        let booked = outcomes.compactMap { $0 }
        #expect(booked.count == 1, "one booking stands, the others are refused: \(outcomes)")
        let number = try #require(booked.first)
        let offer = try #require(offers.withLock { $0.removeValue(forKey: number) })
        try await bookings.answer(offer: offer.id, driver: d, accept: true)
        try await bookings.arrived(number, driver: d)
        try await bookings.started(number, driver: d)

        // The driver's phone completes the trip four times at once, with four keys: one
        // completes it, the others find it completed; the wallet is charged once.
        let completions: [TripInvoice?] = await withTaskGroup(of: TripInvoice?.self) { group in
            for k in 0..<4 {
                group.addTask {
                    try? await bookings.complete(number, driver: d, trip: TripReport(metres: 2_000), key: try IdempotencyKey("complete-at-once-\(k)"))
                }
            }
            var all: [TripInvoice?] = []
            for await o in group { all.append(o) }
            return all
        }
        let invoices = completions.compactMap { $0 }
        #expect(invoices.count == 1, "one completion, the others refused")
        let invoice = try #require(invoices.first)
        #expect(try await h.wallet.balance(of: p) == WalletBalance(available: 500_000 - invoice.walletPaid, held: 0))
        let audit = try LedgerAudit.run(on: h.store)
        #expect(audit.isSound && audit.totalDebitsPending == 0, "\(audit)")
    }

    @Test("the path from the dispatcher to an offer stays as deep on the 40th booking as on the first")
    func notificationPathDoesNotGrow() async throws {
        guard let h = try Harness(.sqlite) else { return }
        // The depth of the call stack when an offer reaches the backend's callback: the same
        // code path every time, so it must not change (it once grew by two thunks per
        // notification, and every trip got slower than the one before).
        let depths = Locked<[Int]>([])
        let bookings = try Bookings(store: h.store, city: Monaco.city(), scheduler: h.clock,
                                    offers: { _ in depths.withLock { $0.append(Thread.callStackSymbols.count) } })
        let admin = try await h.adminSession()
        let d = try await h.driver(1, adminSession: admin).id
        try await bookings.startShift(driver: d, cab: CabProfile(id: "cab-1", type: .sedan, seats: 4))
        try bookings.report(driver: d, position: Monaco.portHercule, at: h.clock.now())
        try bookings.setAvailable(driver: d, true)
        let p = try await h.passenger(1).id
        for n in 0..<40 {
            let b = try await bookings.bookNow(BookingRequest(passenger: p, pickup: Monaco.casino, destination: Monaco.palace,
                                                              cabType: .sedan, payment: .cash), key: try IdempotencyKey("b\(n)"))
            _ = try await bookings.cancel(b.number, for: p, key: try IdempotencyKey("c\(n)"))
        }
        let seen = depths.withLock { $0 }
        #expect(seen.count >= 40 && Set(seen).count == 1, "depths: \(seen)")
    }
}
