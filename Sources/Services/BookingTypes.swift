import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Zones


/// Where a booking stands. Every change is stored with its time (``BookingEvent``).
public enum BookingState: String, Sendable, Codable, CaseIterable {
    /// Booked; waiting for its cab (now: being dispatched; later: until its allocation time).
    case requested
    /// A cab and driver are on their way.
    case allocated
    /// The cab is at the pickup.
    case arrived
    /// The passenger is on board.
    case started
    /// The trip ended and was paid.
    case completed
    /// The passenger cancelled before allocation.
    case cancelled
    /// No cab could serve it (the reason is on the booking).
    case notServed = "not-served"

    /// Whether the booking still counts as pending.
    public var isPending: Bool { [.requested, .allocated, .arrived, .started].contains(self) }
}

/// How a trip is paid.
public enum PaymentMethod: String, Sendable, Codable, CaseIterable {
    /// From the wallet: the estimate is held at booking.
    case wallet
    /// Cash to the driver.
    case cash
}

/// What a passenger asks for.
public struct BookingRequest: Sendable, Equatable {
    /// The passenger's user id.
    public var passenger: Int64
    /// Where to be picked up.
    public var pickup: Coordinate
    /// Where to go.
    public var destination: Coordinate
    /// The cab type.
    public var cabType: CabType
    /// Seats needed.
    public var seats: Int
    /// How the passenger pays.
    public var payment: PaymentMethod
    /// Which of the routes offered between the two places the passenger chose, fastest
    /// first (`Router.routes(from:to:count:)`, `GET /v1/route?…&alternatives=3`): 0 is the
    /// fastest. The estimate is priced on it, and the trip is tracked along it.
    public var route: Int

    /// A request.
    public init(passenger: Int64, pickup: Coordinate, destination: Coordinate, cabType: CabType, seats: Int = 1,
                payment: PaymentMethod = .wallet, route: Int = 0) {
        self.passenger = passenger; self.pickup = pickup; self.destination = destination
        self.cabType = cabType; self.seats = seats; self.payment = payment; self.route = route
    }
}

/// A change to a booking for later, before its allocation; nil fields stay as they are.
public struct BookingChange: Sendable, Equatable {
    /// A new pickup place.
    public var pickup: Coordinate?
    /// A new destination.
    public var destination: Coordinate?
    /// A new pickup time.
    public var pickupTime: Date?

    /// A change.
    public init(pickup: Coordinate? = nil, destination: Coordinate? = nil, pickupTime: Date? = nil) {
        self.pickup = pickup; self.destination = destination; self.pickupTime = pickupTime
    }
}

/// A booking as stored.
public struct Booking: Sendable, Equatable {
    /// Booked for now or for later.
    public enum Kind: String, Sendable, Codable, CaseIterable { case now, later }

    /// The booking id: six digits, random, unique.
    public var number: Int
    /// The passenger's user id.
    public var passenger: Int64
    /// Now or later.
    public var kind: Kind
    /// Where it stands.
    public var state: BookingState
    /// The pickup place (to 10⁻⁷ degrees).
    public var pickup: Coordinate
    /// The destination.
    public var destination: Coordinate
    /// When the passenger wants the cab (for now: when booked).
    public var pickupTime: Date
    /// The cab type.
    public var cabType: CabType
    /// Seats.
    public var seats: Int
    /// How it is paid (`cash` also when the wallet held too little for the estimate).
    public var payment: PaymentMethod
    /// The fare estimate, in minor units.
    public var estimate: Int64
    /// The cab, once allocated.
    public var cab: String?
    /// The driver's user id, once allocated.
    public var driver: Int64?
    /// The cab's ETA to the pickup when it was allocated, in seconds.
    public var etaSeconds: Int?
    /// Why it was not served or cancelled, or why it is paid in cash.
    public var reason: String?
    /// The final fare, once completed.
    public var fare: Int64?
    /// When it was booked.
    public var created: Date
    /// Which of the routes offered the passenger chose (0: the fastest).
    public var route: Int

