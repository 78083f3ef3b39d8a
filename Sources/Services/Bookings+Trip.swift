import CityModel
import Fares
import Foundation
import Geodesy
import RoadGraph
import Storage

/// The driver's side of a trip: arrival, start, completion and the fare billed from the
/// trip's track, and the passenger's confirmation of a fare above the estimate's cap.
extension Bookings {
    /// The driver is at the pickup.
    public func arrived(_ number: Int, driver: Int64) async throws(ServiceError) {
        try await advance(number, driver: driver, from: [.allocated], to: .arrived)
    }

    /// The passenger is on board.
    ///
    /// From now until completion the cab's position reports are the trip's track; its first
    /// point is where the cab is now (its last report within a minute), else the pickup.
    public func started(_ number: Int, driver: Int64) async throws(ServiceError) {
        guard let b = try await advance(number, driver: driver, from: [.arrived], to: .started), let cab = b.cab else { return }
        let now = self.now
        var first = TrackPoint(position: b.pickup, time: now)
        if let fleetCab = try? dispatcher.fleet.cab(cab), let at = fleetCab.position, let reported = fleetCab.lastReport,
           now.timeIntervalSince(reported) <= 60 {
            first.position = at
        }
        state.withLock { s in
            s.tripOfCab[cab] = number
            s.tracks[number] = [first]
            s.unsavedPoints.append((number, first))
        }
        // The trip's route the passenger was shown, from the pickup.
        startFollowing(cab: cab, number: number, state: .started, route: try? chosenRoute(from: b.pickup, to: b.destination, choice: b.route),
                       to: b.destination)
    }

    /// Moves a booking of `driver` on; returns the booking when this call moved it (nil for
    /// a repeated tap).
    @discardableResult
    func advance(_ number: Int, driver: Int64, from: Set<BookingState>, to: BookingState) async throws(ServiceError) -> Booking? {
        let now = milliseconds(self.now)
        return try await serviceCall {
            try await store.write(isolation: .rowLocks) { c -> Booking? in
                let row = try Self.driversRow(c, number, driver, locked: true)
                if row.state == to { return nil }  // a repeated tap
                guard from.contains(row.state) else {
                    throw ServiceError.conflict("booking \(number) is \(row.state.rawValue), not \(from.map(\.rawValue).sorted().joined(separator: " or "))")
                }
                try BookingStatements(c).setState(number, to: to, at: now)
                try Self.event(c, number, to, now, "")
                return try row.booking()
            }
        }
    }

