import AsyncHTTPClient
import Fleet
import Foundation
import GeoJSON
import Geodesy
import NIOCore
import NIOHTTP1
import ServiceSimulation
import Services
import TaxiDispatch

/// The services of a city as a `wayfare serve` process offers them, over HTTP: the
/// simulated passengers' and drivers' apps of `wayfare demo` talk to the server through
/// this, request by request, exactly as phones would.
///
/// Two things are not phone calls and come from whoever hosts the server: the server's
/// virtual clock (`advance`), which a simulation moves, and the server's periodic work
/// (`runDue`), which a real server runs every few seconds of wall time.
///
/// Offers reach drivers the way a driver app without a push channel gets them: after a
/// step that may have made offers, the backend asks `GET /v1/driver/offers` for every
/// driver who is free to take one and passes on the offers it has not seen. It asks only
/// while some booking still waits for its cab (a booking for now until a driver accepts; a
/// booking for later from `allocateBefore` ahead of its pickup), which is when a real
/// driver app's poll could find something.
///
/// `Sendable`: the client and the closures are `Sendable`; sessions and offers seen sit
/// behind a lock.
package final class HTTPBackend: TaxiBackend {
    package let storeName: String
    package let currency: String
    let base: String
    let client: HTTPClient
    let clock: @Sendable (Date) async throws -> Void
    let periodic: @Sendable () async throws -> Void
    let state = Locked(Sessions())
    let allocateBefore: TimeInterval
    /// Whether bookings made outside the simulation (the live page) may be offered, so
    /// drivers poll after every step, not only while one of the simulation's waits.
    package let outsideBookings: Bool

    struct Sessions {
        var passengers: [Int64: String] = [:]
        var drivers: [Int64: (token: String, cab: String)] = [:]
        var admin: String?
        var offersSeen: Set<UInt64> = []
        var pollNeeded = true
        var requests = 0
        /// Bookings that may still be offered, with the time from which they may be.
        var awaiting: [Int: Date] = [:]
        /// Drivers on a trip or stepped away: no offer comes to them.
        var unavailable: Set<Int64> = []
        var now = Date.distantPast
    }

    /// How many HTTP requests the backend made.
    package var requestCount: Int { state.withLock { $0.requests } }

    /// A backend for the server at `base` (`http://127.0.0.1:PORT`).
    package init(base: String, storeName: String, currency: String, allocateBefore: TimeInterval, outsideBookings: Bool = false,
                 client: HTTPClient = .shared, advance: @escaping @Sendable (Date) async throws -> Void,
                 runDue: @escaping @Sendable () async throws -> Void) {
        self.allocateBefore = allocateBefore
        self.outsideBookings = outsideBookings
        self.base = base
        self.storeName = storeName
        self.currency = currency
        self.client = client
        clock = advance
        periodic = runDue
    }

    // MARK: The calls

    package func advance(to date: Date) async throws(ServiceError) {
        do { try await clock(date) } catch { throw Self.unavailable(error) }
        state.withLock { $0.pollNeeded = true; $0.now = date }
    }

    package func registerPassenger(_ n: Int) async throws(ServiceError) -> Int64 {
        let mobile = String(8_000_000_000 + n), password = "simulated rider 2026"
        let sent = try await call(.POST, "/v1/accounts", body: Self.registration("Passenger \(n)", mobile: mobile,
                                                                                  email: "passenger\(n)@simulation.example", password: password))
        // The demo's server runs test SMS: the code comes back in the answer.
        guard let code = sent["test_code"]?.stringValue else { throw .conflict("no verification code for \(mobile): \(sent.serialized)") }
        let user = try await call(.POST, "/v1/accounts/verify", body: .object([("mobile", .string(mobile)), ("code", .string(code))]))
        let id = try Self.int64(user["id"], "id")
        let token = try await logIn(mobile: mobile, password: password)
        state.withLock { $0.passengers[id] = token }
        return id
    }

    package func refill(passenger: Int64, amount: Int64) async throws(ServiceError) {
        let answer = try await call(.POST, "/v1/wallet/refills", token: passengerToken(passenger), key: true,
                                    body: .object([("amount", .number(Double(amount))), ("payment_token", .string("tok_visa"))]))
        guard answer["status"]?.stringValue == "completed" else { throw .conflict("the test card was not charged: \(answer.serialized)") }
    }

    package func startShift(driver n: Int, cab: CabProfile) async throws(ServiceError) -> Int64 {
        let admin = try await adminToken()
        let mobile = String(7_000_000_000 + n), password = "simulated driver 2026"
        let user = try await call(.POST, "/v1/drivers", token: admin, body: Self.registration("Driver \(n)", mobile: mobile,
                                                                                              email: "driver\(n)@simulation.example", password: password))
        let id = try Self.int64(user["id"], "id")
        let token = try await logIn(mobile: mobile, password: password)
        _ = try await call(.POST, "/v1/driver/shift", token: token,
                           body: .object([("cab_id", .string(cab.id)), ("cab_type", .string(cab.type.name)), ("seats", .number(Double(cab.seats)))]))
        state.withLock { $0.drivers[id] = (token, cab.id) }
        return id
    }

    package func report(driver: Int64, position: Coordinate, at time: Date) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/driver/position", token: driverToken(driver), body: .object([("position", Self.json(position))]))
        // A report can bring a cab into reach of a waiting booking: the dispatcher may offer.
        state.withLock { $0.pollNeeded = true }
    }

    package func setAvailable(driver: Int64, _ available: Bool) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/driver/availability", token: driverToken(driver), body: .object([("available", .bool(available))]))
        state.withLock { s in
            s.pollNeeded = true
            if available { s.unavailable.remove(driver) } else { s.unavailable.insert(driver) }
        }
    }

    package func bookNow(_ request: BookingRequest) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.POST, "/v1/bookings", token: passengerToken(request.passenger), key: true,
                                                      body: Self.json(request, pickupTime: nil)), passenger: request.passenger)
        state.withLock { s in
            s.pollNeeded = true
            if booking.state == .requested { s.awaiting[booking.number] = .distantPast }
        }
        return booking
    }

    package func bookLater(_ request: BookingRequest, at pickupTime: Date) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.POST, "/v1/bookings", token: passengerToken(request.passenger), key: true,
                                                      body: Self.json(request, pickupTime: pickupTime)), passenger: request.passenger)
        let from = pickupTime.addingTimeInterval(-allocateBefore - 60)
        state.withLock { $0.awaiting[booking.number] = from }
        return booking
    }

    package func cancel(_ booking: Int, passenger: Int64) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/bookings/\(booking)/cancel", token: passengerToken(passenger), key: true, body: nil)
        state.withLock { _ = $0.awaiting.removeValue(forKey: booking) }
    }

    package func takeOffers() async -> [DriverOffer] {
        let drivers: [(Int64, String)]? = state.withLock { s in
            guard s.pollNeeded, outsideBookings || s.awaiting.values.contains(where: { $0 <= s.now }) else { return nil }
            s.pollNeeded = false
            return s.drivers.filter { !s.unavailable.contains($0.key) }.map { ($0.key, $0.value.token) }.sorted { $0.0 < $1.0 }
        }
        guard let drivers else { return [] }
        var offers: [DriverOffer] = []
        for (driver, token) in drivers {
            guard let answer = try? await call(.GET, "/v1/driver/offers", token: token, body: nil),
                  let list = answer["offers"]?.arrayValue else { continue }
            for item in list {
                guard let offer = try? Self.offer(item, driver: driver) else { continue }
                offers.append(offer)
            }
        }
        let fresh = state.withLock { s in offers.filter { s.offersSeen.insert($0.id).inserted } }
        return fresh.sorted { $0.id < $1.id }
    }

    package func answer(_ offer: DriverOffer, accept: Bool) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/driver/offers/\(offer.id)", token: driverToken(offer.driver), body: .object([("accept", .bool(accept))]))
        state.withLock { s in
            s.pollNeeded = true
            if accept {
                s.awaiting.removeValue(forKey: offer.booking)
                s.unavailable.insert(offer.driver)
            }
        }
    }

    package func arrived(_ booking: Int, driver: Int64) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/driver/bookings/\(booking)/arrived", token: driverToken(driver), body: nil)
    }

    package func started(_ booking: Int, driver: Int64) async throws(ServiceError) {
        _ = try await call(.POST, "/v1/driver/bookings/\(booking)/started", token: driverToken(driver), body: nil)
    }

    package func complete(_ booking: Int, driver: Int64, metres: Int64) async throws(ServiceError) -> TripInvoice {
        defer { state.withLock { $0.pollNeeded = true; $0.unavailable.remove(driver) } }
        let i = try await call(.POST, "/v1/driver/bookings/\(booking)/complete", token: driverToken(driver), key: true,
                               body: .object([("metres", .number(Double(metres)))]))
        return TripInvoice(booking: try Self.int(i["booking"], "booking"), base: try Self.int64(i["base"], "base"),
                           distance: try Self.int64(i["distance"], "distance"), waiting: try Self.int64(i["waiting"], "waiting"),
                           tolls: try Self.int64(i["tolls"], "tolls"), discount: try Self.int64(i["discount"], "discount"),
                           total: try Self.int64(i["total"], "total"), method: i["method"]?.stringValue ?? "",
                           walletPaid: try Self.int64(i["wallet_paid"], "wallet_paid"), cashPaid: try Self.int64(i["cash_paid"], "cash_paid"),
                           commission: try Self.int64(i["commission"], "commission"))
    }

    package func booking(_ number: Int, passenger: Int64) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.GET, "/v1/bookings/\(number)", token: passengerToken(passenger), body: nil),
                                       passenger: passenger)
        if booking.state != .requested { state.withLock { _ = $0.awaiting.removeValue(forKey: number) } }
        return booking
    }

    package func runDue() async throws(ServiceError) {
        do { try await periodic() } catch { throw Self.unavailable(error) }
        state.withLock { $0.pollNeeded = true }
    }

    package func companyAccounts() async throws(ServiceError) -> CompanyAccounts {
        let l = try await call(.GET, "/v1/admin/ledger", token: adminToken(), body: nil)
        return CompanyAccounts(revenue: try Self.int64(l["revenue"], "revenue"), escrowHeld: try Self.int64(l["escrow_held"], "escrow_held"),
                               gatewayOwes: try Self.int64(l["gateway_owes"], "gateway_owes"),
                               owedToDrivers: try Self.int64(l["owed_to_drivers"], "owed_to_drivers"),
                               owedToPassengers: try Self.int64(l["owed_to_passengers"], "owed_to_passengers"))
    }

    package func auditLedger() async throws(ServiceError) -> (sound: Bool, transfers: Int) {
        let l = try await call(.GET, "/v1/admin/ledger", token: adminToken(), body: nil)
        guard case let .bool(sound)? = l["sound"] else { throw Self.malformed("sound") }
        return (sound, try Self.int(l["transfers"], "transfers"))
    }

    // MARK: Sessions

    func logIn(mobile: String, password: String) async throws(ServiceError) -> String {
        let session = try await call(.POST, "/v1/sessions", body: .object([("mobile", .string(mobile)), ("password", .string(password))]))
        guard let token = session["token"]?.stringValue else { throw Self.malformed("token") }
        return token
    }

    func passengerToken(_ id: Int64) throws(ServiceError) -> String {
        guard let token = state.withLock({ $0.passengers[id] }) else { throw .notFound("passenger \(id)") }
        return token
    }

    func driverToken(_ id: Int64) throws(ServiceError) -> String {
        guard let token = state.withLock({ $0.drivers[id]?.token }) else { throw .notFound("driver \(id)") }
        return token
    }

    /// The session of the demo's admin, who creates the drivers; the first admin of an empty
    /// store is made by `wayfare admin create`, which the demo does in process before it
    /// starts this backend (see ``DemoAdmin``).
    func adminToken() async throws(ServiceError) -> String {
        if let token = state.withLock({ $0.admin }) { return token }
        let token = try await logIn(mobile: DemoAdmin.mobile, password: DemoAdmin.password)
        state.withLock { $0.admin = token }
        return token
    }

    // MARK: HTTP

    /// One request; a JSON error answer becomes the `ServiceError` it was made from.
    func call(_ method: HTTPMethod, _ path: String, token: String? = nil, key: Bool = false, body: JSONValue?) async throws(ServiceError) -> JSONValue {
        state.withLock { $0.requests += 1 }
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if key { request.headers.add(name: "Idempotency-Key", value: IdempotencyKey.random().description) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body.serialized))
        }
        let status: Int
        let bytes: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .seconds(60))
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: 16 << 20)
        } catch {
            throw Self.unavailable(error)
        }
        let json = bytes.readableBytes == 0 ? JSONValue.null : ((try? JSONParser.parse(Array(bytes.readableBytesView))) ?? .null)
        guard (200..<300).contains(status) else { throw Self.error(status: status, json) }
        return json
    }

    /// The service error an API error answer stands for (see `APIError.from`).
    static func error(status: Int, _ json: JSONValue) -> ServiceError {
        let code = json["error"]?["code"]?.stringValue ?? ""
        let message = json["error"]?["message"]?.stringValue ?? "HTTP \(status)"
        switch code {
        case "invalid":
            let field = json["error"]?["field"]?.stringValue ?? ""
            let prefix = field + ": "
            return .invalid(field: field, reason: message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
        case "not_found": return .notFound(message.hasSuffix(" not found") ? String(message.dropLast(" not found".count)) : message)
        case "conflict": return .conflict(message)
        case "unauthorized": return .unauthorized(message)
        case "forbidden", "suspended": return .forbidden(message)
        case "idempotency_key_reused": return .idempotencyKeyReused(message)
        default: return .store(.unavailable("HTTP \(status): \(message)"))
        }
    }

    static func unavailable(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        return .store(.unavailable("\(error)"))
    }

    static func malformed(_ field: String) -> ServiceError {
        .store(.decoding(column: field, expected: "the server's JSON"))
    }

    // MARK: JSON

    static func registration(_ name: String, mobile: String, email: String, password: String) -> JSONValue {
        .object([("name", .string(name)), ("mobile", .string(mobile)), ("email", .string(email)), ("password", .string(password)),
                 ("confirmation", .string(password))])
    }

    static func json(_ c: Coordinate) -> JSONValue { .object([("lat", .number(c.latitude)), ("lon", .number(c.longitude))]) }

    static func json(_ r: BookingRequest, pickupTime: Date?) -> JSONValue {
        var fields: [(String, JSONValue)] = [("pickup", json(r.pickup)), ("destination", json(r.destination)),
                                             ("cab_type", .string(r.cabType.name)), ("seats", .number(Double(r.seats))),
                                             ("payment", .string(r.payment.rawValue))]
        if let pickupTime { fields.append(("pickup_time", .string(timestamp(pickupTime)))) }
        return .object(fields)
    }

    static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    static func date(_ value: JSONValue?, _ field: String) throws(ServiceError) -> Date {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let text = value?.stringValue, let date = f.date(from: text) else { throw malformed(field) }
        return date
    }

    static func coordinate(_ value: JSONValue?, _ field: String) throws(ServiceError) -> Coordinate {
        guard let lat = value?["lat"]?.numberValue, let lon = value?["lon"]?.numberValue,
              let c = try? Coordinate(latitude: lat, longitude: lon) else { throw malformed(field) }
        return c
    }

    static func int64(_ value: JSONValue?, _ field: String) throws(ServiceError) -> Int64 {
        guard let n = value?.numberValue, n.rounded() == n, abs(n) < 9e15 else { throw malformed(field) }
        return Int64(n)
    }

    static func int(_ value: JSONValue?, _ field: String) throws(ServiceError) -> Int { Int(try int64(value, field)) }

    static func optionalInt64(_ value: JSONValue?, _ field: String) throws(ServiceError) -> Int64? {
        if value == nil || value == .null { return nil }
        return try int64(value, field)
    }

    static func booking(_ b: JSONValue, passenger: Int64) throws(ServiceError) -> Booking {
        guard let kind = b["kind"]?.stringValue.flatMap(Booking.Kind.init(rawValue:)) else { throw malformed("kind") }
        guard let state = b["state"]?.stringValue.flatMap(BookingState.init(rawValue:)) else { throw malformed("state") }
        guard let payment = b["payment"]?.stringValue.flatMap(PaymentMethod.init(rawValue:)) else { throw malformed("payment") }
        return Booking(number: try int(b["number"], "number"), passenger: passenger, kind: kind, state: state,
                       pickup: try coordinate(b["pickup"], "pickup"), destination: try coordinate(b["destination"], "destination"),
                       pickupTime: try date(b["pickup_time"], "pickup_time"), cabType: CabType(b["cab_type"]?.stringValue ?? ""),
                       seats: try int(b["seats"], "seats"), payment: payment, estimate: try int64(b["estimate"], "estimate"),
                       cab: b["cab"]?.stringValue, driver: try optionalInt64(b["driver"], "driver"),
                       etaSeconds: try optionalInt64(b["eta_s"], "eta_s").map { Int($0) }, reason: b["reason"]?.stringValue,
                       fare: try optionalInt64(b["fare"], "fare"), created: try date(b["created"], "created"))
    }

    static func offer(_ o: JSONValue, driver: Int64) throws(ServiceError) -> DriverOffer {
        guard let eta = o["eta_s"]?.numberValue else { throw malformed("eta_s") }
        return DriverOffer(id: UInt64(try int64(o["id"], "id")), driver: driver, cab: o["cab"]?.stringValue ?? "",
                           booking: try int(o["booking"], "booking"), pickup: try coordinate(o["pickup"], "pickup"),
                           destination: o["destination"] == .null ? nil : try coordinate(o["destination"], "destination"), etaSeconds: eta, expires: try date(o["expires"], "expires"))
    }
}

/// The demo's admin: made in process on the demo's own throwaway store (never on a store
/// given with `--store`), so the password can be written here.
package enum DemoAdmin {
    package static let mobile = "9000000000"
    package static let password = "Demo!admin-2026"
    package static let email = "admin@demo.example"
}
