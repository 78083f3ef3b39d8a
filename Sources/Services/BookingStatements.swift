import Fleet
import Foundation
import Geodesy
import Storage

/// Every statement of the bookings: the bookings and their history, feedback, cabs on shift,
/// their last positions and the trips' track points. Values are bound where they appear and
/// rows decoded by column name; the rules stay in ``Bookings``.
struct BookingStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A booking as stored.
    struct BookingRow: Decodable {
        let number: Int64
        let passengerID: Int64
        let kind: Booking.Kind
        let state: BookingState
        let pickupLatE7: Int64
        let pickupLonE7: Int64
        let destLatE7: Int64
        let destLonE7: Int64
        let pickupMs: Int64
        let cabType: String
        let seats: Int
        let payment: PaymentMethod
        let estimate: Int64
        let firstRide: Bool
        let revision: Int64
        let dispatched: Bool
        let cabID: String?
        let driverID: Int64?
        let etaSeconds: Int?
        let reason: String?
        let fare: Int64?
        let awaitingConfirmation: Int64
        let createdMs: Int64
        let routeChoice: Int
        enum CodingKeys: String, CodingKey {
            case number, passengerID = "passenger_id", kind, state, pickupLatE7 = "pickup_lat_e7", pickupLonE7 = "pickup_lon_e7"
            case destLatE7 = "dest_lat_e7", destLonE7 = "dest_lon_e7", pickupMs = "pickup_ms", cabType = "cab_type", seats, payment
            case estimate, firstRide = "first_ride", revision, dispatched, cabID = "cab_id", driverID = "driver_id"
            case etaSeconds = "eta_seconds", reason, fare, awaitingConfirmation = "awaiting_confirmation", createdMs = "created_ms"
            case routeChoice = "route_choice"
        }

        /// The booking as the service answers it.
        func booking() throws -> Booking {
            guard let number = Int(exactly: number) else { throw StoreError.decoding(column: "number", expected: "a booking number") }
            return Booking(number: number, passenger: passengerID, kind: kind, state: state,
                           pickup: Coordinate(unchecked: Double(pickupLatE7) / 1e7, Double(pickupLonE7) / 1e7),
                           destination: Coordinate(unchecked: Double(destLatE7) / 1e7, Double(destLonE7) / 1e7),
                           pickupTime: date(milliseconds: pickupMs), cabType: CabType(cabType), seats: seats, payment: payment,
                           estimate: estimate, cab: cabID, driver: driverID, etaSeconds: etaSeconds, reason: reason, fare: fare,
                           created: date(milliseconds: createdMs), route: routeChoice)
        }

        /// The payment reference of the booking's current revision.
        var reference: String { Bookings.reference(Int(number), created: createdMs, revision: revision) }
    }

    /// One state the booking went through.
    struct EventRow: Decodable {
        let state: BookingState
        let atMs: Int64
        let detail: String
        enum CodingKeys: String, CodingKey { case state, atMs = "at_ms", detail }
    }

    /// A cab on shift with its driver.
    struct ShiftRow: Decodable, Sendable {
        let cabID: String
        let driverID: Int64
        let cabType: String
        let seats: Int
        enum CodingKeys: String, CodingKey { case cabID = "cab_id", driverID = "driver_id", cabType = "cab_type", seats }
    }

    /// A cab's last position as its city's owner wrote it down.
    struct PositionRow: Decodable, Sendable {
        let cabID: String
        let latE7: Int64
        let lonE7: Int64
        let reportedMs: Int64
        let status: String
        enum CodingKeys: String, CodingKey { case cabID = "cab_id", latE7 = "lat_e7", lonE7 = "lon_e7", reportedMs = "reported_ms", status }
    }

    /// A point of a trip's track.
    struct PointRow: Decodable {
        let atMs: Int64
        let latE7: Int64
        let lonE7: Int64
        enum CodingKeys: String, CodingKey { case atMs = "at_ms", latE7 = "lat_e7", lonE7 = "lon_e7" }
    }

    /// A trip under way.
    struct TripRow: Decodable, Sendable {
        let number: Int
        let cabID: String
        enum CodingKeys: String, CodingKey { case number, cabID = "cab_id" }
    }

    private struct Number: Decodable { let number: Int }
    private struct Ratings: Decodable {
        let driverRating: Int
        let cabRating: Int
        let experienceRating: Int
        let comment: String
        enum CodingKeys: String, CodingKey {
            case driverRating = "driver_rating", cabRating = "cab_rating", experienceRating = "experience_rating", comment
        }
    }
    private struct CabDriver: Decodable {
        let cabID: String
        let driverID: Int64
        enum CodingKeys: String, CodingKey { case cabID = "cab_id", driverID = "driver_id" }
    }

    private static let columns: Statement = """
        number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7, pickup_ms, cab_type, seats,
        payment, estimate, first_ride, revision, dispatched, cab_id, driver_id, eta_seconds, reason, fare, awaiting_confirmation,
        created_ms, route_choice
        """

    // MARK: Reading bookings

    /// A booking; `locked` for a transaction that decides by it (its row stays locked until
    /// the transaction ends, see `WriteIsolation.rowLocks`).
    func booking(_ number: Int, locked: Bool = false) throws -> BookingRow? {
        try c.fetchOne(BookingRow.self, "SELECT \(sql: Self.columns) FROM bookings WHERE number = \(number)\(sql: lock(locked))")
    }

    /// A booking of `passenger`'s (nil for another passenger's, as for an unknown one).
    func booking(_ number: Int, passenger: Int64, locked: Bool = false) throws -> BookingRow? {
        try c.fetchOne(BookingRow.self, """
            SELECT \(sql: Self.columns) FROM bookings WHERE number = \(number) AND passenger_id = \(passenger)\(sql: lock(locked))
            """)
    }

    /// A booking allocated to `driver`.
    func booking(_ number: Int, driver: Int64, locked: Bool = false) throws -> BookingRow? {
        try c.fetchOne(BookingRow.self, """
            SELECT \(sql: Self.columns) FROM bookings WHERE number = \(number) AND driver_id = \(driver)\(sql: lock(locked))
            """)
    }

    private func lock(_ locked: Bool) -> Statement { locked ? c.forUpdate : "" }

    /// Up to 200 of the passenger's bookings in `states`, the latest pickup first.
    func bookings(of passenger: Int64, in states: [BookingState]) throws -> [BookingRow] {
        let list = Statement.joined(states.map { state -> Statement in "\(state.rawValue)" }, separator: ", ")
        return try c.fetchAll(BookingRow.self, """
            SELECT \(sql: Self.columns) FROM bookings WHERE passenger_id = \(passenger) AND state IN (\(sql: list))
            ORDER BY pickup_ms DESC, number DESC LIMIT 200
            """)
    }

    func isTaken(_ number: Int) throws -> Bool {
        try c.fetchOne(Number.self, "SELECT number FROM bookings WHERE number = \(number)") != nil
    }

    func hasCompletedTrip(_ passenger: Int64) throws -> Bool {
        try c.fetchOne(Number.self, "SELECT number FROM bookings WHERE passenger_id = \(passenger) AND state = 'completed' LIMIT 1") != nil
    }

    /// Whether the passenger has a live booking with its pickup in `window` (other than `except`).
    func hasLiveBooking(_ passenger: Int64, pickupIn window: ClosedRange<Int64>, except: Int) throws -> Bool {
        try c.fetchOne(Number.self, """
            SELECT number FROM bookings WHERE passenger_id = \(passenger) AND state IN ('requested', 'allocated', 'arrived', 'started')
                AND pickup_ms >= \(window.lowerBound) AND pickup_ms <= \(window.upperBound) AND number <> \(except) LIMIT 1
            """) != nil
    }

    /// Up to 500 bookings for later due by `due` and not yet sent to the dispatcher, earliest first.
    func dueBookings(by due: Int64) throws -> [Int] {
        try c.fetchAll(Number.self, """
            SELECT number FROM bookings WHERE state = 'requested' AND dispatched = 0 AND pickup_ms <= \(due)
            ORDER BY pickup_ms LIMIT 500
            """).map(\.number)
    }

    /// Bookings sent to a dispatcher and not yet allocated, earliest pickup first.
    func searching() throws -> [Int] {
        try c.fetchAll(Number.self, "SELECT number FROM bookings WHERE state = 'requested' AND dispatched = 1 ORDER BY pickup_ms").map(\.number)
    }

    /// Trips under way, with their cabs.
    func tripsUnderWay() throws -> [TripRow] {
        try c.fetchAll(TripRow.self, "SELECT number, cab_id FROM bookings WHERE state = 'started' AND cab_id IS NOT NULL")
    }

    // MARK: Writing bookings

    /// A new booking, `requested`.
    func insert(_ number: Int, _ request: BookingRequest, kind: Booking.Kind, pickupMs: Int64, estimate: Int64, firstRide: Bool,
                at now: Int64) throws {
        try c.execute("""
            INSERT INTO bookings (number, passenger_id, kind, state, pickup_lat_e7, pickup_lon_e7, dest_lat_e7, dest_lon_e7,
                pickup_ms, cab_type, seats, payment, estimate, first_ride, dispatched, created_ms, updated_ms, route_choice)
            VALUES (\(number), \(request.passenger), \(kind.rawValue), 'requested',
                \(Bookings.e7(request.pickup.latitude)), \(Bookings.e7(request.pickup.longitude)),
                \(Bookings.e7(request.destination.latitude)), \(Bookings.e7(request.destination.longitude)), \(pickupMs),
                \(request.cabType.name), \(request.seats), \(request.payment.rawValue), \(estimate),
                \(firstRide), \(kind == .now), \(now), \(now), \(request.route))
            """)
    }

    /// A booking for later, changed before allocation: the new places, time and estimate, the next revision.
    func change(_ number: Int, pickup: Coordinate, destination: Coordinate, pickupMs: Int64, estimate: Int64,
                payment: PaymentMethod, revision: Int64, at now: Int64) throws {
        try c.execute("""
            UPDATE bookings SET pickup_lat_e7 = \(Bookings.e7(pickup.latitude)), pickup_lon_e7 = \(Bookings.e7(pickup.longitude)),
                dest_lat_e7 = \(Bookings.e7(destination.latitude)), dest_lon_e7 = \(Bookings.e7(destination.longitude)),
                pickup_ms = \(pickupMs), estimate = \(estimate), payment = \(payment.rawValue), reason = NULL,
                revision = \(revision), updated_ms = \(now)
            WHERE number = \(number)
            """)
    }

    /// The booking is paid in cash, with the reason when the passenger had not chosen it.
    func payInCash(_ number: Int, reason: String?) throws {
        if let reason {
            try c.execute("UPDATE bookings SET payment = 'cash', reason = \(reason) WHERE number = \(number)")
        } else {
            try c.execute("UPDATE bookings SET payment = 'cash' WHERE number = \(number)")
        }
    }

    /// The booking ends without a trip (cancelled or not served), with the reason.
    func end(_ number: Int, as state: BookingState, reason: String, at now: Int64) throws {
        try c.execute("""
            UPDATE bookings SET state = \(state.rawValue), reason = \(reason), ended_ms = \(now), updated_ms = \(now)
            WHERE number = \(number)
            """)
    }

    func allocate(_ number: Int, cab: String, driver: Int64?, etaSeconds: Int64, at now: Int64) throws {
        try c.execute("""
            UPDATE bookings SET state = 'allocated', cab_id = \(cab), driver_id = \(driver), eta_seconds = \(etaSeconds), updated_ms = \(now)
            WHERE number = \(number)
            """)
    }

    func setState(_ number: Int, to state: BookingState, at now: Int64) throws {
        try c.execute("UPDATE bookings SET state = \(state.rawValue), updated_ms = \(now) WHERE number = \(number)")
    }

    func markDispatched(_ number: Int, at now: Int64) throws {
        try c.execute("UPDATE bookings SET dispatched = 1, updated_ms = \(now) WHERE number = \(number)")
    }

    /// The trip is over: the fare, the distances it was billed on and by the meter, the review flags.
    func complete(_ number: Int, fare: Int64, billedMetres: Int64, meterMetres: Int64, review: String?, awaiting: Int64,
                  track: String, at now: Int64) throws {
        try c.execute("""
            UPDATE bookings SET state = 'completed', fare = \(fare), ended_ms = \(now), updated_ms = \(now),
                billed_metres = \(billedMetres), meter_metres = \(meterMetres), review = \(review), awaiting_confirmation = \(awaiting),
                driven_track = \(track)
            WHERE number = \(number)
            """)
    }

    private struct Track: Decodable {
        let drivenTrack: String?
        enum CodingKeys: String, CodingKey { case drivenTrack = "driven_track" }
    }

    /// The driven track of a booking, as stored (nil before completion).
    func drivenTrack(_ number: Int) throws -> String? {
        try c.fetchOne(Track.self, "SELECT driven_track FROM bookings WHERE number = \(number)")?.drivenTrack
    }

    /// The driven tracks of the latest completed trips, newest first.
    func drivenTracks(limit: Int) throws -> [String] {
        try c.fetchAll(Track.self, """
            SELECT driven_track FROM bookings WHERE state = 'completed' AND driven_track IS NOT NULL ORDER BY ended_ms DESC LIMIT \(limit)
            """).compactMap(\.drivenTrack)
    }

    func clearAwaiting(_ number: Int, at now: Int64) throws {
        try c.execute("UPDATE bookings SET awaiting_confirmation = 0, updated_ms = \(now) WHERE number = \(number)")
    }

    // MARK: History

    func insertEvent(_ number: Int, _ state: BookingState, at now: Int64, detail: String) throws {
        try c.execute("""
            INSERT INTO booking_events (booking_number, state, at_ms, detail)
            VALUES (\(number), \(state.rawValue), \(now), \(detail))
            """)
    }

    func events(of number: Int) throws -> [EventRow] {
        try c.fetchAll(EventRow.self, "SELECT state, at_ms, detail FROM booking_events WHERE booking_number = \(number) ORDER BY id")
    }

    /// The times of the booking's arrivals and starts, in order.
    func pickupEvents(of number: Int) throws -> [EventRow] {
        try c.fetchAll(EventRow.self, """
            SELECT state, at_ms, detail FROM booking_events
            WHERE booking_number = \(number) AND state IN ('arrived', 'started') ORDER BY id
            """)
    }

    // MARK: Feedback

    func hasFeedback(_ number: Int) throws -> Bool {
        try c.first("SELECT booking_number FROM feedback WHERE booking_number = \(number)") != nil
    }

    func insertFeedback(_ number: Int, passenger: Int64, _ feedback: Feedback, comment: String, at now: Int64) throws {
        try c.execute("""
            INSERT INTO feedback (booking_number, passenger_id, driver_rating, cab_rating, experience_rating, comment, created_ms)
            VALUES (\(number), \(passenger), \(feedback.driver), \(feedback.cab), \(feedback.experience), \(comment), \(now))
            """)
    }

    func feedback(_ number: Int) throws -> Feedback? {
        try c.fetchOne(Ratings.self, """
            SELECT driver_rating, cab_rating, experience_rating, comment FROM feedback WHERE booking_number = \(number)
            """).map { Feedback(driver: $0.driverRating, cab: $0.cabRating, experience: $0.experienceRating, comment: $0.comment) }
    }

    // MARK: Retention

    /// Deletes the bookings that ended before `cutoff`, with their history, feedback and
    /// track points; returns how many bookings.
    func purge(endedBefore cutoff: Int64) throws -> Int {
        let old: Statement = "SELECT number FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < \(cutoff)"
        try c.execute("DELETE FROM booking_events WHERE booking_number IN (\(sql: old))")
        try c.execute("DELETE FROM feedback WHERE booking_number IN (\(sql: old))")
        try c.execute("DELETE FROM trip_points WHERE booking_number IN (\(sql: old))")
        return try c.execute("DELETE FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < \(cutoff)")
    }

    // MARK: Cabs on shift

    /// The cab `driver` is on shift in.
    func cab(of driver: Int64) throws -> String? {
        try c.fetchOne(CabDriver.self, "SELECT cab_id, driver_id FROM cab_drivers WHERE driver_id = \(driver)")?.cabID
    }

    /// The driver on shift in `cab`.
    func driver(of cab: String) throws -> Int64? {
        try c.fetchOne(CabDriver.self, "SELECT cab_id, driver_id FROM cab_drivers WHERE cab_id = \(cab)")?.driverID
    }

    func startShift(cab: String, driver: Int64, type: String, seats: Int, at now: Int64) throws {
        try c.execute("""
            INSERT INTO cab_drivers (cab_id, driver_id, cab_type, seats, since_ms)
            VALUES (\(cab), \(driver), \(type), \(seats), \(now))
            """)
    }

    /// The driver leaves the cab they drove, and the cab's last position goes with it.
    func endShift(driver: Int64, cab: String) throws {
        try c.execute("DELETE FROM cab_drivers WHERE driver_id = \(driver)")
        try c.execute("DELETE FROM cab_positions WHERE cab_id = \(cab)")
    }

    func shifts() throws -> [ShiftRow] {
        try c.fetchAll(ShiftRow.self, "SELECT cab_id, driver_id, cab_type, seats FROM cab_drivers ORDER BY cab_id")
    }

    // MARK: Positions and tracks

    func savePosition(cab: String, latE7: Int64, lonE7: Int64, reportedMs: Int64, status: String) throws {
        try c.execute("""
            INSERT INTO cab_positions (cab_id, lat_e7, lon_e7, reported_ms, status) VALUES (\(cab), \(latE7), \(lonE7), \(reportedMs), \(status))
            ON CONFLICT (cab_id) DO UPDATE SET lat_e7 = excluded.lat_e7, lon_e7 = excluded.lon_e7,
                reported_ms = excluded.reported_ms, status = excluded.status
            """)
    }

    func positions() throws -> [PositionRow] {
        try c.fetchAll(PositionRow.self, "SELECT cab_id, lat_e7, lon_e7, reported_ms, status FROM cab_positions")
    }

    /// A point of a trip's track; a second point at the same millisecond is ignored.
    func insertPoint(_ number: Int, atMs: Int64, latE7: Int64, lonE7: Int64) throws {
        try c.execute("""
            INSERT INTO trip_points (booking_number, at_ms, lat_e7, lon_e7) VALUES (\(number), \(atMs), \(latE7), \(lonE7))
            ON CONFLICT (booking_number, at_ms) DO NOTHING
            """)
    }

    func points(of number: Int) throws -> [PointRow] {
        try c.fetchAll(PointRow.self, "SELECT at_ms, lat_e7, lon_e7 FROM trip_points WHERE booking_number = \(number) ORDER BY at_ms")
    }
}
