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

/// History: what a passenger reads of their bookings, their feedback on a trip, and the
/// purge of ended bookings past their retention.
extension Bookings {
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
                guard let row = try c.first("SELECT * FROM bookings WHERE number = \(Int64(number))") else {
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
                // The states are the code's own spellings, written as SQL literals.
                try c.query("""
                    SELECT * FROM bookings WHERE passenger_id = \(passenger) AND state IN (\(sql: Statement(states)))
                    ORDER BY pickup_ms DESC, number DESC LIMIT 200
                    """).map(Self.decode)
            }
        }
    }

    /// Every state the booking went through, oldest first.
    public func history(of number: Int, for passenger: Int64) async throws(ServiceError) -> [BookingEvent] {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try c.query("SELECT state, at_ms, detail FROM booking_events WHERE booking_number = \(Int64(number)) ORDER BY id").map { row in
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
                guard try c.first("SELECT booking_number FROM feedback WHERE booking_number = \(Int64(number))") == nil else {
                    throw ServiceError.conflict("feedback for booking \(number) was already given")
                }
                try c.execute("""
                    INSERT INTO feedback (booking_number, passenger_id, driver_rating, cab_rating, experience_rating, comment, created_ms)
                    VALUES (\(Int64(number)), \(passenger), \(Int64(feedback.driver)), \(Int64(feedback.cab)),
                        \(Int64(feedback.experience)), \(comment), \(now))
                    """)
            }
        }
    }

    /// The feedback given on a booking, if any (for the passenger who gave it).
    public func feedback(on number: Int, for passenger: Int64) async throws(ServiceError) -> Feedback? {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try c.first("""
                    SELECT driver_rating, cab_rating, experience_rating, comment FROM feedback
                    WHERE booking_number = \(Int64(number))
                    """).map {
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
                let old: Statement = "SELECT number FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < \(cutoff)"
                try c.execute("DELETE FROM booking_events WHERE booking_number IN (\(sql: old))")
                try c.execute("DELETE FROM feedback WHERE booking_number IN (\(sql: old))")
                try c.execute("DELETE FROM trip_points WHERE booking_number IN (\(sql: old))")
                return try c.execute("DELETE FROM bookings WHERE ended_ms IS NOT NULL AND ended_ms < \(cutoff)")
            }
        }
    }
}
