import CityModel
import Essentials
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Storage
import TaxiDispatch
import Zones

/// Booking: estimates, booking now and for later, and the passenger's changes and
/// cancellations.
extension Bookings {
    // MARK: Booking

    /// The fare estimate of a trip for `passenger` (the first-ride promotion included).
    public func estimate(_ request: BookingRequest) async throws(ServiceError) -> FareBreakdown {
        let priced = try price(request)
        let firstRide: Bool = try await serviceCall {
            try await store.read { c in try Self.isFirstRide(c, request.passenger) }
        }
        return try Self.fare(priced, chart: city.fares, firstRide: firstRide)
    }

    /// Books a cab now. The booking is stored and its estimate held; the dispatcher then
    /// offers it to drivers. Poll ``booking(_:for:)`` (or watch the notifications) for the
    /// allocation, or the reason it was not served.
    /// - Throws: `invalid` naming the field (pickup out of every service area: "present
    ///   location is out of bounds of any service area"); `conflict` "already a booking
    ///   exists" when the passenger has one within ±30 minutes.
    public func bookNow(_ request: BookingRequest, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        try await book(request, kind: .now, at: now, key: key)
    }

    /// Books a cab for `pickupTime`: at least 30 minutes and at most 3 days ahead (the
    /// city's settings). The cab is allocated and the passenger notified 20 minutes before.
    public func bookLater(_ request: BookingRequest, at pickupTime: Date, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        try checkLead(pickupTime)
        return try await book(request, kind: .later, at: pickupTime, key: key)
    }

    func checkLead(_ pickupTime: Date) throws(ServiceError) {
        let lead = pickupTime.timeIntervalSince(now), s = city.settings
        guard lead >= s.minimumLead else {
            throw .invalid(field: "pickupTime", reason: "must be at least \(Int(s.minimumLead / 60)) minutes ahead")
        }
        guard lead <= s.maximumLead else {
            throw .invalid(field: "pickupTime", reason: "must be at most \(Self.duration(s.maximumLead)) ahead")
        }
    }

    static func duration(_ t: TimeInterval) -> String {
        t.truncatingRemainder(dividingBy: 86_400) == 0 ? "\(Int(t / 86_400)) days" : "\(Int(t / 3600)) hours"
    }

    func book(_ request: BookingRequest, kind: Booking.Kind, at pickupTime: Date, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        let priced = try price(request)
        let now = milliseconds(self.now), pickupMs = milliseconds(pickupTime)
        let settings = city.settings, chart = city.fares
        let space = max(100_000, settings.numberSpace.lowerBound)...min(999_999_999_999, max(100_000, settings.numberSpace.upperBound))
        let requestText = "\(request.passenger)|\(Self.e7(request.pickup))|\(Self.e7(request.destination))|\(request.cabType.name)|\(request.seats)|\(request.payment.rawValue)|\(kind.rawValue)|\(kind == .later ? pickupMs : 0)"
        let booked: Booking = try await serviceCall {
            // Row locks: the passenger's row first, so that the passenger's own bookings take
            // turns (the rule against two at once reads bookings it does not lock); the
            // ledger's accounts as the hold moves money.
            try await store.write(isolation: .rowLocks) { c in
                let number = try Idempotency.once(c, key: key, operation: "book", request: requestText, now: now) {
                    try Users.require(c, request.passenger, role: .passenger, locked: true)
                    try Self.refuseConflicts(c, passenger: request.passenger, at: pickupMs, window: settings.conflictWindow, except: nil)
                    let firstRide = try Self.isFirstRide(c, request.passenger)
                    let estimate = try Self.fare(priced, chart: chart, firstRide: firstRide).total
                    let number = try Self.freeNumber(c, space: space)
                    try BookingStatements(c).insert(number, request, kind: kind, pickupMs: pickupMs, estimate: estimate,
                                                    firstRide: firstRide, at: now)
                    try Self.event(c, number, .requested, now, kind == .now ? "now" : "for \(pickupMs)")
                    try Self.holdPayment(c, number: number, passenger: request.passenger, method: request.payment,
                                         estimate: estimate, reference: Self.reference(number, created: now, revision: 1), now: now)
                    try Outbox.enqueue(c, user: request.passenger, kind: .bookingConfirmed,
                                       payload: ["booking": "\(number)", "estimate": "\(estimate)", "pickup_ms": "\(pickupMs)"], now: now)
                    return number
                }
                // Read back in the same transaction (a replay answers the booking as it is
                // now): one statement here instead of two reads after the commit.
                guard let row = try BookingStatements(c).booking(number) else { throw ServiceError.notFound("booking \(number)") }
                return try row.booking()
            }
        }
        guard booked.passenger == request.passenger else { throw .notFound("booking \(booked.number)") }
        if kind == .now { dispatchIfNew(booked) }
        return booked
    }

    /// Holds the estimate, or records the trip as cash (chosen, or the wallet is short).
    static func holdPayment(_ c: any SQLConnection, number: Int, passenger: Int64, method: PaymentMethod, estimate: Int64,
                            reference: String, now: Int64) throws {
        if method == .wallet, estimate > 0 {
            if case .payCash(let available) = try Wallet.holdFare(c, reference: reference, passenger: passenger, estimate: estimate, now: now) {
                try BookingStatements(c).payInCash(number, reason: "the wallet holds \(available), less than the estimate: pay cash")
            }
        } else {
            try Wallet.recordCash(c, reference: reference, passenger: passenger, now: now)
            if method == .wallet { try BookingStatements(c).payInCash(number, reason: nil) }
        }
    }