    /// A booking from its fields (the server's clients rebuild them from JSON).
    package init(number: Int, passenger: Int64, kind: Kind, state: BookingState, pickup: Coordinate, destination: Coordinate,
                 pickupTime: Date, cabType: CabType, seats: Int, payment: PaymentMethod, estimate: Int64, cab: String?,
                 driver: Int64?, etaSeconds: Int?, reason: String?, fare: Int64?, created: Date, route: Int = 0) {
        self.route = route
        self.number = number; self.passenger = passenger; self.kind = kind; self.state = state; self.pickup = pickup
        self.destination = destination; self.pickupTime = pickupTime; self.cabType = cabType; self.seats = seats
        self.payment = payment; self.estimate = estimate; self.cab = cab; self.driver = driver; self.etaSeconds = etaSeconds
        self.reason = reason; self.fare = fare; self.created = created
    }
}

/// One state change of a booking, with its time.
public struct BookingEvent: Sendable, Equatable {
    /// The state entered.
    public var state: BookingState
    /// When.
    public var time: Date
    /// What else is worth knowing ("cab 7, ETA 240 s", "changed", the reason).
    public var detail: String
}

/// A passenger's bookings, newest first, with the specification's message when there
/// are none.
public struct BookingList: Sendable, Equatable {
    /// The bookings, by pickup time, newest first.
    public var bookings: [Booking]
    /// "No Pending Cabs for Passenger" when a pending list is empty; nil otherwise.
    public var message: String?
}

/// Where the cab of a booking is: its position, the road still ahead and the time it takes.
public struct Tracking: Sendable {
    /// The booking's state.
    public var state: BookingState
    /// The cab's last reported position (nil before allocation or before any report).
    public var cabPosition: Coordinate?
    /// The route still to drive: to the pickup until the trip starts, then to the
    /// destination. Empty when there is no cab or no position.
    public var remainingRoute: [Coordinate]
    /// Metres of `remainingRoute`.
    public var remainingMetres: Double?
    /// Seconds to the pickup (or to the destination once started).
    public var etaSeconds: Double?
    /// When the position was reported.
    public var reportedAt: Date?
    /// How many times the cab left the route shown (to the pickup, then on the trip).
    public var deviations: Int = 0
    /// When it last did: the route shown since starts where the cab was then.
    public var routeChangedAt: Date?
}

/// What the driver's app reports at the end of a trip.
public struct TripReport: Sendable, Equatable {
    /// Metres driven with the passenger (the taximeter's distance).
    public var metres: Int64
    /// Seconds waited for the passenger on the way; the wait at the pickup (arrival to
    /// start) is added from the booking's history.
    public var waitingOnTheWaySeconds: Int64
    /// The OSM toll ways driven, when the app tracked them; nil prices the tolls of the
    /// fastest route from pickup to destination.
    public var tollWays: [Int64]?

    /// A report.
    public init(metres: Int64, waitingOnTheWaySeconds: Int64 = 0, tollWays: [Int64]? = nil) {
        self.metres = metres; self.waitingOnTheWaySeconds = waitingOnTheWaySeconds; self.tollWays = tollWays
    }
}

/// The invoice of a completed trip: the fare line by line and how it was paid, in minor units.
public struct TripInvoice: Sendable, Equatable, Codable {
    /// The booking.
    public var booking: Int
    /// The base fare.
    public var base: Int64
    /// The distance charge.
    public var distance: Int64
    /// The waiting charge.
    public var waiting: Int64
    /// Tolls.
    public var tolls: Int64
    /// The first-ride promotion taken off.
    public var discount: Int64
    /// What the passenger pays.
    public var total: Int64
    /// `wallet` or `cash`.
    public var method: String
    /// Paid from the wallet.
    public var walletPaid: Int64
    /// Paid in cash.
    public var cashPaid: Int64
    /// The company's commission.
    public var commission: Int64
    /// The distance billed: the trip's track, routed on the road graph (not the meter).
    public var billedMetres: Int64
    /// The distance the driver's taximeter claimed.
    public var meterMetres: Int64
    /// Why the trip was flagged for review (the meter and the track disagree, the fare is
    /// over what the wallet pays unasked), or nil.
    public var review: String?
    /// The part of the fare the wallet did not pay because it is above the estimate's cap:
    /// owed only once the passenger confirms it.
    public var awaitingConfirmation: Int64

