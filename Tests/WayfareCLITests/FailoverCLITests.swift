import Fleet
import Foundation
import GeoJSON
import PostgresStorage
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two replicas of one city on one PostgreSQL: one owns the live fleet and dispatch, the
/// other redirects the fleet's routes to it; the owner is killed with SIGKILL mid-trip and the
/// other takes over. Nothing acknowledged is lost or doubled and the ledger balances.
@Suite struct FailoverCLITests {
    /// One call that follows 307 redirects as a phone's HTTP client does (same method, body and
    /// headers); returns the status, the JSON and the port that answered.
    static func call(_ port: Int, _ method: String, _ path: String, token: String? = nil, key: String? = nil,
                     _ body: String? = nil) throws -> (status: Int, json: JSONValue, port: Int) {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        if let key { headers["Idempotency-Key"] = key }
        var port = port, path = path
        for _ in 0..<3 {
            let r = try httpRequestWithHeaders(port: port, method, path, headers: headers, body: body)
            if r.status == 307, let location = r.headers["location"], let url = URLComponents(string: location), let p = url.port {
                port = p
                path = url.path + (url.query.map { "?" + $0 } ?? "")
                continue
            }
            let json = r.body.isEmpty ? JSONValue.null : ((try? JSONParser.parse(Array(r.body.utf8))) ?? .string(r.body))
            return (r.status, json, port)
        }
        throw NSError(domain: "wayfare", code: 3, userInfo: [NSLocalizedDescriptionKey: "too many redirects for \(path)"])
    }

