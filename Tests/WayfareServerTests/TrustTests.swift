import Crypto
import Foundation
import GeoJSON
import Hummingbird
import HummingbirdTesting
import Services
import Storage
import TaxiDispatch
import TestSupport
import Testing
import WayfareServer

/// The server in hostile hands: each test here was written against a defect found by using
/// the server as an attacker would, and failed before its fix.
@Suite("WayfareServer: trust — no request ends the process, nobody bills, guesses or floods past the rules")
struct TrustTests {
    @Test("whole numbers at and past 2^63 are refused with 400 naming the field, not a trap that ends the process")
    func hugeNumbersAreRefused() async throws {
        let rig = try Rig()
        try await rig.run { api in
            let (rider, _) = try await api.passenger(1)
            for number in ["9223372036854775807", "9223372036854775808", "18446744073709551616", "1e308", "-9223372036854775809",
                           "9007199254740993", "1e-320", "-0.0", "1.5"] {
                let r = try await api.call(.post, "/v1/ride-requests/1/confirm", #"{"driver": \#(number)}"#, token: rider)
                // 2^63 − 1 is a whole number in range: the ride request just does not exist.
                #expect([400, 404].contains(r.status), "\(number): \(r.status) \(r.text)")
                if r.status == 400 { #expect(r.errorField == "driver", "\(number): \(r.text)") }
            }
            let seats = try await api.call(.post, "/v1/estimates",
                                           #"{"pickup":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197},"cab_type":"Sedan","seats":9223372036854775808}"#,
                                           token: rider)
            #expect(seats.status == 400 && seats.errorField == "seats", "\(seats.text)")
            #expect(try await api.call(.get, "/health").status == 200)
        }
    }
}

@Suite("WayfareServer: rate-limit keys and throttles")
struct RateLimitKeyTests {
    @Test("made-up bearer tokens are limited like no token; a live session has a bucket of its own")
    func madeUpTokensCountAsTheirAddress() async throws {
        let clock = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        let rig = try Rig(scheduler: clock, guards: ClientGuards(rateLimit: RateLimit(burst: 40, perSecond: 0.001), perAccount: nil, perAddress: nil))
        try await rig.run { api in
            let (rider, _) = try await api.passenger(1)  // three requests from the address: register, verify, log in
            var limited = 0, unauthorized = 0
            for n in 0..<400 {
                let r = try await api.call(.get, "/v1/me", token: "made-up-\(n)")
                if r.status == 429 { limited += 1 } else if r.status == 401 { unauthorized += 1 }
            }
            #expect(unauthorized == 37 && limited == 363, "401: \(unauthorized), 429: \(limited)")
            #expect(try await api.call(.get, "/v1/zone?at=43.7393,7.4277").status == 429, "the address is spent")
            // The passenger's session is a client of its own, whatever its address did.
            for _ in 0..<40 { #expect(try await api.call(.get, "/v1/me", token: rider).status == 200) }
            #expect(try await api.call(.get, "/v1/me", token: rider).status == 429)
        }
    }

    @Test("logins are throttled per mobile number and per address, known or unknown; X-Forwarded-For only from a trusted proxy")
    func accountThrottles() async throws {
        let clock = VirtualScheduler(start: Date(timeIntervalSince1970: 1_790_000_000))
        let guards = ClientGuards(rateLimit: nil, perAccount: RateLimit(burst: 6, perSecond: 1.0 / 600),
                                  perAddress: RateLimit(burst: 30, perSecond: 1.0 / 20), trustedProxies: ["127.0.0.1", "::1"])
        let rig = try Rig(scheduler: clock, guards: guards)
        try await rig.run(.live) { api in
            func login(_ mobile: String, from client: String) async throws -> Int {
                try await api.call(.post, "/v1/sessions", #"{"mobile":"\#(mobile)","password":"not the password"}"#,
                                   headers: [.init("X-Forwarded-For")!: "203.0.113.7, \(client)"]).status
            }
            // One number, from many addresses: six attempts, then 429, known or not.
            var statuses: [Int] = []
            for n in 0..<8 { statuses.append(try await login("9123456789", from: "198.51.100.\(n)")) }
            #expect(statuses == [401, 401, 401, 401, 401, 401, 429, 429], "\(statuses)")
            // Many numbers from one address (as the trusted proxy names it): 30, then 429.
            statuses = []
            for n in 0..<32 { statuses.append(try await login(String(format: "91000%05d", n), from: "198.51.100.200")) }
            #expect(statuses.filter { $0 == 401 }.count == 30 && statuses.suffix(2) == [429, 429], "\(statuses)")
            // Another address behind the proxy is another client.
            #expect(try await login("9100099999", from: "198.51.100.201") == 401)
            // After ten minutes the number has one more attempt.
            clock.advance(to: clock.now().addingTimeInterval(600))
            #expect(try await login("9123456789", from: "198.51.100.9") == 401)
        }
    }
}

/// One passenger's trip in Monaco over HTTP on a virtual clock, up to the passenger on board.
struct TripOverHTTP {
    let api: API
    let clock: VirtualScheduler
    let driver: String
    let rider: String
    let number: Int
    let estimate: Double
    static let pickup = (lat: 43.7393, lon: 7.4277), destination = (lat: 43.7314, lon: 7.4197)

    static func start(_ api: API, server: WayfareServer, clock: VirtualScheduler, payment: String = "wallet") async throws -> TripOverHTTP {
        let (_, driver, _) = try await api.adminAndDriver(server)
        #expect(try await api.call(.post, "/v1/driver/shift", #"{"cab_id":"MC-7","cab_type":"Sedan"}"#, token: driver).status == 204)
        #expect(try await api.call(.post, "/v1/driver/position", #"{"position":{"lat":43.7390,"lon":7.4275}}"#, token: driver).status == 204)
        #expect(try await api.call(.post, "/v1/driver/availability", #"{"available":true}"#, token: driver).status == 204)
        let (rider, _) = try await api.passenger(1)
        #expect(try await api.call(.post, "/v1/wallet/refills", #"{"amount":100000,"payment_token":"tok_visa"}"#, token: rider, key: "refill").status == 201)
        let trip = #"{"pickup":{"lat":\#(pickup.lat),"lon":\#(pickup.lon)},"destination":{"lat":\#(destination.lat),"lon":\#(destination.lon)},"cab_type":"Sedan","payment":"\#(payment)"}"#
        let booked = try await api.call(.post, "/v1/bookings", trip, token: rider, key: "book")
        #expect(booked.status == 201, "\(booked.text)")
        let number = Int(booked["number"]?.numberValue ?? 0)
        let offer = try #require(try await api.call(.get, "/v1/driver/offers", token: driver)["offers"]?.arrayValue?.first)
        #expect(try await api.call(.post, "/v1/driver/offers/\(Int(offer["id"]?.numberValue ?? 0))", #"{"accept":true}"#, token: driver).status == 204)
        #expect(try await api.call(.post, "/v1/driver/bookings/\(number)/arrived", token: driver).status == 204)
        #expect(try await api.call(.post, "/v1/driver/bookings/\(number)/started", token: driver).status == 204)
        return TripOverHTTP(api: api, clock: clock, driver: driver, rider: rider, number: number, estimate: booked["estimate"]?.numberValue ?? 0)
    }

    /// The fastest route's points, pickup to destination, from the API.
    func routePoints() async throws -> (metres: Double, points: [(Double, Double)]) {
        let route = try await api.call(.get, "/v1/route?from=\(Self.pickup.lat),\(Self.pickup.lon)&to=\(Self.destination.lat),\(Self.destination.lon)")
        let points = (route["geometry"]?["coordinates"]?.arrayValue ?? []).compactMap { p -> (Double, Double)? in
            guard let a = p.arrayValue, a.count == 2, let lon = a[0].numberValue, let lat = a[1].numberValue else { return nil }
            return (lat, lon)
        }
        return (route["distance_m"]?.numberValue ?? 0, points)
    }

    /// Reports each point `every` seconds after the one before, by the virtual clock.
    func drive(through points: [(Double, Double)], every seconds: Double = 5) async throws {
        for (lat, lon) in points {
            clock.advance(to: clock.now().addingTimeInterval(seconds))
            #expect(try await api.call(.post, "/v1/driver/position", #"{"position":{"lat":\#(lat),"lon":\#(lon)}}"#, token: driver).status == 204)
        }
    }

    func complete(metres: Int, waiting: Int = 0) async throws -> API.Answer {
        try await api.call(.post, "/v1/driver/bookings/\(number)/complete", #"{"metres":\#(metres),"waiting_on_the_way_s":\#(waiting)}"#,
                           token: driver, key: "complete")
    }
}

@Suite("WayfareServer: fares billed from the server's record of the trip")
struct TrackedFareTests {
    @Test("a driver claiming 400 km and a day of waiting on a 1.3 km trip is billed the track, flagged, and the wallet pays no more than the estimate allows")
    func inflatedMeter() async throws {
        let clock = VirtualScheduler(start: Date())
        let rig = try Rig(scheduler: clock)
        let store = rig.store, server = rig.server
        try await rig.run { api in
            let trip = try await TripOverHTTP.start(api, server: server, clock: clock)
            let route = try await trip.routePoints()
            #expect(route.metres > 1000 && route.points.count > 5)
            try await trip.drive(through: route.points)
            let before = try await api.call(.get, "/v1/wallet", token: trip.rider)
            let invoice = try await trip.complete(metres: 400_000, waiting: 86_400)
            #expect(invoice.status == 200, "\(invoice.text)")
            let billed = invoice["billed_m"]?.numberValue ?? 0
            // The track is the route driven: billed within 5 % of the route's length.
            #expect(abs(billed - route.metres) / route.metres < 0.05, "billed \(billed) m, route \(route.metres) m")
            #expect(invoice["meter_m"]?.numberValue == 400_000)
            #expect(invoice["review"]?.stringValue?.contains("meter 400000 m") == true, "\(invoice.text)")
            // The fare is the estimate's, near enough: no 400 km, no day of waiting.
            let total = invoice["total"]?.numberValue ?? 0
            #expect(total <= trip.estimate * 1.5 && total >= trip.estimate * 0.7, "total \(total), estimate \(trip.estimate)")
            #expect(invoice["cash_paid"]?.numberValue == 0 && invoice["awaiting_confirmation"]?.numberValue == 0)
            let after = try await api.call(.get, "/v1/wallet", token: trip.rider)
            let paid = (before["available"]?.numberValue ?? 0) + (before["held"]?.numberValue ?? 0) - (after["available"]?.numberValue ?? 0)
            #expect(paid == total && paid <= trip.estimate * 1.5, "paid \(paid)")
            #expect(try LedgerAudit.run(on: store).isSound)
        }
    }

    @Test("a trip with no reports (the phone offline) is billed the route from pickup to destination")
    func noReports() async throws {
        let clock = VirtualScheduler(start: Date())
        let rig = try Rig(scheduler: clock)
        let server = rig.server
        try await rig.run { api in
            let trip = try await TripOverHTTP.start(api, server: server, clock: clock)
            let route = try await trip.routePoints()
            clock.advance(to: clock.now().addingTimeInterval(400))
            let invoice = try await trip.complete(metres: Int(route.metres))
            #expect(invoice.status == 200, "\(invoice.text)")
            #expect(abs((invoice["billed_m"]?.numberValue ?? 0) - route.metres) <= 1, "\(invoice.text)")
            #expect(invoice["review"] == .null, "the meter agrees: \(invoice.text)")
        }
    }

    @Test("above the estimate plus 50 %, the wallet pays the cap and the rest waits for the passenger's confirmation")
    func overTheCapNeedsConfirmation() async throws {
        let clock = VirtualScheduler(start: Date())
        let rig = try Rig(scheduler: clock)
        let store = rig.store, server = rig.server
        try await rig.run { api in
            let trip = try await TripOverHTTP.start(api, server: server, clock: clock)
            // A long way round: out to the far end of Monaco and back before the destination.
            let loop = [(43.7393, 7.4277), (43.7460, 7.4330), (43.7500, 7.4390), (43.7460, 7.4330)]
            try await trip.drive(through: loop + loop + [(43.7393, 7.4277), (43.7350, 7.4230), (43.7314, 7.4197)], every: 90)
            let invoice = try await trip.complete(metres: 6_000)
            #expect(invoice.status == 200, "\(invoice.text)")
            let total = invoice["total"]?.numberValue ?? 0, awaiting = invoice["awaiting_confirmation"]?.numberValue ?? 0
            #expect(total > trip.estimate * 1.5 && awaiting > 0, "\(invoice.text)")
            #expect(invoice["wallet_paid"]?.numberValue == total - awaiting && total - awaiting <= trip.estimate * 1.5)
            #expect(invoice["review"]?.stringValue?.contains("awaits the passenger's confirmation") == true)
            // The passenger confirms: the rest is paid once, whatever the retries.
            let path = "/v1/bookings/\(trip.number)/fare-confirmation"
            let confirmed = try await api.call(.post, path, token: trip.rider, key: "confirm")
            #expect(confirmed.status == 200 && confirmed["paid"]?.numberValue == awaiting, "\(confirmed.text)")
            #expect(try await api.call(.post, path, token: trip.rider, key: "confirm")["paid"]?.numberValue == awaiting)
            #expect(try await api.call(.post, path, token: trip.rider, key: "confirm-again").status == 409)
            #expect(try await api.call(.post, path, token: trip.driver, key: "confirm-driver").status == 403)
            let wallet = try await api.call(.get, "/v1/wallet", token: trip.rider)
            #expect(wallet["available"]?.numberValue == 100_000 - total && wallet["held"]?.numberValue == 0, "\(wallet.text)")
            #expect(try LedgerAudit.run(on: store).isSound)
        }
    }
}

@Suite("WayfareServer: offer streams per driver")
struct OfferStreamCapTests {
    @Test("a driver may hold two offer streams; a third is refused with 429 until one closes")
    func cappedPerDriver() async throws {
        let rig = try Rig()
        let server = rig.server
        try await rig.run { api in
            let (_, driver, _) = try await api.adminAndDriver(server)
            let streams = (0..<2).map { _ in Task { try await api.call(.get, "/v1/driver/offers/stream", token: driver) } }
            for _ in 0..<300 where server.openOfferStreams < 2 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.openOfferStreams == 2)
            let third = try await api.call(.get, "/v1/driver/offers/stream", token: driver)
            #expect(third.status == 429 && third.errorCode == "rate_limited", "\(third.text)")
            server.closeStreams()
            for s in streams { #expect(try await s.value.status == 200) }
        }
    }
}

@Suite("WayfareServer: the payment gateway's callbacks")
struct PaymentCallbackTests {
    static let secret = Array("whsec-wayfare-test-0123456789".utf8)

    /// `Wayfare-Signature` for `body` at `time`, as the gateway makes it.
    static func signature(_ body: String, at time: Int64, secret: [UInt8] = secret) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(time).\(body)".utf8), using: SymmetricKey(data: secret))
        return "t=\(time),v1=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    @Test("a signed callback settles a refill once; unsigned, wrongly signed, stale or replayed ones change nothing")
    func signedCallbacks() async throws {
        let clock = VirtualScheduler(start: Date())
        let rig = try Rig(scheduler: clock, callbackSecret: Self.secret)
        try await rig.run { api in
            #expect(try await api.call(.get, "/health")["payments"]?.stringValue == "test", "test payments are said in /health")
            let (rider, _) = try await api.passenger(1)
            let pending = try await api.call(.post, "/v1/wallet/refills", #"{"amount":5000,"payment_token":"tok_timeout"}"#, token: rider, key: "r1")
            #expect(pending.status == 202 && pending["status"]?.stringValue == "pending", "\(pending.text)")
            let intent = Int(pending["intent"]?.numberValue ?? 0)
            let body = #"{"id":"evt_1","intent":"wayfare-refill-\#(intent)","outcome":"approved","reference":"ch_1"}"#
            let now = Int64(clock.now().timeIntervalSince1970)
            func post(_ signature: String?, _ text: String = body) async throws -> API.Answer {
                try await api.call(.post, "/v1/payments/callbacks", text,
                                   headers: signature.map { [.init("Wayfare-Signature")!: $0] } ?? [:])
            }
            for bad in [nil, "t=\(now),v1=00", Self.signature(body, at: now, secret: Array("another secret entirely".utf8)),
                        Self.signature(body, at: now - 301), Self.signature(body.replacingOccurrences(of: "ch_1", with: "ch_2"), at: now),
                        "v1=\(String(repeating: "ab", count: 32))", "garbage"] {
                let r = try await post(bad)
                #expect(r.status == 401 && r.errorCode == "unauthorized", "\(bad ?? "none"): \(r.text)")
            }
            #expect(try await api.call(.get, "/v1/wallet", token: rider)["available"]?.numberValue == 0, "nothing credited yet")
            let signed = Self.signature(body, at: now)
            let first = try await post(signed)
            #expect(first.status == 200 && first["status"]?.stringValue == "completed", "\(first.text)")
            // The same callback again, and a late contradicting one: credited once.
            #expect(try await post(signed)["status"]?.stringValue == "completed")
            let late = #"{"id":"evt_2","intent":"wayfare-refill-\#(intent)","outcome":"declined","reason":"late"}"#
            #expect(try await post(Self.signature(late, at: now), late)["status"]?.stringValue == "completed")
            #expect(try await api.call(.get, "/v1/wallet", token: rider)["available"]?.numberValue == 5000)
            let unknown = #"{"id":"evt_3","intent":"someone-else-7","outcome":"approved"}"#
            #expect(try await post(Self.signature(unknown, at: now), unknown).status == 400)
        }
    }

    @Test("without a configured secret the callback route does not exist")
    func unconfigured() async throws {
        try await Rig().run { api in
            let r = try await api.call(.post, "/v1/payments/callbacks", "{}")
            #expect(r.status == 404)
        }
    }
}

@Suite("WayfareServer: registration tells nobody who is registered")
struct RegistrationEnumerationTests {
    @Test("a taken number or e-mail gets the same answer as a free one, test code included; the decoy code activates nothing")
    func sameAnswer() async throws {
        let rig = try Rig()
        try await rig.run { api in
            _ = try await api.passenger(1)  // 9800000001, p1@example.com
            func register(_ mobile: String, _ email: String) async throws -> API.Answer {
                try await api.call(.post, "/v1/accounts", #"{"name":"Someone","mobile":"\#(mobile)","email":"\#(email)","password":"another ride 9","confirmation":"another ride 9"}"#)
            }
            let free = try await register("9800000077", "free@example.com")
            for taken in [try await register("9800000001", "new@example.com"), try await register("9800000078", "p1@example.com")] {
                #expect(taken.status == free.status && taken["status"] == free["status"], "\(taken.text)")
                func keys(_ v: JSONValue) -> Set<String> { if case let .object(m) = v { Set(m.map(\.0)) } else { [] } }
                #expect(keys(taken.json) == keys(free.json) && taken["mobile"] != nil, "\(taken.text) vs \(free.text)")
                #expect(taken["test_code"]?.stringValue?.count == 6)
            }
            let decoy = try await api.call(.post, "/v1/accounts/verify", #"{"mobile":"9800000001","code":"\#(try await register("9800000001", "x@example.com")["test_code"]?.stringValue ?? "")"}"#)
            #expect(decoy.status == 401, "\(decoy.text)")
            let real = try await api.call(.post, "/v1/accounts/verify", #"{"mobile":"9800000077","code":"\#(free["test_code"]?.stringValue ?? "")"}"#)
            #expect(real.status == 201, "\(real.text)")
        }
    }
}
