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
            let (rider, _) = try await api.passenger(1)  // two requests from the address
            var limited = 0, unauthorized = 0
            for n in 0..<400 {
                let r = try await api.call(.get, "/v1/me", token: "made-up-\(n)")
                if r.status == 429 { limited += 1 } else if r.status == 401 { unauthorized += 1 }
            }
            #expect(unauthorized == 38 && limited == 362, "401: \(unauthorized), 429: \(limited)")
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
