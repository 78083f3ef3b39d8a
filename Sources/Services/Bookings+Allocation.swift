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

/// Allocation: the cabs and drivers the dispatcher offers bookings to, what it decided
/// (written under the owner's fence), and the bookings for later that fall due.
extension Bookings {
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
                let shifts = BookingStatements(c)
                if let previous = try shifts.cab(of: driver), previous != cab.id {
                    try shifts.endShift(driver: driver, cab: previous)
                }
                if let other = try shifts.driver(of: cab.id) {
                    guard other == driver else { throw ServiceError.conflict("cab \(cab.id) is driven by another driver") }
                    return
                }
                try shifts.startShift(cab: cab.id, driver: driver, type: cab.type.name, seats: cab.seats, at: now)
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
        let followed = state.withLock { s -> Followed? in
            if let number = s.tripOfCab[cab], (s.tracks[number]?.count ?? 0) < Self.maximumTrackPoints,
               s.tracks[number]?.last.map({ $0.time < time }) ?? true {
                let point = TrackPoint(position: position, time: time)
                s.tracks[number, default: []].append(point)
                s.unsavedPoints.append((number, point))
            }
            return s.followed[cab]
        }
        if let followed { follow(followed, cab: cab, position: position, at: time) }
    }

    /// Weighs a report against the route the passenger was shown; when the cab has left it,
    /// the new route replaces it (the tracking answer and the live page show it) and the
    /// deviation goes into the booking's history.
    func follow(_ followed: Followed, cab: String, position: Coordinate, at time: Date) {
        var followed = followed
        let report = TracePoint(position, time: time.timeIntervalSince1970)
        let step = matchers.with { followed.follower.observe(report, matcher: $0) }
        var deviation: Deviation?
        switch step {
        case let .deviated(at), let .deviatedWithoutRoute(at):
            followed.changedAt = time
            let r = followed.follower
            let what = if case .deviated = step {
                "new route \(Int(r.route.distanceMetres.rounded())) m, \(Int(r.route.durationSeconds.rounded())) s"
            } else { "no route from there" }
            deviation = Deviation(number: followed.number, state: followed.state, atMs: milliseconds(time),
                                  detail: "left the route at \(Self.text(at)); \(what)")
        default: break
        }
        let kept = followed
        state.withLock { s in
            // Unless the booking moved on meanwhile (started, completed, cancelled).
            if s.followed[cab]?.number == kept.number, s.followed[cab]?.state == kept.state { s.followed[cab] = kept }
        }
        if let deviation { record(deviation) }
    }

    static func text(_ c: Coordinate) -> String {
        "\((c.latitude * 1e5).rounded() / 1e5),\((c.longitude * 1e5).rounded() / 1e5)"
    }

    /// Keeps a deviation for the booking's history: ``persistPositions()`` writes it with the
    /// positions and track points (the owner's periodic work, every 2 s), so a position
    /// report never waits for the store.
    func record(_ d: Deviation) {
        state.withLock { $0.unsavedDeviations.append(d) }
    }

    /// A deviation as a line of its booking's history, unless the booking has moved on.
    static func write(_ d: Deviation, _ c: any SQLConnection) throws {
        guard let row = try BookingStatements(c).booking(d.number), [.allocated, .arrived, .started].contains(row.state) else { return }
        try event(c, d.number, row.state, d.atMs, d.detail)
    }

    /// Starts following the route shown for a booking's cab: to the pickup once allocated
    /// (from where the cab is), the trip's route once started.
    func startFollowing(cab: String, number: Int, state bookingState: BookingState, route: Route?, to end: Coordinate) {
        guard let route else { return }
        let follower = RouteFollower(route: route, to: end, settings: FollowSettings(gpsSigmaMetres: city.settings.trackSigmaMetres))
        state.withLock { s in s.followed[cab] = Followed(number: number, state: bookingState, follower: follower) }
    }

    /// Stops following a booking's cab (the trip ended, or the booking did).
    func stopFollowing(_ number: Int) {
        state.withLock { s in s.followed = s.followed.filter { $0.value.number != number } }
    }

    /// Writes every cab's last position and status to the store in one transaction, for the
    /// replica that may take the city over (`resume()`); the owner's periodic work calls it.
    /// The trips' new track points are written in the same transaction, and the deviations
    /// from tracked routes into their bookings' histories.
    public func persistPositions() async throws(ServiceError) {
        let cabs = dispatcher.fleet.allCabs().compactMap { cab -> (String, Coordinate, Date, String)? in
            guard let at = cab.position, let time = cab.lastReport else { return nil }
            return (cab.id, at, time, "\(cab.status)")
        }
        let (points, deviations) = state.withLock { s in
            defer { s.unsavedPoints = []; s.unsavedDeviations = [] }
            return (s.unsavedPoints, s.unsavedDeviations)
        }
        guard !cabs.isEmpty || !points.isEmpty || !deviations.isEmpty else { return }
        let fence = self.fence.withLock { $0 }
        do {
            try await Self.persist(store, fence: fence, cabs: cabs, points: points, deviations: deviations)
        } catch {
            // Kept for the next round: a trip's track must not lose its points to an outage.
            state.withLock { s in
                s.unsavedPoints = points + s.unsavedPoints
                s.unsavedDeviations = deviations + s.unsavedDeviations
            }
            throw error
        }
    }

    static func persist(_ store: any SQLStore, fence: (city: String, token: Int64)?, cabs: [(String, Coordinate, Date, String)],
                        points: [(number: Int, point: TrackPoint)], deviations: [Deviation] = []) async throws(ServiceError) {
        try await serviceCall {
            try await store.write { c in
                try checkFence(fence, c)
                for d in deviations { try write(d, c) }
                let statements = BookingStatements(c)
                for (number, point) in points {
                    try statements.insertPoint(number, atMs: milliseconds(point.time), latE7: e7(point.position.latitude),
                                               lonE7: e7(point.position.longitude))
                }
                for (id, at, time, status) in cabs {
                    try statements.savePosition(cab: id, latE7: e7(at.latitude), lonE7: e7(at.longitude), reportedMs: milliseconds(time),
                                                status: status)
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
        let token = try LeaseStatements(c).token(of: fence.city)
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
            // The pickup, or nil when the cab is free again.
            let pickup: Coordinate? = try store.blockingWrite(locking: [], isolation: .rowLocks) { c in
                try Self.checkFence(fence, c)
                let bookings = BookingStatements(c)
                // Gone, or cancelled while the driver was accepting: the cab is free again.
                guard let row = try bookings.booking(number, locked: true), row.state == .requested else { return nil }
                let eta = Int64(a.eta.seconds.rounded())
                try bookings.allocate(number, cab: a.cab, driver: driver, etaSeconds: eta, at: now)
                try Self.event(c, number, .allocated, now, "cab \(a.cab), ETA \(eta) s")
                try Outbox.enqueue(c, user: row.passengerID, kind: row.kind == .later ? .pickupNotice : .cabAllocated,
                                   payload: ["booking": "\(number)", "cab": a.cab, "eta_seconds": "\(eta)",
                                             "pickup_ms": "\(row.pickupMs)"], now: now)
                return try row.booking().pickup
            }
            if let pickup {
                guard let at = try? dispatcher.fleet.cab(a.cab).position else { return }
                // The way to the pickup the passenger is shown, from where the cab is.
                startFollowing(cab: a.cab, number: number, state: .allocated, route: routers.with { try? $0.route(from: at, to: pickup) }, to: pickup)
            } else {
                try? dispatcher.setStatus(of: a.cab, to: .available)
            }
        case let .notServed(reason):
            let fence = self.fence.withLock { $0 }
            try store.blockingWrite(locking: [], isolation: .rowLocks) { c in
                try Self.checkFence(fence, c)
                let bookings = BookingStatements(c)
                guard let row = try bookings.booking(number, locked: true), row.state == .requested else { return }
                try bookings.end(number, as: .notServed, reason: reason, at: now)
                try Self.event(c, number, .notServed, now, reason)
                try Wallet.releaseFare(c, reference: row.reference, now: now)
                try Outbox.enqueue(c, user: row.passengerID, kind: .bookingNotServed,
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
                let bookings = BookingStatements(c)
                let numbers = try bookings.dueBookings(by: due)
                for n in numbers { try bookings.markDispatched(n, at: now) }
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
        let shifts = try await serviceCall { try await store.read { c in try BookingStatements(c).shifts() } }
        for s in shifts { try join(CabProfile(id: s.cabID, type: CabType(s.cabType), seats: s.seats), driver: s.driverID) }
        // Trips under way: their reports go on being their tracks (the points a previous
        // process wrote are read back at completion).
        let trips = try await serviceCall { try await store.read { c in try BookingStatements(c).tripsUnderWay() } }
        state.withLock { s in for trip in trips { s.tripOfCab[trip.cabID] = trip.number } }
        // Where the cabs were when the last owner wrote them down: a cab reported recently
        // and available is offerable at once; the fleet's staleness rule drops the others
        // until their drivers report again.
        let positions = try await serviceCall { try await store.read { c in try BookingStatements(c).positions() } }
        let onShift = Set(shifts.map(\.cabID))
        for p in positions where onShift.contains(p.cabID) {
            // A stored position out of range (a damaged row) is skipped, not trusted.
            guard let at = try? Coordinate(latitude: Double(p.latE7) / 1e7, longitude: Double(p.lonE7) / 1e7) else { continue }
            _ = try? dispatcher.report(cab: p.cabID, position: at, at: date(milliseconds: p.reportedMs))
            if let status = CabStatus.allCases.first(where: { "\($0)" == p.status }), status != .unattended {
                try? dispatcher.setStatus(of: p.cabID, to: status)
            }
        }
        let open = try await serviceCall { try await store.read { c in try BookingStatements(c).searching() } }
        for number in open { try await dispatchIfNew(number) }
    }
}
