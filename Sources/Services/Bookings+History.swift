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
                guard let row = try BookingStatements(c).booking(number) else { throw ServiceError.notFound("booking \(number)") }
                return try row.booking()
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
        let states = BookingState.allCases.filter { $0.isPending == pending }
        return try await serviceCall {
            try await store.read { c in try BookingStatements(c).bookings(of: passenger, in: states).map { try $0.booking() } }
        }
    }

    /// Every state the booking went through, oldest first.
    public func history(of number: Int, for passenger: Int64) async throws(ServiceError) -> [BookingEvent] {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try BookingStatements(c).events(of: number).map {
                    BookingEvent(state: $0.state, time: date(milliseconds: $0.atMs), detail: $0.detail)
                }
            }
        }
    }

    /// Where the booking's cab is, the road still ahead of it and how long it takes: the
    /// rest of the route the passenger was shown (or the one taken since the cab left it),
    /// from the point the cab's reports reached; routed from the cab's latest report when
    /// this process follows no route for it (a replica that took the city over).
    public func track(_ number: Int, for passenger: Int64) async throws(ServiceError) -> Tracking {
        let b = try await booking(number, for: passenger)
        var t = Tracking(state: b.state, cabPosition: nil, remainingRoute: [], remainingMetres: nil, etaSeconds: nil, reportedAt: nil)
        guard [.allocated, .arrived, .started].contains(b.state), let id = b.cab, let cab = try? dispatcher.fleet.cab(id),
              let position = cab.position else { return t }
        t.cabPosition = position
        t.reportedAt = cab.lastReport
        let phase: BookingState = b.state == .started ? .started : .allocated
        if let followed = state.withLock({ $0.followed[id] }), followed.number == number, followed.state == phase {
            t.remainingRoute = followed.follower.remainingGeometry
            t.remainingMetres = followed.follower.remainingMetres
            t.etaSeconds = followed.follower.remainingSeconds
            t.deviations = followed.follower.deviations
            t.routeChangedAt = followed.changedAt
            return t
        }
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
                guard try Self.ownRow(c, number, passenger).state == .completed else {
                    throw ServiceError.conflict("booking \(number) is not completed")
                }
                let statements = BookingStatements(c)
                guard try !statements.hasFeedback(number) else { throw ServiceError.conflict("feedback for booking \(number) was already given") }
                try statements.insertFeedback(number, passenger: passenger, feedback, comment: comment, at: now)
            }
        }
    }

    /// The feedback given on a booking, if any (for the passenger who gave it).
    public func feedback(on number: Int, for passenger: Int64) async throws(ServiceError) -> Feedback? {
        _ = try await booking(number, for: passenger)
        return try await serviceCall {
            try await store.read { c in
                try BookingStatements(c).feedback(number)
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
                try BookingStatements(c).purge(endedBefore: cutoff)
            }
        }
    }
}
