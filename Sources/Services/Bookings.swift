import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Storage
import TaxiDispatch
import Zones

/// Bookings now and later, from the fare estimate to the paid trip (000 UC05–07, 19, 22–24;
/// 001; 004), on the city's `Dispatcher` (TaxiDispatch) and any store.
///
/// The engine decides which cab and how long; this service keeps the rules and the records:
/// - **Now**: the booking is stored, the estimate held in the wallet, and the dispatcher
///   asked for a cab within its ETA limit (30 minutes); when none accepts in time the
///   booking ends *not served* with the reason.
/// - **Later**: 30 minutes to 3 days ahead, never within ±30 minutes of another of the
///   passenger's bookings ("already a booking exists"); editable and cancellable until its
///   cab is allocated, 20 minutes before (``BookingSettings``). ``runDue()`` allocates what
///   fell due; a host calls it every few seconds.
/// - Every state change is a row in the booking's history, with its time.
///
/// Dispatch outcomes (a driver accepted, a search ended) are written to the store when the
/// dispatcher announces them; an outcome the store refused is kept and written again by the
/// next ``runDue()``, so an acknowledged allocation is not lost to a brief outage.
///
/// One process owns a city's dispatcher; ``resume()`` gives it back the cabs on shift and
/// the searches a previous process left open.
///
/// `Sendable`: its stored properties are immutable and `Sendable`, and its mutable
/// bookkeeping (outstanding offers, open searches, routers) sits behind locks.
public final class Bookings: Sendable {
    let store: any SQLStore
    /// The city served.
    public let city: City
    /// The city's dispatcher: cabs report positions and statuses through it.
    public let dispatcher: Dispatcher
    let clock: any FleetClock
    let commissionPercent: Int64
    let routers: RouterPool
    let onOffer: (@Sendable (DriverOffer) -> Void)?
    let state = Locked(LiveState())
    /// How this process's searches ended, for the server's metrics.
    let outcomes = Locked(DispatchOutcomeCounts())

    struct LiveState {
        var offers: [UInt64: Offer] = [:]
        var driverOfCab: [String: Int64] = [:]
        var searchOfBooking: [Int: RequestID] = [:]
        /// Where each booking being dispatched goes: offers tell the driver.
        var destinationOfBooking: [Int: Coordinate] = [:]
        /// Outcomes the store refused, written again by `runDue`.
        var unsaved: [(number: Int, outcome: Outcome)] = []
        /// The trip each cab is on (started, not completed), by cab.
        var tripOfCab: [String: Int] = [:]
        /// Each trip's track in this process, from its start.
        var tracks: [Int: [TrackPoint]] = [:]
        /// Track points not yet written to the store (``persistPositions()`` writes them).
        var unsavedPoints: [(number: Int, point: TrackPoint)] = []
    }

    /// A trip's track keeps at most this many points in memory (a day at one report every 5 s).
    static let maximumTrackPoints = 17_280

    /// The bookings of `city` on `store`.
    ///
    /// - Parameters:
    ///   - store: the store, migrated to ``ServiceSchema``.
    ///   - city: the city served.
    ///   - wallet: the wallet settings (the commission taken at settlement).
    ///   - dispatch: the dispatcher's rules (offer timeout, search limit, 30-minute ETA limit).
    ///   - policy: how the dispatcher picks cabs.
    ///   - scheduler: the timers of the dispatcher; its clock is the services' clock, so a
    ///     virtual scheduler tests every timed rule without sleeping.
    ///   - offers: called with each offer to a driver (the server pushes it to the app).
    public init(store: any SQLStore, city: City, wallet: WalletSettings = WalletSettings(),
                dispatch: Dispatcher.Configuration = .init(), policy: any DispatchPolicy = FastestArrivalPolicy(),
                scheduler: any DispatchScheduler = SystemScheduler(),
                offers: (@Sendable (DriverOffer) -> Void)? = nil) throws(ServiceError) {
        self.store = store
        self.city = city
        clock = scheduler.clock
        commissionPercent = wallet.commissionPercent
        routers = RouterPool(network: city.network)
        onOffer = offers
        let relay = NotificationRelay()
        var fleet = Fleet.Configuration()
        fleet.cabTypes = city.fares.rates.values.reduce(into: Set<String>()) { $0.formUnion($1.keys) }.sorted().map(CabType.init)
        if fleet.cabTypes.isEmpty { fleet.cabTypes = Fleet.Configuration().cabTypes }
        do {
            dispatcher = try Dispatcher(zones: city.zones, network: city.network, fleetConfiguration: fleet, configuration: dispatch,
                                        policy: policy, scheduler: scheduler, notify: { n in relay.send(n) })
        } catch { throw .invalid(field: "dispatch", reason: error.description) }
        relay.connect(self)
    }

    var now: Date { clock.now() }

    // MARK: Cabs and drivers

