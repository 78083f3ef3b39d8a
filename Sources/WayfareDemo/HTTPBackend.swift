import AsyncHTTPClient
import Essentials
import Fleet
import Foundation
import GeoJSON
import Geodesy
import NIOCore
import NIOHTTP1
import ServiceSimulation
import Services
import TaxiDispatch
import WayfareAPI

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
        let sent = try await call(.register, body: Self.account("Passenger \(n)", mobile: mobile, email: "passenger\(n)@simulation.example",
                                                                 password: password), as: CodeSent.self)
        // The demo's server runs test SMS: the code comes back in the answer.
        guard let code = sent.testCode else { throw .conflict("no verification code for \(mobile)") }
        let id = try await call(.verify, body: AccountVerification(mobile: mobile, code: code), as: UserAnswer.self).id
        let token = try await logIn(mobile: mobile, password: password)
        state.withLock { $0.passengers[id] = token }
        return id
    }

    package func refill(passenger: Int64, amount: Int64) async throws(ServiceError) {
        let answer = try await call(.refill, token: passengerToken(passenger), body: RefillOrder(amount: amount, paymentToken: "tok_visa"),
                                    as: RefillOutcome.self)
        guard answer.status == .completed else { throw .conflict("the test card was not charged: \(answer.status.rawValue)") }
    }

    package func startShift(driver n: Int, cab: CabProfile) async throws(ServiceError) -> Int64 {
        let admin = try await adminToken()
        let mobile = String(7_000_000_000 + n), password = "simulated driver 2026"
        let id = try await call(.createDriver, token: admin, body: Self.account("Driver \(n)", mobile: mobile, email: "driver\(n)@simulation.example",
                                                                              password: password), as: UserAnswer.self).id
        let token = try await logIn(mobile: mobile, password: password)
        try await call(.startShift, token: token, body: ShiftStart(cabID: cab.id, cabType: cab.type.name, seats: cab.seats))
        state.withLock { $0.drivers[id] = (token, cab.id) }
        return id
    }

    package func report(driver: Int64, position: Coordinate, at time: Date) async throws(ServiceError) {
        try await call(.reportPosition, token: driverToken(driver), body: PositionReport(position: LatLon(position)))
        // A report can bring a cab into reach of a waiting booking: the dispatcher may offer.
        state.withLock { $0.pollNeeded = true }
    }

    package func setAvailable(driver: Int64, _ available: Bool) async throws(ServiceError) {
        try await call(.setAvailability, token: driverToken(driver), body: AvailabilityChange(available: available))
        state.withLock { s in
            s.pollNeeded = true
            if available { s.unavailable.remove(driver) } else { s.unavailable.insert(driver) }
        }
    }

    package func bookNow(_ request: BookingRequest) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.book, token: passengerToken(request.passenger), body: Self.order(request, pickupTime: nil),
                                                      as: BookingAnswer.self), passenger: request.passenger)
        state.withLock { s in
            s.pollNeeded = true
            if booking.state == .requested { s.awaiting[booking.number] = .distantPast }
        }
        return booking
    }

    package func bookLater(_ request: BookingRequest, at pickupTime: Date) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.book, token: passengerToken(request.passenger), body: Self.order(request, pickupTime: pickupTime),
                                                      as: BookingAnswer.self), passenger: request.passenger)
        let from = pickupTime.addingTimeInterval(-allocateBefore - 60)
        state.withLock { $0.awaiting[booking.number] = from }
        return booking
    }

    package func cancel(_ booking: Int, passenger: Int64) async throws(ServiceError) {
        _ = try await call(.cancelBooking, ["number": "\(booking)"], token: passengerToken(passenger), as: BookingAnswer.self)
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
            guard let answer = try? await call(.offers, token: token, as: OfferList.self) else { continue }
            offers += answer.offers.compactMap { Self.offer($0, driver: driver) }
        }
        let fresh = state.withLock { s in offers.filter { s.offersSeen.insert($0.id).inserted } }
        return fresh.sorted { $0.id < $1.id }
    }

    package func answer(_ offer: DriverOffer, accept: Bool) async throws(ServiceError) {
        try await call(.answerOffer, ["id": "\(offer.id)"], token: driverToken(offer.driver), body: OfferReply(accept: accept))
        state.withLock { s in
            s.pollNeeded = true
            if accept {
                s.awaiting.removeValue(forKey: offer.booking)
                s.unavailable.insert(offer.driver)
            }
        }
    }

    package func arrived(_ booking: Int, driver: Int64) async throws(ServiceError) {
        try await call(.arrived, ["number": "\(booking)"], token: driverToken(driver))
    }

    package func started(_ booking: Int, driver: Int64) async throws(ServiceError) {
        try await call(.started, ["number": "\(booking)"], token: driverToken(driver))
    }

    package func complete(_ booking: Int, driver: Int64, metres: Int64) async throws(ServiceError) -> TripInvoice {
        defer { state.withLock { $0.pollNeeded = true; $0.unavailable.remove(driver) } }
        let i = try await call(.completeTrip, ["number": "\(booking)"], token: driverToken(driver), body: TripEnd(metres: metres), as: InvoiceAnswer.self)
        return TripInvoice(booking: i.booking, base: i.base, distance: i.distance, waiting: i.waiting, tolls: i.tolls, discount: i.discount,
                           total: i.total, method: i.method, walletPaid: i.walletPaid, cashPaid: i.cashPaid, commission: i.commission)
    }

    package func booking(_ number: Int, passenger: Int64) async throws(ServiceError) -> Booking {
        let booking = try Self.booking(try await call(.booking, ["number": "\(number)"], token: passengerToken(passenger), as: BookingAnswer.self),
                                       passenger: passenger)
        if booking.state != .requested { state.withLock { _ = $0.awaiting.removeValue(forKey: number) } }
        return booking
    }

    package func runDue() async throws(ServiceError) {
        do { try await periodic() } catch { throw Self.unavailable(error) }
        state.withLock { $0.pollNeeded = true }
    }

    package func companyAccounts() async throws(ServiceError) -> CompanyAccounts {
        let l = try await call(.ledger, token: adminToken(), as: LedgerSummary.self)
        return CompanyAccounts(revenue: l.revenue, escrowHeld: l.escrowHeld, gatewayOwes: l.gatewayOwes, owedToDrivers: l.owedToDrivers,
                               owedToPassengers: l.owedToPassengers)
    }

    package func auditLedger() async throws(ServiceError) -> (sound: Bool, transfers: Int) {
        let l = try await call(.ledger, token: adminToken(), as: LedgerSummary.self)
        guard let transfers = Int(exactly: l.transfers) else { throw Self.malformed("transfers") }
        return (l.sound, transfers)
    }

    // MARK: Sessions

    func logIn(mobile: String, password: String) async throws(ServiceError) -> String {
        try await call(.logIn, body: Credentials(mobile: mobile, password: password), as: SessionGrant.self).token
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

    /// A call of `endpoint` with a JSON body, its answer read as `Answer` (leniently: a newer
    /// server's extra fields are ignored).
    func call<Body: Encodable, Answer: Decodable>(_ endpoint: Endpoint, _ ids: [String: String] = [:], token: String? = nil, body: Body,
                                                  as answer: Answer.Type) async throws(ServiceError) -> Answer {
        try Self.read(answer, try await send(endpoint, ids, token: token, body: WireEncoder.bytes(body)))
    }

    /// A call of `endpoint` without a body.
    func call<Answer: Decodable>(_ endpoint: Endpoint, _ ids: [String: String] = [:], token: String? = nil,
                                 as answer: Answer.Type) async throws(ServiceError) -> Answer {
        try Self.read(answer, try await send(endpoint, ids, token: token, body: nil))
    }

    /// A call of `endpoint` whose answer has no body.
    func call(_ endpoint: Endpoint, _ ids: [String: String] = [:], token: String? = nil, body: (some Encodable)? = Optional<Accepted>.none) async throws(ServiceError) {
        _ = try await send(endpoint, ids, token: token, body: body.map { WireEncoder.bytes($0) })
    }

    static func read<Answer: Decodable>(_ type: Answer.Type, _ bytes: ByteBuffer) throws(ServiceError) -> Answer {
        do { return try WireDecoder.answers.decode(type, from: bytes.readableBytesView) } catch { throw malformed(error.description) }
    }

    /// One request: `ids` fill the path's `{name}`s; an `Idempotency-Key` when the endpoint
    /// takes one; a JSON error answer becomes the `ServiceError` it was made from.
    func send(_ endpoint: Endpoint, _ ids: [String: String], token: String?, body: [UInt8]?) async throws(ServiceError) -> ByteBuffer {
        state.withLock { $0.requests += 1 }
        var path = endpoint.path
        for (name, value) in ids { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        var request = HTTPClientRequest(url: base + path)
        request.method = HTTPMethod(rawValue: endpoint.method.rawValue)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if endpoint.isIdempotent { request.headers.add(name: Parameter.idempotencyKey.name, value: IdempotencyKey.random().description) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
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
        guard (200..<300).contains(status) else {
            let answer = try? WireDecoder.answers.decode(ErrorAnswer.self, from: bytes.readableBytesView)
            throw Self.error(status: status, answer)
        }
        return bytes
    }

    /// The service error an API error answer stands for (see `APIError.from`).
    static func error(status: Int, _ answer: ErrorAnswer?) -> ServiceError {
        let code = answer?.error.code ?? ""
        let message = answer?.error.message ?? "HTTP \(status)"
        switch code {
        case "invalid":
            let field = answer?.error.field ?? ""
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

    // MARK: The wire's types and the services'

    static func account(_ name: String, mobile: String, email: String, password: String) -> NewAccount {
        NewAccount(name: name, mobile: mobile, email: email, password: password, confirmation: password)
    }

    static func order(_ r: BookingRequest, pickupTime: Date?) -> BookingOrder {
        BookingOrder(trip: TripOrder(pickup: LatLon(r.pickup), destination: LatLon(r.destination), cabType: r.cabType.name, seats: r.seats,
                                     payment: r.payment), pickupTime: pickupTime)
    }

    static func booking(_ b: BookingAnswer, passenger: Int64) throws(ServiceError) -> Booking {
        guard let pickup = try? b.pickup.coordinate, let destination = try? b.destination.coordinate else { throw malformed("pickup") }
        return Booking(number: b.number, passenger: passenger, kind: b.kind, state: b.state, pickup: pickup, destination: destination,
                       pickupTime: b.pickupTime, cabType: CabType(b.cabType), seats: b.seats, payment: b.payment, estimate: b.estimate,
                       cab: b.cab, driver: b.driver, etaSeconds: b.etaS, reason: b.reason, fare: b.fare, created: b.created)
    }

    static func offer(_ o: OfferAnswer, driver: Int64) -> DriverOffer? {
        guard let pickup = try? o.pickup.coordinate else { return nil }
        return DriverOffer(id: o.id, driver: driver, cab: o.cab, booking: o.booking, pickup: pickup,
                           destination: o.destination.flatMap { try? $0.coordinate }, etaSeconds: o.etaS, expires: o.expires)
    }
}

/// The demo's admin: made in process on the demo's own throwaway store (never on a store
/// given with `--store`), so the password can be written here.
package enum DemoAdmin {
    package static let mobile = "9000000000"
    package static let password = "Demo!admin-2026"
    package static let email = "admin@demo.example"
}
