import Fleet
import Foundation
import Geodesy
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing

/// Every service entry point fed empty, too long, malformed, out-of-range and hostile
/// values: each answer is a typed error (never a crash or a store error), and the store is
/// unchanged, table by table.
@Suite("Bad input at every service entry point: a typed error naming the field, nothing stored")
struct HostileInputTests {
    static let tables = ["users", "sessions", "password_resets", "ledger_accounts", "ledger_transfers", "idempotency",
                         "payment_intents", "trip_payments", "outbox", "favourites", "cab_drivers", "bookings", "booking_events",
                         "feedback", "ride_requests", "ride_acceptances"]

    /// Row counts and a checksum of every table's text, to see that nothing changed.
    static func snapshot(_ store: any SQLStore) throws -> [String: Int] {
        try store.blockingRead { c in
            var out: [String: Int] = [:]
            for t in tables { out[t] = try c.first("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM \(t)", [])?.int("n") ?? -1 }
            return out
        }
    }

    static let hostileTexts = [
        "", " ", String(repeating: "x", count: 10_000), "'; DROP TABLE users; --", "\" OR 1=1 --", "\u{0}", "a\u{7}b", "\u{202E}evil",
        "line\nbreak", "%_\\", "😀", "\u{FEFF}", "Robert'); DELETE FROM bookings;--",
    ]
    static let hostileNumbers: [Int64] = [0, -1, .min, .max, 10_000_000_001, -5_000]
    /// Valid coordinates far from the city (a `Coordinate` cannot hold NaN or 95°: its
    /// checked initialiser refuses them, which the Geodesy tests cover).
    static let hostilePlaces = [Monaco.nice, Coordinate(unchecked: 0, 0), Coordinate(unchecked: 90, 180), Coordinate(unchecked: -90, -180),
                                Coordinate(unchecked: 43.73, -179.999_999)]