    /// Puts `driver` on shift in `cab`: the cab joins the fleet (unattended until the
    /// driver reports a position and becomes available). A driver drives one cab at a time,
    /// and a cab has one driver.
    public func startShift(driver: Int64, cab: CabProfile) async throws(ServiceError) {
        let id = try Validate.text(cab.id, field: "cab", maximum: 64)
        guard id == cab.id, cab.id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalid(field: "cab", reason: "must be 1 to 64 visible ASCII characters")
        }
        guard (1...50).contains(cab.seats) else { throw .invalid(field: "seats", reason: "must be between 1 and 50") }
        guard dispatcher.fleet.configuration.cabTypes.contains(cab.type) else {
            throw .invalid(field: "cabType", reason: "the city has no fare for cab type \"\(cab.type.name)\"")
        }
        let now = milliseconds(self.now)
        // A driver who changes cab leaves the old one: out of the fleet and the queues, so it
        // is neither offered nor shown. Not in the middle of a trip or an offer.
        let previous = state.withLock { s in s.driverOfCab.first { $0.value == driver && $0.key != cab.id }?.key }
        if let previous {
            guard state.withLock({ $0.tripOfCab[previous] == nil }) else {
                throw .conflict("driver \(driver) is on a trip in cab \(previous); complete it first")
            }
            do { try dispatcher.retire(cab: previous) } catch {
                if case .invalidCab = error { throw .conflict("cab \(previous) has an offer outstanding; answer it first") }
            }
            state.withLock { s in s.driverOfCab[previous] = nil }
        }
        try await serviceCall {
            try await store.write { c in
                try Users.require(c, driver, role: .driver)
                if let row = try c.first("SELECT cab_id FROM cab_drivers WHERE driver_id = ?", [.integer(driver)]),
                   try row.string("cab_id") != cab.id {
                    try c.execute("DELETE FROM cab_drivers WHERE driver_id = ?", [.integer(driver)])
                    try c.execute("DELETE FROM cab_positions WHERE cab_id = ?", [.text(try row.string("cab_id"))])
                }
                if let row = try c.first("SELECT driver_id FROM cab_drivers WHERE cab_id = ?", [.text(cab.id)]) {
                    guard try row.int64("driver_id") == driver else { throw ServiceError.conflict("cab \(cab.id) is driven by another driver") }
                    return
                }
                try c.execute("INSERT INTO cab_drivers (cab_id, driver_id, cab_type, seats, since_ms) VALUES (?, ?, ?, ?, ?)",
                              [.text(cab.id), .integer(driver), .text(cab.type.name), .integer(Int64(cab.seats)), .integer(now)])
            }
        }
        try join(cab, driver: driver)
    }

    func join(_ cab: CabProfile, driver: Int64) throws(ServiceError) {
        state.withLock { s in
            s.driverOfCab = s.driverOfCab.filter { $0.value != driver }
            s.driverOfCab[cab.id] = driver
        }
        if (try? dispatcher.fleet.cab(cab.id)) == nil {
            do { try dispatcher.register([cab]) } catch { throw .invalid(field: "cab", reason: error.description) }
        }
    }

    /// A driver's position report, straight to the dispatcher (nothing is stored: positions
    /// are many and short-lived).
    ///
    /// A report made during a trip is also a point of the trip's track, from which the fare is
    /// billed (``TripMeasurement``).
    public func report(driver: Int64, position: Coordinate, at time: Date) throws(ServiceError) {
        let cab = try cab(of: driver)
        do { try dispatcher.report(cab: cab, position: position, at: time) } catch { throw .invalid(field: "position", reason: error.description) }
        state.withLock { s in
            guard let number = s.tripOfCab[cab] else { return }
            let point = TrackPoint(position: position, time: time)
            guard (s.tracks[number]?.count ?? 0) < Self.maximumTrackPoints, s.tracks[number]?.last.map({ $0.time < time }) ?? true else { return }
            s.tracks[number, default: []].append(point)
            s.unsavedPoints.append((number, point))
        }
    }

    /// Writes every cab's last position and status to the store in one transaction, for the
    /// replica that may take the city over (`resume()`); the owner's periodic work calls it.
    /// The trips' new track points are written in the same transaction.
    public func persistPositions() async throws(ServiceError) {
        let cabs = dispatcher.fleet.allCabs().compactMap { cab -> (String, Coordinate, Date, String)? in
            guard let at = cab.position, let time = cab.lastReport else { return nil }
            return (cab.id, at, time, "\(cab.status)")
        }
        let points = state.withLock { s in defer { s.unsavedPoints = [] }; return s.unsavedPoints }
        guard !cabs.isEmpty || !points.isEmpty else { return }
        let fence = self.fence.withLock { $0 }
        do {
            try await Self.persist(store, fence: fence, cabs: cabs, points: points)
        } catch {
            // Kept for the next round: a trip's track must not lose its points to an outage.
            state.withLock { s in s.unsavedPoints = points + s.unsavedPoints }
            throw error
        }
    }

    static func persist(_ store: any SQLStore, fence: (city: String, token: Int64)?, cabs: [(String, Coordinate, Date, String)],
                        points: [(number: Int, point: TrackPoint)]) async throws(ServiceError) {
        try await serviceCall {
            try await store.write { c in
                try checkFence(fence, c)
                for (number, point) in points {
                    try c.execute("""
                        INSERT INTO trip_points (booking_number, at_ms, lat_e7, lon_e7) VALUES (?, ?, ?, ?)
                        ON CONFLICT (booking_number, at_ms) DO NOTHING
                        """, [.integer(Int64(number)), .integer(milliseconds(point.time)), .integer(e7(point.position.latitude)),
                              .integer(e7(point.position.longitude))])
                }
                for (id, at, time, status) in cabs {
                    try c.execute("""
                        INSERT INTO cab_positions (cab_id, lat_e7, lon_e7, reported_ms, status) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (cab_id) DO UPDATE SET lat_e7 = excluded.lat_e7, lon_e7 = excluded.lon_e7,
                            reported_ms = excluded.reported_ms, status = excluded.status
                        """, [.text(id), .integer(Int64((at.latitude * 1e7).rounded())), .integer(Int64((at.longitude * 1e7).rounded())),
                              .integer(Int64((time.timeIntervalSince1970 * 1000).rounded())), .text(status)])
                }
            }
        }
    }

    /// A driver becomes available for bookings, or steps away.
    public func setAvailable(driver: Int64, _ available: Bool) throws(ServiceError) {
        let cab = try cab(of: driver)
        do { try dispatcher.setStatus(of: cab, to: available ? .available : .unattended) } catch {
            throw .conflict(error.description)
        }
    }

    func cab(of driver: Int64) throws(ServiceError) -> String {
        guard let cab = state.withLock({ s in s.driverOfCab.first { $0.value == driver }?.key }) else {
            throw .conflict("driver \(driver) is not on shift")
        }
        return cab
    }

    /// The offers outstanding for `driver` now.
    public func offers(for driver: Int64) -> [DriverOffer] {
        state.withLock { s in s.offers.values.compactMap { o in driverOffer(o, s) }.filter { $0.driver == driver } }
    }

    /// A driver's answer to an offer. Accepting allocates the booking to the driver's cab
    /// and stores it before returning.
    /// - Throws: `forbidden` when the offer is another driver's; `conflict` when it is no
    ///   longer open (answered, lapsed or withdrawn).
    public func answer(offer: UInt64, driver: Int64, accept: Bool) async throws(ServiceError) {
        let cab: String? = state.withLock { s in s.offers[offer].flatMap { s.driverOfCab[$0.cab] == driver ? $0.cab : nil } }
        guard cab != nil else {
            let exists = state.withLock { $0.offers[offer] != nil }
            throw exists ? .forbidden("offer \(offer) is another driver's") : .conflict("offer \(offer) is no longer open")
        }
        // Off the cooperative pool: accepting writes the allocation to the store on this thread.
        let dispatcher = self.dispatcher
        try await serviceCall {
            try await offThePool {
                do { try dispatcher.answer(offer, accept: accept) } catch {
                    throw ServiceError.conflict("offer \(offer) is no longer open")
                }
            }
        }
    }

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
        let number: Int = try await serviceCall {
            try await store.write(locking: Ledger.turns) { c in
                try Idempotency.once(c, key: key, operation: "book", request: requestText, now: now) {
                    try Users.require(c, request.passenger, role: .passenger)
                    try Self.refuseConflicts(c, passenger: request.passenger, at: pickupMs, window: settings.conflictWindow, except: nil)
                    let firstRide = try Self.isFirstRide(c, request.passenger)
                    let estimate = try Self.fare(priced, chart: chart, firstRide: firstRide).total
                    let number = try Self.freeNumber(c, space: space)
                    try c.execute("""
                        INSERT INTO bookings (number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7,
                            pickup_ms, cab_type, seats, payment, estimate, first_ride, dispatched, created_ms, updated_ms)
                        VALUES (?, ?, ?, 'requested', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, [.integer(Int64(number)), .integer(request.passenger), .text(kind.rawValue),
                              .integer(Self.e7(request.pickup.latitude)), .integer(Self.e7(request.pickup.longitude)),
                              .integer(Self.e7(request.destination.latitude)), .integer(Self.e7(request.destination.longitude)),
                              .integer(pickupMs), .text(request.cabType.name), .integer(Int64(request.seats)),
                              .text(request.payment.rawValue), .integer(estimate), .integer(firstRide ? 1 : 0),
                              .integer(kind == .now ? 1 : 0), .integer(now), .integer(now)])
                    try Self.event(c, number, .requested, now, kind == .now ? "now" : "for \(pickupMs)")
                    try Self.holdPayment(c, number: number, passenger: request.passenger, method: request.payment,
                                         estimate: estimate, reference: Self.reference(number, created: now, revision: 1), now: now)
                    try Outbox.enqueue(c, user: request.passenger, kind: .bookingConfirmed,
                                       payload: ["booking": "\(number)", "estimate": "\(estimate)", "pickup_ms": "\(pickupMs)"], now: now)
                    return number
                }
            }
        }
        if kind == .now { try await dispatchIfNew(number) }
        return try await booking(number, for: request.passenger)
    }

    /// Holds the estimate, or records the trip as cash (chosen, or the wallet is short).
    static func holdPayment(_ c: any SQLConnection, number: Int, passenger: Int64, method: PaymentMethod, estimate: Int64,
                            reference: String, now: Int64) throws {
        if method == .wallet, estimate > 0 {
            if case .payCash(let available) = try Wallet.holdFare(c, reference: reference, passenger: passenger, estimate: estimate, now: now) {
                try c.execute("UPDATE bookings SET payment = 'cash', reason = ? WHERE number = ?",
                              [.text("the wallet holds \(available), less than the estimate: pay cash"), .integer(Int64(number))])
            }
        } else {
            try Wallet.recordCash(c, reference: reference, passenger: passenger, now: now)
            if method == .wallet { try c.execute("UPDATE bookings SET payment = 'cash' WHERE number = ?", [.integer(Int64(number))]) }
        }
    }

    /// Asks the dispatcher for a cab for a booking this process has not dispatched yet.
    func dispatchIfNew(_ number: Int) async throws(ServiceError) {
        guard state.withLock({ $0.searchOfBooking[number] == nil }) else { return }
        guard let b = try? await load(number), b.state == .requested else { return }
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

    // MARK: Dispatch outcomes

    /// The dispatcher's announcements: offers go to drivers, ends to the store.
    func dispatched(_ n: DispatchNotification) {
        switch n {
        case let .offer(o):
            let offer: DriverOffer? = state.withLock { s in
                s.offers[o.id] = o
                return driverOffer(o, s)
            }
            if let offer { onOffer?(offer) }
        case let .offerWithdrawn(o):
            _ = state.withLock { $0.offers.removeValue(forKey: o.id) }
        case let .requestEnded(id, customer, status):
            guard let number = Self.bookingNumber(customer) else { return }
            state.withLock { s in
                if s.searchOfBooking[number] == id {
                    s.searchOfBooking[number] = nil
                    s.destinationOfBooking[number] = nil
                }
            }
            switch status {
            case let .assigned(a): save(number, .allocated(a))
            case let .notServed(reason): save(number, .notServed(reason: Self.describe(reason)))
            case .cancelled, .searching: break
            }
        }
    }

    func driverOffer(_ o: Offer, _ s: LiveState) -> DriverOffer? {
        guard let driver = s.driverOfCab[o.cab], let number = Self.bookingNumber(o.customer) else { return nil }
        return DriverOffer(id: o.id, driver: driver, cab: o.cab, booking: number, pickup: o.pickup,
                           destination: s.destinationOfBooking[number], etaSeconds: o.etaSeconds, expires: o.expires)
    }

    /// The booking a dispatcher customer name stands for ("booking:123456").
    static func bookingNumber(_ customer: String) -> Int? {
        customer.hasPrefix("booking:") ? Int(customer.dropFirst(8)) : nil
    }

    static func describe(_ reason: NotServedReason) -> String {
        switch reason {
        case .noTaxiAvailable: "no cab could reach the pickup within the ETA limit"
        case .noTaxiAccepted: "no driver accepted in time"
        }
    }

    /// The lease a replica must still hold for its dispatch outcomes to be written (nil: the
    /// only process, unfenced). Set by the server from its `CityLease` at every renewal.
    let fence = Locked<(city: String, token: Int64)?>(nil)

    /// Writes dispatch outcomes only while the lease of `city` has `token` (a former owner
    /// that was paused past its lease cannot allocate once another replica took the city);
    /// `token` 0 refuses them all, nil lifts the fence.
    package func fence(city: String, token: Int64?) {
        fence.withLock { $0 = token.map { (city, $0) } }
    }

    /// Throws when the fence's token is not the lease's token any more: the write is not
    /// done, and the outcome waits in `unsaved` (which only the owner's `runDue` writes).
    ///
    /// Every write of the city's owner calls it first, in its own transaction (dispatch
    /// outcomes, claiming due bookings, positions and track points). On PostgreSQL the lease
    /// row is read `FOR SHARE`: a takeover's update of the row waits until this transaction
    /// ends, so no write of a former owner can commit after another replica took the city.
    /// SQLite runs one writer at a time, which gives the same order.
    static func checkFence(_ fence: (city: String, token: Int64)?, _ c: any SQLConnection) throws {
        guard let fence else { return }
        let lock = c.dialect == .postgres ? " FOR SHARE" : ""
        let token = try c.first("SELECT token FROM city_leases WHERE city = ?" + lock, [.text(fence.city)])?.int64("token")
        guard token == fence.token else {
            throw ServiceError.conflict("the lease of \(fence.city) moved on (token \(token ?? 0), this replica's \(fence.token))")
        }
    }

    /// How many searches this process ended with a cab and without one, since it started.
    package var dispatchOutcomes: DispatchOutcomeCounts { outcomes.withLock { $0 } }

    /// How a search ended, to be stored.
    enum Outcome { case allocated(Assignment), notServed(reason: String) }

    /// Writes a dispatch outcome; when the store refuses, keeps it for ``runDue()``.
    func save(_ number: Int, _ outcome: Outcome) {
        outcomes.withLock { counts in
            switch outcome {
            case .allocated: counts.allocated += 1
            case .notServed: counts.notServed += 1
            }
        }
        do { try write(number, outcome) } catch {
            state.withLock { $0.unsaved.append((number, outcome)) }
        }
    }

    func write(_ number: Int, _ outcome: Outcome) throws {
        let now = milliseconds(self.now)
        switch outcome {
        case let .allocated(a):
            let driver = state.withLock { $0.driverOfCab[a.cab] }
            let fence = self.fence.withLock { $0 }
            let freeTheCab: Bool = try store.blockingWrite { c in
                try Self.checkFence(fence, c)
                guard let row = try c.first("SELECT passenger_id, kind, state, pickup_ms FROM bookings WHERE number = ?",
                                            [.integer(Int64(number))]) else { return true }
                // Cancelled while the driver was accepting: the cab is free again.
                guard try row.string("state") == BookingState.requested.rawValue else { return true }
                let eta = Int64(a.eta.seconds.rounded())
                try c.execute("""
                    UPDATE bookings SET state = 'allocated', cab_id = ?, driver_id = ?, eta_seconds = ?, updated_ms = ? WHERE number = ?
                    """, [.text(a.cab), driver.map { .integer($0) } ?? .null, .integer(eta), .integer(now), .integer(Int64(number))])
                try Self.event(c, number, .allocated, now, "cab \(a.cab), ETA \(eta) s")
                let later = try row.string("kind") == Booking.Kind.later.rawValue
                try Outbox.enqueue(c, user: try row.int64("passenger_id"), kind: later ? .pickupNotice : .cabAllocated,
                                   payload: ["booking": "\(number)", "cab": a.cab, "eta_seconds": "\(eta)",
                                             "pickup_ms": "\(try row.int64("pickup_ms"))"], now: now)
                return false
            }
            if freeTheCab { try? dispatcher.setStatus(of: a.cab, to: .available) }
        case let .notServed(reason):
            let fence = self.fence.withLock { $0 }
            try store.blockingWrite(locking: Ledger.turns) { c in
                try Self.checkFence(fence, c)
                guard let row = try c.first("SELECT passenger_id, state, created_ms, revision FROM bookings WHERE number = ?",
                                            [.integer(Int64(number))]),
                      try row.string("state") == BookingState.requested.rawValue else { return }
                try c.execute("UPDATE bookings SET state = 'not-served', reason = ?, ended_ms = ?, updated_ms = ? WHERE number = ?",
                              [.text(reason), .integer(now), .integer(now), .integer(Int64(number))])
                try Self.event(c, number, .notServed, now, reason)
                try Wallet.releaseFare(c, reference: Self.reference(number, created: try row.int64("created_ms"),
                                                                    revision: try row.int64("revision")), now: now)
                try Outbox.enqueue(c, user: try row.int64("passenger_id"), kind: .bookingNotServed,
                                   payload: ["booking": "\(number)", "reason": reason], now: now)
            }
        }
    }

    // MARK: Due work

    /// Allocates the bookings for later whose time has come (20 minutes before pickup by
    /// default) and writes outcomes an outage kept back. Returns how many bookings it sent
    /// to the dispatcher. A host calls it every few seconds; calling it more often is harmless.
    @discardableResult
    public func runDue() async throws(ServiceError) -> Int {
        let kept = state.withLock { s in defer { s.unsaved = [] }; return s.unsaved }
        for (number, outcome) in kept { save(number, outcome) }
        let due = milliseconds(now.addingTimeInterval(city.settings.allocateBefore)), now = milliseconds(self.now)
        let fence = self.fence.withLock { $0 }
        let claimed: [Int] = try await serviceCall {
            try await store.write { c in
                try Self.checkFence(fence, c)
                let rows = try c.query("""
                    SELECT number FROM bookings WHERE state = 'requested' AND dispatched = 0 AND pickup_ms <= ?
                    ORDER BY pickup_ms LIMIT 500
                    """, [.integer(due)])
                var numbers: [Int] = []
                for row in rows {
                    let n = try row.int(("number"))
                    try c.execute("UPDATE bookings SET dispatched = 1, updated_ms = ? WHERE number = ?", [.integer(now), .integer(Int64(n))])
                    numbers.append(n)
                }
                return numbers
            }
        }
        for number in claimed { if let b = try? await load(number) { dispatch(b) } }
        return claimed.count
    }

    /// Gives a freshly started process the city's live state back: the cabs on shift join
    /// the fleet (unattended until their drivers report), and bookings whose search was open
    /// in a process that stopped are searched again.
    public func resume() async throws(ServiceError) {
        struct Shift: Sendable { var cab: String; var driver: Int64; var type: String; var seats: Int }
        let shifts: [Shift] = try await serviceCall {
            try await store.read { c in
                try c.query("SELECT cab_id, driver_id, cab_type, seats FROM cab_drivers ORDER BY cab_id", []).map {
                    Shift(cab: try $0.string("cab_id"), driver: try $0.int64("driver_id"), type: try $0.string("cab_type"), seats: try $0.int("seats"))
                }
            }
        }
        for s in shifts { try join(CabProfile(id: s.cab, type: CabType(s.type), seats: s.seats), driver: s.driver) }
        // Trips under way: their reports go on being their tracks (the points a previous
        // process wrote are read back at completion).
        let trips: [(String, Int)] = try await serviceCall {
            try await store.read { c in
                try c.query("SELECT number, cab_id FROM bookings WHERE state = 'started' AND cab_id IS NOT NULL", []).map {
                    (try $0.string("cab_id"), try $0.int("number"))
                }
            }
        }
        state.withLock { s in for (cab, number) in trips { s.tripOfCab[cab] = number } }
        // Where the cabs were when the last owner wrote them down: a cab reported recently
        // and available is offerable at once; the fleet's staleness rule drops the others
        // until their drivers report again.
        struct Position: Sendable { var cab: String; var at: Coordinate; var time: Date; var status: String }
        let positions: [Position] = try await serviceCall {
            try await store.read { c in
                try c.query("SELECT cab_id, lat_e7, lon_e7, reported_ms, status FROM cab_positions", []).compactMap { row in
                    guard let at = try? Coordinate(latitude: Double(try row.int64("lat_e7")) / 1e7, longitude: Double(try row.int64("lon_e7")) / 1e7)
                    else { return nil }
                    return Position(cab: try row.string("cab_id"), at: at, time: Date(timeIntervalSince1970: Double(try row.int64("reported_ms")) / 1000),
                                    status: try row.string("status"))
                }
            }
        }
        for p in positions where shifts.contains(where: { $0.cab == p.cab }) {
            _ = try? dispatcher.report(cab: p.cab, position: p.at, at: p.time)
            if let status = CabStatus.allCases.first(where: { "\($0)" == p.status }), status != .unattended {
                try? dispatcher.setStatus(of: p.cab, to: status)
            }
        }
        let open: [Int] = try await serviceCall {
            try await store.read { c in
                try c.query("SELECT number FROM bookings WHERE state = 'requested' AND dispatched = 1 ORDER BY pickup_ms", []).map { try $0.int("number") }
            }
        }
        for number in open { try await dispatchIfNew(number) }
    }

    // MARK: Passenger's changes

    /// Cancels a booking that has no cab yet.
    /// - Throws: `conflict` once a cab is allocated ("booking N is already allocated").
    public func cancel(_ number: Int, for passenger: Int64, key: IdempotencyKey) async throws(ServiceError) -> Booking {
        let now = milliseconds(self.now)
        let _: Bool = try await serviceCall {
            try await store.write(locking: Ledger.turns) { c in
                try Idempotency.once(c, key: key, operation: "cancel", request: "\(number)|\(passenger)", now: now) {
                    let row = try Self.ownRow(c, number, passenger)
                    let state = try row.string("state")
                    guard state == BookingState.requested.rawValue else {
                        throw ServiceError.conflict("booking \(number) is already \(state)")
                    }
                    try c.execute("UPDATE bookings SET state = 'cancelled', reason = 'cancelled by the passenger', ended_ms = ?, updated_ms = ? WHERE number = ?",
                                  [.integer(now), .integer(now), .integer(Int64(number))])
                    try Self.event(c, number, .cancelled, now, "by the passenger")
                    try Wallet.releaseFare(c, reference: Self.reference(number, created: try row.int64("created_ms"),
                                                                        revision: try row.int64("revision")), now: now)
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
                                     seats: current.seats, payment: current.payment)
        let priced = try price(request)
        let now = milliseconds(self.now), pickupMs = milliseconds(pickupTime), settings = city.settings, chart = city.fares
        let requested = request, wanted = current.payment
        let requestText = "\(number)|\(Self.e7(request.pickup))|\(Self.e7(request.destination))|\(pickupMs)"
        let _: Bool = try await serviceCall {
            try await store.write(locking: Ledger.turns) { c in
                try Idempotency.once(c, key: key, operation: "change", request: requestText, now: now) {
                    let row = try Self.ownRow(c, number, passenger)
                    guard try row.string("state") == BookingState.requested.rawValue, try row.int64("dispatched") == 0 else {
                        throw ServiceError.conflict("booking \(number) is already being allocated")
                    }
                    try Self.refuseConflicts(c, passenger: passenger, at: pickupMs, window: settings.conflictWindow, except: number)
                    let created = try row.int64("created_ms"), revision = try row.int64("revision")
                    let estimate = try Self.fare(priced, chart: chart, firstRide: try row.bool("first_ride")).total
                    try Wallet.releaseFare(c, reference: Self.reference(number, created: created, revision: revision), now: now)
                    try c.execute("""
                        UPDATE bookings SET pickup_lat_e7 = ?, pickup_lon_e7 = ?, dest_lat_e7 = ?, dest_lon_e7 = ?, pickup_ms = ?,
                            estimate = ?, payment = ?, reason = NULL, revision = ?, updated_ms = ? WHERE number = ?
                        """, [.integer(Self.e7(requested.pickup.latitude)), .integer(Self.e7(requested.pickup.longitude)),
                              .integer(Self.e7(requested.destination.latitude)), .integer(Self.e7(requested.destination.longitude)),
                              .integer(pickupMs), .integer(estimate), .text(wanted.rawValue), .integer(revision + 1),
                              .integer(now), .integer(Int64(number))])
                    try Self.holdPayment(c, number: number, passenger: passenger, method: wanted, estimate: estimate,
                                         reference: Self.reference(number, created: created, revision: revision + 1), now: now)
                    try Self.event(c, number, .requested, now, "changed")
                    return true
                }
            }
        }
        return try await booking(number, for: passenger)
    }

    // MARK: Reading

    /// One of the passenger's bookings. Another passenger's booking is `notFound`, as an
    /// unknown one is, so ids cannot be probed.
    public func booking(_ number: Int, for passenger: Int64) async throws(ServiceError) -> Booking {
        let b = try await load(number)
        guard b.passenger == passenger else { throw .notFound("booking \(number)") }
        return b
    }

    func load(_ number: Int) async throws(ServiceError) -> Booking {
        try await serviceCall {
            try await store.read { c in
                guard let row = try c.first("SELECT * FROM bookings WHERE number = ?", [.integer(Int64(number))]) else {
                    throw ServiceError.notFound("booking \(number)")
                }
                return try Self.decode(row)
            }
        }
    }

    /// The passenger's pending bookings (requested, allocated, arrived, started), newest
    /// pickup first; empty, with the message "No Pending Cabs for Passenger".
    public func pending(for passenger: Int64) async throws(ServiceError) -> BookingList {
        let list = try await list(passenger, pending: true)
        return BookingList(bookings: list, message: list.isEmpty ? "No Pending Cabs for Passenger" : nil)
    }

    /// The passenger's previous bookings (completed, cancelled, not served), newest first.
    public func previous(for passenger: Int64) async throws(ServiceError) -> BookingList {
        BookingList(bookings: try await list(passenger, pending: false), message: nil)
    }

    func list(_ passenger: Int64, pending: Bool) async throws(ServiceError) -> [Booking] {
        let states = BookingState.allCases.filter { $0.isPending == pending }.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        return try await serviceCall {
            try await store.read { c in
                try c.query("SELECT * FROM bookings WHERE passenger_id = ? AND state IN (\(states)) ORDER BY pickup_ms DESC, number DESC LIMIT 200",
                            [.integer(passenger)]).map(Self.decode)
            }
        }
    }

    /// Every state the booking went through, oldest first.
    public func history(of number: Int, for passenger: Int64) async throws(ServiceError) -> [BookingEvent] {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try c.query("SELECT state, at_ms, detail FROM booking_events WHERE booking_number = ? ORDER BY id",
                            [.integer(Int64(number))]).map { row in
                    guard let state = BookingState(rawValue: try row.string("state")) else {
                        throw StoreError.decoding(column: "booking_events.state", expected: "a booking state")
                    }
                    return BookingEvent(state: state, time: date(milliseconds: try row.int64("at_ms")), detail: try row.string("detail"))
                }
            }
        }
    }

    /// Where the booking's cab is, the road still ahead of it and how long it takes: from
    /// the fleet's latest report, routed now.
    public func track(_ number: Int, for passenger: Int64) async throws(ServiceError) -> Tracking {
        let b = try await booking(number, for: passenger)
        var t = Tracking(state: b.state, cabPosition: nil, remainingRoute: [], remainingMetres: nil, etaSeconds: nil, reportedAt: nil)
        guard [.allocated, .arrived, .started].contains(b.state), let id = b.cab, let cab = try? dispatcher.fleet.cab(id),
              let position = cab.position else { return t }
        t.cabPosition = position
        t.reportedAt = cab.lastReport
        let target = b.state == .started ? b.destination : b.pickup
        if let route = routers.with({ try? $0.route(from: position, to: target) }) {
            t.remainingRoute = route.geometry
            t.remainingMetres = route.distanceMetres
            t.etaSeconds = route.durationSeconds
        }
        return t
    }

    // MARK: Feedback

    /// The passenger's rating of a completed trip, once.
    /// - Throws: `invalid` naming the rating out of 1…5 or the comment; `conflict` when
    ///   the booking is not completed or already rated.
    public func giveFeedback(_ feedback: Feedback, on number: Int, for passenger: Int64) async throws(ServiceError) {
        for (field, value) in [("driver", feedback.driver), ("cab", feedback.cab), ("experience", feedback.experience)] {
            guard (1...5).contains(value) else { throw .invalid(field: field, reason: "must be a rating from 1 to 5") }
        }
        let comment = try Validate.text(feedback.comment, field: "comment", maximum: 500, required: false)
        let now = milliseconds(self.now)
        try await serviceCall {
            try await store.write { c in
                let row = try Self.ownRow(c, number, passenger)
                guard try row.string("state") == BookingState.completed.rawValue else {
                    throw ServiceError.conflict("booking \(number) is not completed")
                }
                guard try c.first("SELECT booking_number FROM feedback WHERE booking_number = ?", [.integer(Int64(number))]) == nil else {
                    throw ServiceError.conflict("feedback for booking \(number) was already given")
                }
                try c.execute("""
                    INSERT INTO feedback (booking_number, passenger_id, driver_rating, cab_rating, experience_rating, comment, created_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, [.integer(Int64(number)), .integer(passenger), .integer(Int64(feedback.driver)), .integer(Int64(feedback.cab)),
                          .integer(Int64(feedback.experience)), .text(comment), .integer(now)])
            }
        }
    }

    /// The feedback given on a booking, if any (for the passenger who gave it).
    public func feedback(on number: Int, for passenger: Int64) async throws(ServiceError) -> Feedback? {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try c.first("SELECT driver_rating, cab_rating, experience_rating, comment FROM feedback WHERE booking_number = ?",
                            [.integer(Int64(number))]).map {
                    Feedback(driver: try $0.int("driver_rating"), cab: try $0.int("cab_rating"),
                             experience: try $0.int("experience_rating"), comment: try $0.string("comment"))
                }
            }
        }
    }

    // MARK: Retention

    /// Deletes bookings that ended longer ago than the retention (004: two years), with
    /// their history and feedback. Money records stay in the ledger. Returns how many.
    @discardableResult
    public func purgeHistory() async throws(ServiceError) -> Int {
        let cutoff = milliseconds(now.addingTimeInterval(-city.settings.historyRetention))
        return try await serviceCall {
            try await store.write { c in
                let old = "SELECT number FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < ?"
                try c.execute("DELETE FROM booking_events WHERE booking_number IN (\(old))", [.integer(cutoff)])
                try c.execute("DELETE FROM feedback WHERE booking_number IN (\(old))", [.integer(cutoff)])
                try c.execute("DELETE FROM trip_points WHERE booking_number IN (\(old))", [.integer(cutoff)])
                return try c.execute("DELETE FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < ?", [.integer(cutoff)])
            }
        }
    }

    // MARK: Pieces

    /// The route and rate of a request, checked: the fields, the service area, the cab type.
    struct Priced: Sendable { var rate: FareRate; var metres: Int64; var tolls: Int64 }

    func price(_ r: BookingRequest) throws(ServiceError) -> Priced {
        guard (1...50).contains(r.seats) else { throw .invalid(field: "seats", reason: "must be between 1 and 50") }
        guard dispatcher.fleet.configuration.cabTypes.contains(r.cabType) else {
            throw .invalid(field: "cabType", reason: "the city has no cab type \"\(r.cabType.name)\"")
        }
        guard r.pickup.distance(to: r.destination) >= city.settings.minimumTripMetres else {
            throw .invalid(field: "destination", reason: "must be at least \(Int(city.settings.minimumTripMetres)) m from the pickup")
        }
        let rate: FareRate
        do { rate = try city.fares.rate(at: r.pickup, in: city.zones, type: r.cabType) } catch {
            switch error {
            case .outOfServiceArea: throw .invalid(field: "pickup", reason: "present location is out of bounds of any service area")
            default: throw .invalid(field: "cabType", reason: error.description)
            }
        }
        let route: Route? = routers.with { try? $0.route(from: r.pickup, to: r.destination) }
        guard let route else { throw .invalid(field: "destination", reason: "no route by road from the pickup") }
        guard route.fromSnapMetres <= dispatcher.configuration.maxSnapMetres else {
            throw .invalid(field: "pickup", reason: "no road within \(Int(dispatcher.configuration.maxSnapMetres)) m")
        }
        let charge: TollList.Charge
        do { charge = try city.tolls.charge(for: route.tollWays, type: r.cabType) } catch { throw .invalid(field: "cabType", reason: error.description) }
        return Priced(rate: rate, metres: Int64(route.distanceMetres.rounded()), tolls: charge.total)
    }

    /// The fare of a priced trip; an amount too large for the chart is refused as the destination's fault.
    static func fare(_ p: Priced, chart: FareChart, firstRide: Bool) throws(ServiceError) -> FareBreakdown {
        do { return try chart.fare(TripMeasure(metres: p.metres, tolls: p.tolls), at: p.rate, firstRide: firstRide) }
        catch { throw .invalid(field: "destination", reason: error.description) }
    }

    static func isFirstRide(_ c: any SQLConnection, _ passenger: Int64) throws -> Bool {
        try c.first("SELECT number FROM bookings WHERE passenger_id = ? AND state = 'completed' LIMIT 1", [.integer(passenger)]) == nil
    }

    static func refuseConflicts(_ c: any SQLConnection, passenger: Int64, at pickupMs: Int64, window: TimeInterval, except: Int?) throws {
        let w = Int64(window * 1000)
        if try c.first("""
            SELECT number FROM bookings WHERE passenger_id = ? AND state IN ('requested', 'allocated', 'arrived', 'started')
                AND pickup_ms >= ? AND pickup_ms <= ? AND number <> ? LIMIT 1
            """, [.integer(passenger), .integer(pickupMs - w), .integer(pickupMs + w), .integer(Int64(except ?? 0))]) != nil {
            throw ServiceError.conflict("already a booking exists")
        }
    }

    /// A free booking number from the system's random source: not guessable from the ones
    /// before it. Drawn in `space` first; when 32 draws there find none free (the space is
    /// nearly full), in the next one, ten times larger, up to twelve digits.
    static func freeNumber(_ c: any SQLConnection, space: ClosedRange<Int>) throws -> Int {
        var rng = SystemRandomNumberGenerator()
        var low = space.lowerBound, high = space.upperBound
        while high <= 999_999_999_999 {
            for _ in 0..<32 {
                let n = Int.random(in: low...high, using: &rng)
                if try c.first("SELECT number FROM bookings WHERE number = ?", [.integer(Int64(n))]) == nil { return n }
            }
            (low, high) = (high + 1, high * 10 + 9)
        }
        throw ServiceError.conflict("no free booking number")
    }

    static func ownRow(_ c: any SQLConnection, _ number: Int, _ passenger: Int64) throws -> Row {
        guard let row = try c.first("SELECT * FROM bookings WHERE number = ? AND passenger_id = ?",
                                    [.integer(Int64(number)), .integer(passenger)]) else { throw ServiceError.notFound("booking \(number)") }
        return row
    }

    static func driversRow(_ c: any SQLConnection, _ number: Int, _ driver: Int64) throws -> Row {
        guard let row = try c.first("SELECT * FROM bookings WHERE number = ? AND driver_id = ?",
                                    [.integer(Int64(number)), .integer(driver)]) else { throw ServiceError.notFound("booking \(number)") }
        return row
    }

    static func event(_ c: any SQLConnection, _ number: Int, _ state: BookingState, _ now: Int64, _ detail: String) throws {
        try c.execute("INSERT INTO booking_events (booking_number, state, at_ms, detail) VALUES (?, ?, ?, ?)",
                      [.integer(Int64(number)), .text(state.rawValue), .integer(now), .text(detail)])
    }

    /// The payment reference of a booking's revision: unique even when a purged booking's
    /// number is drawn again.
    static func reference(_ number: Int, created: Int64, revision: Int64) -> String { "booking:\(number):\(created):\(revision)" }

    static func e7(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded()) }
    static func e7(_ c: Coordinate) -> String { "\(e7(c.latitude)),\(e7(c.longitude))" }

    static func decode(_ row: Row) throws -> Booking {
        func place(_ lat: String, _ lon: String) throws -> Coordinate {
            Coordinate(unchecked: Double(try row.int64(lat)) / 1e7, Double(try row.int64(lon)) / 1e7)
        }
        guard let kind = Booking.Kind(rawValue: try row.string("kind")), let state = BookingState(rawValue: try row.string("state")),
              let payment = PaymentMethod(rawValue: try row.string("payment")) else {
            throw StoreError.decoding(column: "bookings.kind/state/payment", expected: "a known value")
        }
        return Booking(number: try row.int("number"), passenger: try row.int64("passenger_id"), kind: kind, state: state,
                       pickup: try place("pickup_lat_e7", "pickup_lon_e7"), destination: try place("dest_lat_e7", "dest_lon_e7"),
                       pickupTime: date(milliseconds: try row.int64("pickup_ms")), cabType: CabType(try row.string("cab_type")),
                       seats: try row.int("seats"), payment: payment, estimate: try row.int64("estimate"),
                       cab: try row.optionalString("cab_id"), driver: try row.optionalInt64("driver_id"),
                       etaSeconds: try row.optionalInt64("eta_seconds").map { Int($0) }, reason: try row.optionalString("reason"),
                       fare: try row.optionalInt64("fare"), created: date(milliseconds: try row.int64("created_ms")))
    }
}