    /// An invoice from its lines.
    package init(booking: Int, base: Int64, distance: Int64, waiting: Int64, tolls: Int64, discount: Int64, total: Int64,
                 method: String, walletPaid: Int64, cashPaid: Int64, commission: Int64, billedMetres: Int64 = 0,
                 meterMetres: Int64 = 0, review: String? = nil, awaitingConfirmation: Int64 = 0) {
        self.booking = booking; self.base = base; self.distance = distance; self.waiting = waiting; self.tolls = tolls
        self.discount = discount; self.total = total; self.method = method; self.walletPaid = walletPaid
        self.cashPaid = cashPaid; self.commission = commission; self.billedMetres = billedMetres
        self.meterMetres = meterMetres; self.review = review; self.awaitingConfirmation = awaitingConfirmation
    }

    enum CodingKeys: String, CodingKey {
        case booking, base, distance, waiting, tolls, discount, total, method, walletPaid, cashPaid, commission, billedMetres, meterMetres,
             review, awaitingConfirmation
    }

    /// Decodes an invoice; one stored before the track was billed (an idempotent answer
    /// kept across the upgrade) has no billed distance, meter or review.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(booking: try c.decode(Int.self, forKey: .booking), base: try c.decode(Int64.self, forKey: .base),
                  distance: try c.decode(Int64.self, forKey: .distance), waiting: try c.decode(Int64.self, forKey: .waiting),
                  tolls: try c.decode(Int64.self, forKey: .tolls), discount: try c.decode(Int64.self, forKey: .discount),
                  total: try c.decode(Int64.self, forKey: .total), method: try c.decode(String.self, forKey: .method),
                  walletPaid: try c.decode(Int64.self, forKey: .walletPaid), cashPaid: try c.decode(Int64.self, forKey: .cashPaid),
                  commission: try c.decode(Int64.self, forKey: .commission),
                  billedMetres: try c.decodeIfPresent(Int64.self, forKey: .billedMetres) ?? 0,
                  meterMetres: try c.decodeIfPresent(Int64.self, forKey: .meterMetres) ?? 0,
                  review: try c.decodeIfPresent(String.self, forKey: .review),
                  awaitingConfirmation: try c.decodeIfPresent(Int64.self, forKey: .awaitingConfirmation) ?? 0)
    }
}

/// A passenger's rating of a completed trip.
public struct Feedback: Sendable, Equatable {
    /// The driver, 1 to 5.
    public var driver: Int
    /// The cab, 1 to 5.
    public var cab: Int
    /// The whole experience, 1 to 5.
    public var experience: Int
    /// Free text, at most 500 characters.
    public var comment: String

    /// A rating.
    public init(driver: Int, cab: Int, experience: Int, comment: String = "") {
        self.driver = driver; self.cab = cab; self.experience = experience; self.comment = comment
    }
}

/// An offer of a booking to a driver, to accept or decline within the offer timeout.
public struct DriverOffer: Sendable, Equatable {
    /// The offer's id, for the answer.
    public var id: UInt64
    /// The driver offered.
    public var driver: Int64
    /// The cab.
    public var cab: String
    /// The booking.
    public var booking: Int
    /// The pickup.
    public var pickup: Coordinate
    /// Where the passenger goes (nil when this process no longer knows: an offer replayed
    /// after the search ended).
    public var destination: Coordinate?
    /// The cab's ETA to the pickup.
    public var etaSeconds: Double
    /// When the offer lapses.
    public var expires: Date

    /// An offer from its fields.
    package init(id: UInt64, driver: Int64, cab: String, booking: Int, pickup: Coordinate, destination: Coordinate?,
                 etaSeconds: Double, expires: Date) {
        self.id = id; self.driver = driver; self.cab = cab; self.booking = booking; self.pickup = pickup
        self.destination = destination
        self.etaSeconds = etaSeconds; self.expires = expires
    }
}
