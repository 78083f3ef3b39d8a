import Foundation
import Services

/// `POST /v1/estimates`, and the trip of `POST /v1/bookings`.
public struct TripOrder: Codable, Sendable, Equatable {
    /// Where the passenger is picked up.
    public var pickup: LatLon
    /// Where they are going.
    public var destination: LatLon
    /// The cab type (`Sedan`, `Hatchback`, … as the city names them).
    public var cabType: String
    /// Seats (1 when absent).
    public var seats: Int?
    /// `wallet` (when absent) or `cash`.
    public var payment: PaymentMethod?
    /// Which of the routes `GET /v1/route?…&alternatives=3` offered: its `index` (0, the
    /// fastest, when absent).
    public var route: Int?

    /// A trip from its fields.
    public init(pickup: LatLon, destination: LatLon, cabType: String, seats: Int? = nil, payment: PaymentMethod? = nil, route: Int? = nil) {
        self.pickup = pickup; self.destination = destination; self.cabType = cabType; self.seats = seats; self.payment = payment
        self.route = route
    }

    enum CodingKeys: String, WireKey {
        case pickup, destination, cabType = "cab_type", seats, payment, route
        var rule: FieldRule {
            switch self {
            case .cabType: Limits.cabName
            case .seats: Limits.seats
            case .route: .integer(0...2)
            case .pickup, .destination, .payment: .structured
            }
        }
    }
}

/// `POST /v1/bookings`: a trip, now or for `pickup_time`.
public struct BookingOrder: Codable, Sendable, Equatable {
    /// The trip.
    public var trip: TripOrder
    /// When to be picked up (absent: now).
    public var pickupTime: Date?

    /// An order from its parts.
    public init(trip: TripOrder, pickupTime: Date? = nil) { self.trip = trip; self.pickupTime = pickupTime }

    /// Reads the trip's fields and `pickup_time` side by side in one object.
    public init(from decoder: any Decoder) throws {
        trip = try TripOrder(from: decoder)
        pickupTime = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Date.self, forKey: .pickupTime)
    }

    /// Writes the trip's fields and `pickup_time` side by side in one object.
    public func encode(to encoder: any Encoder) throws {
        try trip.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(pickupTime, forKey: .pickupTime)
    }

    enum CodingKeys: String, WireKey {
        case pickupTime = "pickup_time"
        var rule: FieldRule { .structured }
    }
}

/// A fare estimate or a fare's parts, in minor units.
public struct FareQuote: Codable, Sendable, Equatable {
    /// The currency.
    public var currency: String
    /// The base fare.
    public var base: Int64
    /// The distance charge.
    public var distance: Int64
    /// The waiting charge.
    public var waiting: Int64
    /// Tolls.
    public var tolls: Int64
    /// The discount taken off.
    public var discount: Int64
    /// What is paid.
    public var total: Int64

    /// A quote from its fields.
    public init(currency: String, base: Int64, distance: Int64, waiting: Int64, tolls: Int64, discount: Int64, total: Int64) {
        self.currency = currency; self.base = base; self.distance = distance; self.waiting = waiting; self.tolls = tolls
        self.discount = discount; self.total = total
    }
}

/// A booking as the API shows it.
public struct BookingAnswer: Codable, Sendable, Equatable {
    /// The booking number.
    public var number: Int
    /// Now or later.
    public var kind: Booking.Kind
    /// Where it stands.
    public var state: BookingState
    /// The pickup.
    public var pickup: LatLon
    /// The destination.
    public var destination: LatLon
    /// When the passenger wants the cab.
    public var pickupTime: Date
    /// The cab type.
    public var cabType: String
    /// Seats.
    public var seats: Int
    /// Wallet or cash.
    public var payment: PaymentMethod
    /// The fare estimate, in minor units.
    public var estimate: Int64
    /// The cab, once allocated.
    public var cab: String?
    /// The driver's user id, once allocated.
    public var driver: Int64?
    /// The cab's ETA to the pickup when allocated, in seconds.
    public var etaS: Int?
    /// Why it was not served or cancelled, or why it is paid in cash.
    public var reason: String?
    /// The final fare, once completed.
    public var fare: Int64?
    /// When it was booked.
    public var created: Date
    /// Which of the routes offered the passenger chose (0: the fastest).
    public var route: Int

    /// The API's view of `b`.
    public init(_ b: Booking) {
        number = b.number; kind = b.kind; state = b.state; pickup = LatLon(b.pickup); destination = LatLon(b.destination)
        pickupTime = b.pickupTime; cabType = b.cabType.name; seats = b.seats; payment = b.payment; estimate = b.estimate
        cab = b.cab; driver = b.driver; etaS = b.etaSeconds; reason = b.reason; fare = b.fare; created = b.created; route = b.route
    }

    enum CodingKeys: String, CodingKey {
        case number, kind, state, pickup, destination, pickupTime = "pickup_time", cabType = "cab_type", seats, payment, estimate
        case cab, driver, etaS = "eta_s", reason, fare, created, route
    }
}