    /// Ends the trip: the final fare from the trip's track (the cab's reports since the start,
    /// matched to the road graph; the booked route when it has none), the waiting at the
    /// pickup (from the history) and on the way (from the track), the tolls and the
    /// first-ride promotion; the payment settled from the hold or in cash; the invoice
    /// queued; the cab free again.
    ///
    /// The driver's report is a claim: its metres are kept beside the billed distance, and a
    /// trip whose meter and track disagree by more than the city's tolerance is flagged for
    /// review. A wallet never pays more than the held estimate plus
    /// `BookingSettings.confirmAbovePercent` without the passenger's confirmation.
    public func complete(_ number: Int, driver: Int64, trip: TripReport, key: IdempotencyKey) async throws(ServiceError) -> TripInvoice {
        guard (0...1_000_000_000).contains(trip.metres) else { throw .invalid(field: "metres", reason: "must be between 0 and 1000000000") }
        guard (0...86_400).contains(trip.waitingOnTheWaySeconds) else {
            throw .invalid(field: "waitingOnTheWaySeconds", reason: "must be between 0 and 86400")
        }
        let b = try await load(number)
        guard b.driver == driver else { throw .notFound("booking \(number)") }
        let type = b.cabType
        let rate: FareRate
        do { rate = try city.fares.rate(at: b.pickup, in: city.zones, type: type) } catch { throw .conflict(error.description) }
        let tollWays = trip.tollWays ?? routers.with { (try? $0.route(from: b.pickup, to: b.destination))?.tollWays } ?? []
        let charge: TollList.Charge
        do { charge = try city.tolls.charge(for: tollWays, type: type) } catch { throw .conflict(error.description) }
        let measured = try await measure(b)
        let review = Self.review(meter: trip.metres, meterWaiting: trip.waitingOnTheWaySeconds, measured: measured, settings: city.settings)
        let now = milliseconds(self.now), chart = city.fares, percent = commissionPercent
        let capPercent = city.settings.confirmAbovePercent
        let invoice: TripInvoice = try await serviceCall {
            try await store.write(isolation: .rowLocks) { c in
                try Idempotency.once(c, key: key, operation: "complete", request: "\(number)|\(driver)|\(trip.metres)|\(trip.waitingOnTheWaySeconds)|\(tollWays)", now: now) {
                    let row = try Self.driversRow(c, number, driver, locked: true)
                    guard row.state == .started else { throw ServiceError.conflict("booking \(number) is \(row.state.rawValue), not started") }
                    let bookings = BookingStatements(c)
                    let times = try bookings.pickupEvents(of: number)
                    let arrivedAt = times.last { $0.state == .arrived }?.atMs
                    let startedAt = times.last { $0.state == .started }?.atMs
                    // Waiting is charged from the later of the cab's arrival and the time
                    // booked: a cab early for a booking for later waits on its own time.
                    let pickupMs = row.pickupMs
                    let atPickup = arrivedAt.flatMap { a in startedAt.map { max(0, ($0 - max(a, pickupMs)) / 1000) } } ?? 0
                    let fare = try chart.fare(TripMeasure(metres: measured.metres, waitingSeconds: atPickup + measured.waitingSeconds,
                                                          tolls: charge.total), at: rate, firstRide: row.firstRide)
                    // What the wallet pays unasked: the estimate held plus the city's margin.
                    let estimate = row.estimate
                    let cap = estimate.multipliedReportingOverflow(by: 100 + capPercent).partialValue / 100
                    let wallet = row.payment == .wallet
                    let charged = wallet ? min(fare.total, max(cap, estimate)) : fare.total
                    let awaiting = fare.total - charged
                    var flags = review.map { [$0] } ?? []
                    if awaiting > 0 { flags.append("fare \(fare.total) is above \(charged) (the estimate \(estimate) plus \(capPercent) %): \(awaiting) awaits the passenger's confirmation") }
                    let reviewText = flags.isEmpty ? nil : flags.joined(separator: "; ")
                    let paid = try Wallet.settleFare(c, reference: row.reference, fare: charged, driver: driver,
                                                     commissionPercent: percent, now: now)
                    try bookings.complete(number, fare: fare.total, billedMetres: measured.metres, meterMetres: trip.metres,
                                          review: reviewText, awaiting: awaiting, track: Self.encode(track: measured.track), at: now)
                    try Self.event(c, number, .completed, now, "fare \(fare.total), \(paid.method); billed \(measured.metres) m from \(measured.reports) reports, meter \(trip.metres) m"
                                                                + (reviewText.map { "; review: \($0)" } ?? ""))
                    return TripInvoice(booking: number, base: fare.base, distance: fare.distance, waiting: fare.waiting, tolls: fare.tolls,
                                       discount: fare.discount, total: fare.total, method: paid.method, walletPaid: paid.walletPaid,
                                       cashPaid: paid.cashPaid, commission: paid.commission, billedMetres: measured.metres,
                                       meterMetres: trip.metres, review: reviewText, awaitingConfirmation: awaiting)
                }
            }
        }
        state.withLock { s in
            s.tracks[number] = nil
            if let cab = b.cab, s.tripOfCab[cab] == number { s.tripOfCab[cab] = nil }
        }
        stopFollowing(number)
        if let cab = b.cab { try? dispatcher.setStatus(of: cab, to: .available) }
        return invoice
    }