    /// Registers a passenger and verifies the mobile with the code the server's test SMS
    /// gives back.
    static func register(_ port: Int, name: String, mobile: String, email: String, password: String) throws {
        let sent = try call(port, "POST", "/v1/accounts", #"{"name":"\#(name)","mobile":"\#(mobile)","email":"\#(email)","password":"\#(password)","confirmation":"\#(password)"}"#)
        #expect(sent.status == 202, "\(sent.json)")
        let code = sent.json["test_code"]?.stringValue ?? ""
        #expect(try call(port, "POST", "/v1/accounts/verify", #"{"mobile":"\#(mobile)","code":"\#(code)"}"#).status == 201)
    }

    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until the replica on `port` says it owns the city (or not); `/ready` tells a
    /// replica's standing to an admin only, hence the admin's login.
    static func waitForOwner(_ port: Int, owning: Bool, seconds: Double) throws -> (Double, JSONValue) {
        let start = Date()
        var admin: String?
        while Date().timeIntervalSince(start) < seconds {
            if admin == nil {
                admin = (try? call(port, "POST", "/v1/sessions", #"{"mobile":"9000000001","password":"Ops!admin-2026x"}"#))?.json["token"]?.stringValue
            }
            if let admin, let r = try? call(port, "GET", "/ready", token: admin), r.status == 200, r.json["owner"] == .bool(owning) {
                return (Date().timeIntervalSince(start), r.json)
            }
            usleep(100_000)
        }
        throw NSError(domain: "wayfare", code: 4, userInfo: [NSLocalizedDescriptionKey: "replica on \(port) not owner=\(owning) within \(seconds) s"])
    }

    /// A scratch database on the test server, Monaco's city folder and the first admin: what
    /// both failover tests start from. Nil (after saying why) without a PostgreSQL server.
    final class Scratch {
        let store: String
        let passwordFile: String
        let city: String
        private let folder = TemporaryFolder()
        private let drop: () -> Void

        init?() throws {
            guard let base = postgresURL else {
                print("FailoverCLITests: skipped — set WAYFARE_POSTGRES_URL (scripts/test.sh starts a PostgreSQL) to run the failover tests")
                return nil
            }
            let database = try ScratchDatabase(on: base, prefix: "wf_failover_")
            drop = { database.drop() }
            // The CLI takes the password from a file, never from its command line.
            var components = try #require(URLComponents(string: database.url))
            passwordFile = folder.write("store-password", (components.password ?? "") + "\n")
            components.password = nil
            store = try #require(components.string)
            city = folder.path("monaco")
            let built = try runWayfare(["city", "build"] + CityCLITests.sources + ["--name", "Monaco", "--no-geocoder", "--out", city])
            try #require(built.status == 0, "\(built.stderr)")
            let adminMade = try runWayfareWithInput(["admin", "create", "--store", store, "--store-password-file", passwordFile, "--name", "Ops", "--mobile", "9000000001",
                                                     "--email", "ops@example.com"], input: "Ops!admin-2026x\n")
            try #require(adminMade.status == 0, "\(adminMade.stderr)")
        }

        deinit { drop() }

        /// A replica of the city on `port`.
        func replica(_ port: Int) throws -> RunningServer {
            try RunningServer(["--city", city, "--store", store, "--store-password-file", passwordFile, "--port", "\(port)", "--replica-url", "http://127.0.0.1:\(port)",
                               "--rate-limit", "0", "--log-level", "warning"])
        }
    }

    @Test func theOwnerIsKilledMidTripAndTheOtherReplicaTakesOverLosingNothing() throws {
        guard let scratch = try Scratch() else { return }
        let (portA, portB) = (Self.freePort(), Self.freePort())
        func replica(_ port: Int) throws -> RunningServer { try scratch.replica(port) }
        let a = try replica(portA)
        defer { a.kill9() }
        let (_, readyA) = try Self.waitForOwner(portA, owning: true, seconds: 15)
        let b = try replica(portB)
        defer { b.kill9() }
        let (_, readyB) = try Self.waitForOwner(portB, owning: false, seconds: 15)
        #expect(readyB["owner_url"]?.stringValue == "http://127.0.0.1:\(portA)")

        // People talk to B; the fleet's calls are redirected to A while A owns the city.
        let admin = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"9000000001","password":"Ops!admin-2026x"}"#).json["token"]?.stringValue)
        var drivers: [String] = []
        for d in 0..<2 {
            let mobile = "70000000\(10 + d)"
            let made = try Self.call(portB, "POST", "/v1/drivers", token: admin,
                                     #"{"name":"Driver \#(d)","mobile":"\#(mobile)","email":"d\#(d)@example.com","password":"steady wheels \#(d)x","confirmation":"steady wheels \#(d)x"}"#)
            #expect(made.status == 201, "\(made.json)")
            let token = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"\#(mobile)","password":"steady wheels \#(d)x"}"#).json["token"]?.stringValue)
            let shift = try Self.call(portB, "POST", "/v1/driver/shift", token: token, #"{"cab_id":"MC-\#(d)","cab_type":"Sedan","seats":4}"#)
            #expect(shift.status == 204 && shift.port == portA, "the shift went to the owner: \(shift)")
            drivers.append(token)
        }
        func report(_ d: Int) throws {
            let position = try Self.call(portB, "POST", "/v1/driver/position", token: drivers[d], #"{"position":{"lat":43.7347,"lon":7.4226}}"#)
            let available = try Self.call(portB, "POST", "/v1/driver/availability", token: drivers[d], #"{"available":true}"#)
            #expect(position.status == 204 && available.status == 204, "\(position) \(available)")
        }
        for d in drivers.indices { try report(d) }

        var passengers: [String] = []
        for p in 0..<4 {
            let mobile = "98000000\(10 + p)"
            try Self.register(portB, name: "P\(p)", mobile: mobile, email: "p\(p)@example.com", password: "monsoon ride \(p)x")
            let token = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"\#(mobile)","password":"monsoon ride \#(p)x"}"#).json["token"]?.stringValue)
            let refill = try Self.call(portB, "POST", "/v1/wallet/refills", token: token, key: "refill-\(p)", #"{"amount":50000,"payment_token":"tok_visa"}"#)
            #expect(refill.status == 201, "\(refill.json)")
            passengers.append(token)
        }
        let trip = #"{"pickup":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197},"cab_type":"Sedan"}"#
        var booked: [Int: Int] = [:]      // passenger → booking number, as acknowledged
        var invoices: [Int: JSONValue] = [:]
        /// Books for passenger p, lets a driver accept it; returns the driver's index.
        func bookAndAllocate(_ p: Int) throws -> Int {
            // The drivers' apps report all along (every 5 s): on a loaded machine the trips
            // before can take longer than a position stays fresh (120 s), and the positions
            // A last wrote down must be fresh for B to offer the cabs at once.
            for d in drivers.indices { try report(d) }
            let b = try Self.call(portB, "POST", "/v1/bookings", token: passengers[p], key: "book-\(p)", trip)
            #expect(b.status == 201, "\(b.json)")
            let number = Int(b.json["number"]?.numberValue ?? 0)
            booked[p] = number
            for _ in 0..<100 {
                for (d, token) in drivers.enumerated() {
                    let offers = try Self.call(portB, "GET", "/v1/driver/offers", token: token)
                    if let offer = offers.json["offers"]?.arrayValue?.first(where: { Int($0["booking"]?.numberValue ?? 0) == number }) {
                        let answer = try Self.call(portB, "POST", "/v1/driver/offers/\(Int(offer["id"]?.numberValue ?? 0))", token: token, #"{"accept":true}"#)
                        #expect(answer.status == 204, "\(answer.json)")
                        return d
                    }
                }
                usleep(100_000)
            }
            Issue.record("booking \(number) was never offered")
            return -1
        }
        func finish(_ p: Int, by d: Int) throws {
            let number = try #require(booked[p])
            for step in ["arrived", "started"] {
                let r = try Self.call(portB, "POST", "/v1/driver/bookings/\(number)/\(step)", token: drivers[d])
                #expect(r.status == 204, "\(step): \(r.json)")
            }
            let done = try Self.call(portB, "POST", "/v1/driver/bookings/\(number)/complete", token: drivers[d], key: "done-\(p)", #"{"metres":2900}"#)
            #expect(done.status == 200, "\(done.json)")
            invoices[p] = done.json
        }

        // Before the failover: two whole trips through B, dispatched by A.
        for p in 0..<2 { try finish(p, by: try bookAndAllocate(p)) }
        // Mid-trip: passenger 2's cab is allocated, then the owner dies.
        let midTripDriver = try bookAndAllocate(2)
        kill(a.process.processIdentifier, SIGKILL)
        a.process.waitUntilExit()
        let (takeover, afterB) = try Self.waitForOwner(portB, owning: true, seconds: 15)
        print("failover: the other replica took over \(String(format: "%.1f", takeover)) s after the owner was killed")
        #expect(takeover < 8, "B took over within seconds (\(takeover) s)")
        #expect((afterB["lease_token"]?.numberValue ?? 0) > (readyA["lease_token"]?.numberValue ?? 0), "the fencing token went up")

        // B starts with the cabs where A last wrote them down (A's periodic work, every 2 s),
        // before any driver reports to it.
        let cabs = try Self.call(portB, "GET", "/v1/cabs")
        #expect(cabs.port == portB && cabs.json["cabs"]?.arrayValue?.count == 2, "\(cabs.json)")
        #expect(cabs.json["cabs"]?.arrayValue?.allSatisfy { $0["position"]?["lat"]?.numberValue != nil } == true, "positions restored: \(cabs.json)")
        // The drivers' apps report again (every 5 s), and the trip under way finishes.
        for d in drivers.indices { try report(d) }
        try finish(2, by: midTripDriver)
        // Retries across the failover: the same keys give the same answers, nothing twice.
        let again = try Self.call(portB, "POST", "/v1/bookings", token: passengers[0], key: "book-0", trip)
        #expect(again.status == 201 && Int(again.json["number"]?.numberValue ?? 0) == booked[0])
        let paidAgain = try Self.call(portB, "POST", "/v1/driver/bookings/\(booked[0]!)/complete", token: drivers[0], key: "done-0", #"{"metres":2900}"#)
        #expect(paidAgain.json["total"] == invoices[0]?["total"], "\(paidAgain.json)")
        let refillAgain = try Self.call(portB, "POST", "/v1/wallet/refills", token: passengers[0], key: "refill-0", #"{"amount":50000,"payment_token":"tok_visa"}"#)
        #expect(refillAgain.status == 201 && refillAgain.json["available"]?.numberValue == 50000)
        // Dispatch resumed on B: a new booking is offered, accepted and paid.
        try finish(3, by: try bookAndAllocate(3))

        // Every acknowledged booking is there once, completed; every wallet adds up.
        for p in passengers.indices {
            let list = try Self.call(portB, "GET", "/v1/bookings?list=previous", token: passengers[p])
            let numbers = list.json["bookings"]?.arrayValue?.compactMap { $0["number"]?.numberValue.map(Int.init) } ?? []
            #expect(numbers == [booked[p]!], "passenger \(p): \(list.json)")
            #expect(list.json["bookings"]?.arrayValue?.first?["state"]?.stringValue == "completed")
            let wallet = try Self.call(portB, "GET", "/v1/wallet", token: passengers[p])
            let paid = invoices[p]?["wallet_paid"]?.numberValue ?? -1
            #expect(wallet.json["available"]?.numberValue == 50000 - paid && wallet.json["held"]?.numberValue == 0, "passenger \(p): \(wallet.json)")
        }
        let ledger = try Self.call(portB, "GET", "/v1/admin/ledger", token: admin)
        let commissions = invoices.values.reduce(0.0) { $0 + ($1["commission"]?.numberValue ?? 0) }
        #expect(ledger.json["sound"] == .bool(true) && ledger.json["revenue"]?.numberValue == commissions, "\(ledger.json)")
        #expect(b.stop() == 0)
    }

    @Test func anOwnerPausedPastItsLeaseWritesNothingWhenItWakes() throws {
        guard let scratch = try Scratch() else { return }
        let (portA, portB) = (Self.freePort(), Self.freePort())
        let a = try scratch.replica(portA)
        defer { kill(a.process.processIdentifier, SIGCONT); a.kill9() }
        _ = try Self.waitForOwner(portA, owning: true, seconds: 15)
        let b = try scratch.replica(portB)
        defer { b.kill9() }
        _ = try Self.waitForOwner(portB, owning: false, seconds: 15)

        let admin = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"9000000001","password":"Ops!admin-2026x"}"#).json["token"]?.stringValue)
        #expect(try Self.call(portB, "POST", "/v1/drivers", token: admin,
                              #"{"name":"Driver","mobile":"7000000010","email":"d@example.com","password":"steady wheels 1x","confirmation":"steady wheels 1x"}"#).status == 201)
        let driver = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"7000000010","password":"steady wheels 1x"}"#).json["token"]?.stringValue)
        #expect(try Self.call(portB, "POST", "/v1/driver/shift", token: driver, #"{"cab_id":"MC-1","cab_type":"Sedan","seats":4}"#).status == 204)
        func report() throws {
            #expect(try Self.call(portB, "POST", "/v1/driver/position", token: driver, #"{"position":{"lat":43.7347,"lon":7.4226}}"#).status == 204)
            #expect(try Self.call(portB, "POST", "/v1/driver/availability", token: driver, #"{"available":true}"#).status == 204)
        }
        try report()
        try Self.register(portB, name: "P", mobile: "9800000010", email: "p@example.com", password: "monsoon ride 1x")
        let rider = try #require(try Self.call(portB, "POST", "/v1/sessions", #"{"mobile":"9800000010","password":"monsoon ride 1x"}"#).json["token"]?.stringValue)
        #expect(try Self.call(portB, "POST", "/v1/wallet/refills", token: rider, key: "refill", #"{"amount":50000,"payment_token":"tok_visa"}"#).status == 201)
        // A books; A, the owner, offers it to the driver; then A is paused before the answer.
        let trip = #"{"pickup":{"lat":43.7393,"lon":7.4277},"destination":{"lat":43.7314,"lon":7.4197},"cab_type":"Sedan"}"#
        let booked = try Self.call(portB, "POST", "/v1/bookings", token: rider, key: "book", trip)
        #expect(booked.status == 201, "\(booked.json)")
        let number = Int(booked.json["number"]?.numberValue ?? 0)
        kill(a.process.processIdentifier, SIGSTOP)
        let (takeover, _) = try Self.waitForOwner(portB, owning: true, seconds: 20)
        print("SIGSTOP: the other replica took over \(String(format: "%.1f", takeover)) s after the owner was paused")
        // B searches again for the open booking; the driver reports to B and accepts its offer.
        try report()
        var accepted = false
        for _ in 0..<100 where !accepted {
            let offers = try Self.call(portB, "GET", "/v1/driver/offers", token: driver)
            if let offer = offers.json["offers"]?.arrayValue?.first(where: { Int($0["booking"]?.numberValue ?? 0) == number }) {
                accepted = try Self.call(portB, "POST", "/v1/driver/offers/\(Int(offer["id"]?.numberValue ?? 0))", token: driver, #"{"accept":true}"#).status == 204
            } else { usleep(100_000) }
        }
        #expect(accepted, "B offered the booking and the driver accepted")
        // A wakes, still believing for a moment that it owns the city, with its own offer of the
        // booking outstanding and its periodic work due. Whatever it tries is fenced.
        kill(a.process.processIdentifier, SIGCONT)
        _ = try Self.waitForOwner(portA, owning: false, seconds: 10)
        usleep(2_500_000)  // A's periodic work (every 2 s) has run at least once since it woke
        let view = try Self.call(portB, "GET", "/v1/bookings/\(number)", token: rider)
        #expect(view.json["state"]?.stringValue == "allocated" && view.json["cab"]?.stringValue == "MC-1", "\(view.json)")
        let wallet = try Self.call(portB, "GET", "/v1/wallet", token: rider)
        #expect(wallet.json["held"]?.numberValue == booked.json["estimate"]?.numberValue, "the hold stands for the allocated trip: \(wallet.json)")
        for step in ["arrived", "started"] {
            #expect(try Self.call(portB, "POST", "/v1/driver/bookings/\(number)/\(step)", token: driver).status == 204)
        }
        let done = try Self.call(portB, "POST", "/v1/driver/bookings/\(number)/complete", token: driver, key: "done", #"{"metres":2900}"#)
        #expect(done.status == 200, "\(done.json)")
        let after = try Self.call(portB, "GET", "/v1/wallet", token: rider)
        #expect(after.json["held"]?.numberValue == 0 && after.json["available"]?.numberValue == 50000 - (done.json["wallet_paid"]?.numberValue ?? -1), "\(after.json)")
        let pending = try Self.call(portB, "GET", "/v1/bookings?list=pending", token: rider)
        #expect(pending.json["bookings"]?.arrayValue?.isEmpty == true, "no booking left requested: \(pending.json)")
        let ledger = try Self.call(portB, "GET", "/v1/admin/ledger", token: admin)
        #expect(ledger.json["sound"] == .bool(true) && ledger.json["escrow_held"]?.numberValue == 0, "\(ledger.json)")
        #expect(a.stop() == 0 && b.stop() == 0)
    }
}