/// `GET /v1/bookings`.
public struct BookingListAnswer: Codable, Sendable, Equatable {
    /// Newest first.
    public var bookings: [BookingAnswer]
    /// A note when the list is empty ("No pending bookings").
    public var message: String?

    /// A list from its fields.
    public init(bookings: [BookingAnswer], message: String?) { self.bookings = bookings; self.message = message }
}

/// Which bookings `GET /v1/bookings` lists.
public enum BookingListKind: String, WireChoice {
    /// Not yet over (the default).
    case pending
    /// Over: completed, cancelled or not served.
    case previous
}

/// `PATCH /v1/bookings/{number}`: a booking for later, changed.
public struct BookingPatch: Codable, Sendable, Equatable {
    /// A new pickup.
    public var pickup: LatLon?
    /// A new destination.
    public var destination: LatLon?
    /// A new pickup time.
    public var pickupTime: Date?

    /// A change from its fields.
    public init(pickup: LatLon? = nil, destination: LatLon? = nil, pickupTime: Date? = nil) {
        self.pickup = pickup; self.destination = destination; self.pickupTime = pickupTime
    }

    enum CodingKeys: String, WireKey {
        case pickup, destination, pickupTime = "pickup_time"
        var rule: FieldRule { .structured }
    }
}

/// `POST /v1/bookings/{number}/fare-confirmation`: what the confirmation paid.
public struct FareConfirmation: Codable, Sendable, Equatable {
    /// The booking.
    public var booking: Int
    /// The currency.
    public var currency: String
    /// Paid now from the wallet, in minor units.
    public var paid: Int64

    /// A confirmation from its fields.
    public init(booking: Int, currency: String, paid: Int64) { self.booking = booking; self.currency = currency; self.paid = paid }
}

/// `GET /v1/bookings/{number}/track`.
public struct TrackingAnswer: Codable, Sendable, Equatable {
    /// Where the booking stands.
    public var state: BookingState
    /// The cab's last reported position.
    public var cabPosition: LatLon?
    /// When it was reported.
    public var reportedAt: Date?
    /// Metres left to the pickup (before `started`) or the destination.
    public var remainingM: Double?
    /// Seconds left.
    public var etaS: Double?
    /// The way left: the rest of the route shown, or of the new one since the cab left it.
    public var remainingRoute: LineString
    /// How many times the cab left the route it was shown.
    public var deviations: Int
    /// When it last did (the remaining route was taken then, from where the cab was).
    public var routeChangedAt: Date?

    /// The API's view of `t`.
    public init(_ t: Tracking) {
        state = t.state; cabPosition = t.cabPosition.map(LatLon.init); reportedAt = t.reportedAt
        remainingM = t.remainingMetres.map { $0.rounded() }; etaS = t.etaSeconds.map { ($0 * 10).rounded() / 10 }
        remainingRoute = LineString(t.remainingRoute)
        deviations = t.deviations; routeChangedAt = t.routeChangedAt
    }

    enum CodingKeys: String, CodingKey {
        case state, cabPosition = "cab_position", reportedAt = "reported_at", remainingM = "remaining_m", etaS = "eta_s"
        case remainingRoute = "remaining_route", deviations, routeChangedAt = "route_changed_at"
    }
}

/// `GET /v1/bookings/{number}/history`.
public struct BookingHistory: Codable, Sendable, Equatable {
    /// Every state change, oldest first.
    public var events: [Event]

    /// One state change.
    public struct Event: Codable, Sendable, Equatable {
        /// The state entered.
        public var state: BookingState
        /// When.
        public var time: Date
        /// Why, or who.
        public var detail: String

        /// An event from its fields.
        public init(state: BookingState, time: Date, detail: String) { self.state = state; self.time = time; self.detail = detail }
    }

    /// The track the cab drove on the trip, matched to the roads, one line per piece
    /// (empty until the trip is completed, or when the cab sent no position).
    public var drivenTrack: [LineString]

    /// A history of `events`, and the track driven.
    public init(events: [Event], drivenTrack: [LineString] = []) { self.events = events; self.drivenTrack = drivenTrack }

    enum CodingKeys: String, CodingKey { case events, drivenTrack = "driven_track" }
}

/// `POST /v1/bookings/{number}/feedback`: ratings from 1 to 5.
public struct FeedbackForm: Codable, Sendable, Equatable {
    /// The driver.
    public var driver: Int
    /// The cab.
    public var cab: Int
    /// The whole experience.
    public var experience: Int
    /// Words, if any.
    public var comment: String?

    /// A form from its fields.
    public init(driver: Int, cab: Int, experience: Int, comment: String? = nil) {
        self.driver = driver; self.cab = cab; self.experience = experience; self.comment = comment
    }

    enum CodingKeys: String, WireKey {
        case driver, cab, experience, comment
        var rule: FieldRule { self == .comment ? .text(maximum: 500) : .integer(1...5) }
    }
}