    /// The trip's measure from its track: the points this process holds and those a previous
    /// owner of the city wrote, in time order.
    func measure(_ b: Booking) async throws(ServiceError) -> TripMeasurement {
        let number = b.number
        let stored: [TrackPoint] = try await serviceCall {
            try await store.read { c in
                try BookingStatements(c).points(of: number).map {
                    TrackPoint(position: Coordinate(unchecked: Double($0.latE7) / 1e7, Double($0.lonE7) / 1e7), time: date(milliseconds: $0.atMs))
                }
            }
        }
        let live = state.withLock { $0.tracks[number] ?? [] }
        var byTime: [Int64: TrackPoint] = [:]
        for p in stored + live { byTime[milliseconds(p.time)] = p }
        let track = byTime.keys.sorted().compactMap { byTime[$0] }
        let completedAt = now, settings = MatchSettings(gpsSigmaMetres: city.settings.trackSigmaMetres), matchers = self.matchers
        return routers.with { router in
            let booked = (try? router.route(from: b.pickup, to: b.destination))?.distanceMetres
            return TripMeasurement.measure(track: track, pickup: b.pickup, destination: b.destination, completedAt: completedAt, booked: booked,
                                           route: { a, z in
                                               // Across a break: the shortest road between the reports either side.
                                               (try? router.route(from: a, to: z, metric: .distance))?.distanceMetres
                                           },
                                           match: { trace in matchers.with { $0.match(trace, settings: settings) } })
        }
    }

    /// A driven track as stored: one polyline (10⁻⁶ degrees) per piece, separated by spaces
    /// (the format's characters are 63 to 126, so a space never occurs in one).
    static func encode(track: [[Coordinate]]) -> String {
        track.filter { !$0.isEmpty }.map { Polyline.encode($0, precision: 6) }.joined(separator: " ")
    }

    static func decode(track: String) -> [[Coordinate]] {
        track.split(separator: " ").compactMap { Polyline.decode(String($0), precision: 6) }
    }

    /// The track the cab drove on a completed trip, matched to the roads, one line per piece
    /// (a new piece after a gap no route explains); empty before completion or for a trip
    /// without position reports. The passenger's own bookings only.
    public func drivenTrack(of number: Int, for passenger: Int64) async throws(ServiceError) -> [[Coordinate]] {
        _ = try await booking(number, for: passenger)
        let stored = try await serviceCall { try await store.read { c in try BookingStatements(c).drivenTrack(number) } }
        return stored.map(Self.decode(track:)) ?? []
    }

    /// The driven tracks of the latest `limit` completed trips, newest first (the demo's map).
    package func drivenTracks(limit: Int) async throws(ServiceError) -> [[[Coordinate]]] {
        try await serviceCall { try await store.read { c in try BookingStatements(c).drivenTracks(limit: limit).map(Self.decode(track:)) } }
    }

    /// Why a trip's meter and track disagree beyond the city's tolerance, or nil.
    static func review(meter: Int64, meterWaiting: Int64, measured: TripMeasurement, settings: BookingSettings) -> String? {
        var reasons: [String] = []
        let tolerance = max(settings.meterToleranceMetres, settings.meterToleranceShare * Double(measured.metres))
        if abs(Double(meter) - Double(measured.metres)) > tolerance {
            reasons.append("meter \(meter) m, track \(measured.metres) m")
        }
        if meterWaiting > measured.waitingSeconds + 120 {
            reasons.append("meter waited \(meterWaiting) s, track \(measured.waitingSeconds) s")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// The passenger confirms the part of a fare that was above what the wallet pays unasked:
    /// it is paid from the wallet now, once (by `key`).
    /// - Throws: `conflict` when nothing awaits confirmation or the wallet holds too little.
    public func confirmFare(_ number: Int, for passenger: Int64, key: IdempotencyKey) async throws(ServiceError) -> Int64 {
        let now = milliseconds(self.now), percent = commissionPercent
        return try await serviceCall {
            try await store.write(isolation: .rowLocks) { c in
                try Idempotency.once(c, key: key, operation: "confirm-fare", request: "\(number)|\(passenger)", now: now) { () -> Int64 in
                    let row = try Self.ownRow(c, number, passenger, locked: true)
                    let awaiting = row.awaitingConfirmation
                    guard awaiting > 0, let driver = row.driverID else {
                        throw ServiceError.conflict("booking \(number) has no fare awaiting confirmation")
                    }
                    try Wallet.payConfirmed(c, reference: row.reference, passenger: passenger, amount: awaiting, driver: driver,
                                            commissionPercent: percent, now: now)
                    try BookingStatements(c).clearAwaiting(number, at: now)
                    try Self.event(c, number, .completed, now, "the passenger confirmed \(awaiting) more")
                    return awaiting
                }
            }
        }
    }
}