/// Routers for the services' threads: one is taken for a query and given back.
///
/// Why a pool: a `Router` keeps search state sized to the network and is not `Sendable`;
/// making one per call would allocate that state every time. `@unchecked Sendable`: the
/// list is touched only under the lock, and a router is used by one thread at a time.
package final class RouterPool: @unchecked Sendable {
    let network: RoadNetwork
    private var idle: [Router] = []
    private let lock = NSLock()

    package init(network: RoadNetwork) { self.network = network }

    package func with<T>(_ body: (Router) -> T) -> T {
        lock.lock()
        let router = idle.popLast() ?? Router(network: network)
        lock.unlock()
        defer { lock.lock(); idle.append(router); lock.unlock() }
        return body(router)
    }
}

/// Hands the dispatcher's notifications to the `Bookings` that owns the dispatcher, which
/// exists only after the dispatcher does; weakly, so the two do not keep each other alive.
///
/// Why not a closure in `Locked`: reading a function value through `Locked`'s generic
/// `inout` accessor re-abstracts it and writes it back wrapped in another thunk, so every
/// notification made the path longer (a trip's cost grew with every trip before it).
///
/// `@unchecked Sendable`: `target` is read and written only under `lock`.
final class NotificationRelay: @unchecked Sendable {
    private let lock = NSLock()
    private weak var target: Bookings?

    func connect(_ bookings: Bookings) { lock.withLock { target = bookings } }

    func send(_ notification: DispatchNotification) {
        lock.withLock { target }?.dispatched(notification)
    }
}

/// Searches ended by this process, by outcome.
package struct DispatchOutcomeCounts: Sendable {
    package var allocated = 0
    package var notServed = 0
    package init() {}
}