    @Test("hostile values at accounts, wallet, favourites, bookings, feedback and ride requests", arguments: Engine.allCases)
    func everyEntryPoint(engine: Engine) async throws {
        guard let r = try await BookingRig(engine) else { return }
        let p = try await r.passenger(1, balance: 10_000)
        let d = try await r.driver(1, at: Monaco.portHercule)
        let rides = RideRequests(store: r.h.store, city: Monaco.city(), clock: r.h.clock)
        let favourites = PassengerFavourites(store: r.h.store)
        let before = try Self.snapshot(r.h.store)
        var calls = 0

        /// Runs one bad call: it must throw a ServiceError that is not a store failure.
        func refused(_ what: String, _ call: () async throws -> Void) async {
            calls += 1
            do {
                try await call()
                Issue.record("\(what): accepted")
            } catch let error as ServiceError {
                if case .store = error { Issue.record("\(what): a store error leaked: \(error)") }
            } catch {
                Issue.record("\(what): untyped error \(error)")
            }
        }

        for text in Self.hostileTexts {
            let t = text
            await refused("register name \(t.prefix(20))") {
                _ = try await r.h.accounts.register(Registration(name: t, mobile: t, email: t, password: t, confirmation: t))
            }
            await refused("log in") { _ = try await r.h.accounts.logIn(mobile: t, password: t) }
            await refused("authenticate") { _ = try await r.h.accounts.authenticate(t, role: .passenger) }
            await refused("refill token") { _ = try await r.h.wallet.refill(passenger: p, amount: t.isEmpty ? -1 : 1_000, paymentToken: t.isEmpty ? t : t + " ", key: .random()) }
            await refused("favourite name") { try await favourites.add(name: t.count > 64 || t.trimmingCharacters(in: .whitespaces).isEmpty ? t : t + "\u{0}", at: Monaco.casino, for: p) }
            await refused("idempotency key") { _ = try IdempotencyKey(t.isEmpty ? t : t + " ") }
            await refused("feedback comment") {
                try await r.bookings.giveFeedback(Feedback(driver: 5, cab: 5, experience: 5, comment: t), on: 123_456, for: p)
            }
            await refused("ride request texts") {
                _ = try await rides.post(RideRequestDraft(rider: p, clientID: t, source: Monaco.casino, destination: Monaco.palace,
                                                          sourceAddress: t, destinationAddress: t, description: t, fare: 1000))
            }
            await refused("ride search keyword") { _ = try await rides.search(RideSearch(keyword: String(repeating: t, count: 200) + "\u{0}")) }
            await refused("accept client id") { _ = try await rides.accept(1, driver: d, clientID: t + " ") }
            await refused("cab id") { try await r.bookings.startShift(driver: d, cab: CabProfile(id: t.isEmpty ? t : t + "\u{0}", type: .sedan, seats: 4)) }
        }
        for n in Self.hostileNumbers {
            await refused("refill amount \(n)") { _ = try await r.h.wallet.refill(passenger: p, amount: n, paymentToken: "tok_visa", key: .random()) }
            await refused("refill passenger \(n)") { _ = try await r.h.wallet.refill(passenger: n, amount: 1_000, paymentToken: "tok_visa", key: .random()) }
            await refused("booking of passenger \(n)") { _ = try await r.bookings.bookNow(r.request(n), key: .random()) }
            await refused("booking number \(n)") { _ = try await r.bookings.cancel(Int(truncatingIfNeeded: n), for: p, key: .random()) }
            await refused("trip metres \(n)") { _ = try await r.bookings.complete(Int(truncatingIfNeeded: n), driver: d, trip: TripReport(metres: n), key: .random()) }
            await refused("ride fare \(n)") {
                _ = try await rides.post(RideRequestDraft(rider: p, clientID: "c\(n)", source: Monaco.casino, destination: Monaco.palace, fare: n))
            }
            await refused("ride search limit \(n)") { _ = try await rides.search(RideSearch(limit: Int(truncatingIfNeeded: n))) }
            await refused("rating \(n)") { try await r.bookings.giveFeedback(Feedback(driver: Int(truncatingIfNeeded: n), cab: 3, experience: 3), on: 1, for: p) }
            await refused("seats \(n)") {
                _ = try await r.bookings.bookNow(BookingRequest(passenger: p, pickup: Monaco.casino, destination: Monaco.palace,
                                                                cabType: .sedan, seats: Int(truncatingIfNeeded: n)), key: .random())
            }
        }
        for place in Self.hostilePlaces {
            await refused("pickup \(place)") { _ = try await r.bookings.bookNow(r.request(p, from: place), key: .random()) }
            await refused("destination \(place)") { _ = try await r.bookings.bookNow(r.request(p, to: place), key: .random()) }
            await refused("later pickup \(place)") {
                _ = try await r.bookings.bookLater(r.request(p, from: place), at: r.h.clock.now().addingTimeInterval(3600), key: .random())
            }
            await refused("ride source \(place)") {
                _ = try await rides.post(RideRequestDraft(rider: p, clientID: "x1", source: place, destination: Monaco.palace, fare: 1000))
            }
            await refused("ride search \(place)") { _ = try await rides.search(RideSearch(near: place, withinMetres: .nan)) }
        }
        // (Foundation cannot describe a NaN date, so they are named by position.)
        for (k, time) in [Date.distantPast, .distantFuture, Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: -1e300)].enumerated() {
            await refused("pickup time #\(k)") { _ = try await r.bookings.bookLater(r.request(p), at: time, key: .random()) }
        }
        await refused("unknown cab type") {
            _ = try await r.bookings.bookNow(BookingRequest(passenger: p, pickup: Monaco.casino, destination: Monaco.palace,
                                                            cabType: CabType("Limousine'; --")), key: .random())
        }
        #expect(calls > 200)
        #expect(try Self.snapshot(r.h.store) == before)
    }
}