    /// Asks the dispatcher for a cab for a booking this process has not dispatched yet.
    func dispatchIfNew(_ number: Int) async throws(ServiceError) {
        guard state.withLock({ $0.searchOfBooking[number] == nil }) else { return }
        guard let b = try? await load(number) else { return }
        dispatchIfNew(b)
    }

    /// Asks the dispatcher for a cab for `b`, read at or after its last commit, unless this
    /// process dispatched it already or it is no longer waiting for one.
    func dispatchIfNew(_ b: Booking) {
        guard b.state == .requested, state.withLock({ $0.searchOfBooking[b.number] == nil }) else { return }
        dispatch(b)
    }

    func dispatch(_ b: Booking) {
        let request = RideRequest(customer: "booking:\(b.number)", pickup: b.pickup, destination: b.destination,
                                  type: b.cabType, seats: b.seats)
        // Before the request: the dispatcher may make its first offer before it returns.
        state.withLock { $0.destinationOfBooking[b.number] = b.destination }
        do {
            let id = try dispatcher.request(request)
            state.withLock { s in if s.searchOfBooking[b.number] == nil { s.searchOfBooking[b.number] = id } }
        } catch DispatchError.customerHasOpenRequest {
            // Already searching (a replay raced the first call).
        } catch {
            let reason: String
            switch error {
            case .outOfServiceArea, .noRoadNearby: reason = error.description
            default: reason = "dispatch refused: \(error.description)"
            }
            save(b.number, .notServed(reason: reason))
        }
    }

    // MARK: Passenger's changes

    /// Cancels a booking that has no cab yet.
    /// - Throws: `conflict` once a cab is allocated ("booking N is already allocated").
    public func cancel(_ number: Int, for passenger: Int64, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        let now = milliseconds(self.now)
        let _: Bool = try await serviceCall {
            try await store.write(isolation: .rowLocks) { c in
                try Idempotency.once(c, key: key, operation: "cancel", request: "\(number)|\(passenger)", now: now) {
                    let row = try Self.ownRow(c, number, passenger, locked: true)
                    guard row.state == .requested else { throw ServiceError.conflict("booking \(number) is already \(row.state.rawValue)") }
                    try BookingStatements(c).end(number, as: .cancelled, reason: "cancelled by the passenger", at: now)
                    try Self.event(c, number, .cancelled, now, "by the passenger")
                    try Wallet.releaseFare(c, reference: row.reference, now: now)
                    try Outbox.enqueue(c, user: passenger, kind: .bookingCancelled, payload: ["booking": "\(number)"], now: now)
                    return true
                }
            }
        }
        if let search = state.withLock({ $0.searchOfBooking.removeValue(forKey: number) }) { try? dispatcher.cancel(search) }
        return try await booking(number, for: passenger)
    }

    /// Changes a booking for later before its cab is allocated: the rules are checked
    /// again, the fare estimated again and the hold replaced.
    public func change(_ number: Int, for passenger: Int64, _ change: BookingChange, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        let current = try await booking(number, for: passenger)
        guard current.kind == .later else { throw .conflict("booking \(number) is for now and cannot be changed") }
        guard current.state == .requested else { throw .conflict("booking \(number) is already \(current.state.rawValue)") }
        let pickupTime = change.pickupTime ?? current.pickupTime
        if change.pickupTime != nil { try checkLead(pickupTime) }
        let request = BookingRequest(passenger: passenger, pickup: change.pickup ?? current.pickup,
                                     destination: change.destination ?? current.destination, cabType: current.cabType,
                                     seats: current.seats, payment: current.payment, route: current.route)
        let priced = try price(request)
        let now = milliseconds(self.now), pickupMs = milliseconds(pickupTime), settings = city.settings, chart = city.fares
        let requested = request, wanted = current.payment
        let requestText = "\(number)|\(Self.e7(request.pickup))|\(Self.e7(request.destination))|\(pickupMs)"
        let _: Bool = try await serviceCall {
            try await store.write(isolation: .rowLocks) { c in
                try Idempotency.once(c, key: key, operation: "change", request: requestText, now: now) {
                    // The passenger's row first, as a booking takes it: the conflict rule below
                    // reads the passenger's other bookings.
                    try Users.require(c, passenger, role: .passenger, locked: true)
                    let row = try Self.ownRow(c, number, passenger, locked: true)
                    guard row.state == .requested, !row.dispatched else {
                        throw ServiceError.conflict("booking \(number) is already being allocated")
                    }
                    try Self.refuseConflicts(c, passenger: passenger, at: pickupMs, window: settings.conflictWindow, except: number)
                    let created = row.createdMs, revision = row.revision
                    let estimate = try Self.fare(priced, chart: chart, firstRide: row.firstRide).total
                    try Wallet.releaseFare(c, reference: row.reference, now: now)
                    try BookingStatements(c).change(number, pickup: requested.pickup, destination: requested.destination, pickupMs: pickupMs,
                                                    estimate: estimate, payment: wanted, revision: revision + 1, at: now)
                    try Self.holdPayment(c, number: number, passenger: passenger, method: wanted, estimate: estimate,
                                         reference: Self.reference(number, created: created, revision: revision + 1), now: now)
                    try Self.event(c, number, .requested, now, "changed")
                    return true
                }
            }
        }
        return try await booking(number, for: passenger)
    }
}
