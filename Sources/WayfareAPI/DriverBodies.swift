import Foundation
import Services

/// `POST /v1/driver/shift`: a driver starts a shift in a cab.
public struct ShiftStart: Codable, Sendable, Equatable {
    /// The cab's id (its plate, say).
    public var cabID: String
    /// The cab's type, one the city names.
    public var cabType: String
    /// The cab's seats (4 when absent).
    public var seats: Int?

    /// A shift from its fields.
    public init(cabID: String, cabType: String, seats: Int? = nil) { self.cabID = cabID; self.cabType = cabType; self.seats = seats }

    enum CodingKeys: String, WireKey {
        case cabID = "cab_id", cabType = "cab_type", seats
        var rule: FieldRule { self == .seats ? Limits.seats : Limits.cabName }
    }
}

/// `POST /v1/driver/position`: where the cab is now (the server's clock stamps it).
public struct PositionReport: Codable, Sendable, Equatable {
    /// The cab's position.
    public var position: LatLon

    /// A report of `position`.
    public init(position: LatLon) { self.position = position }

    enum CodingKeys: String, WireKey {
        case position
        var rule: FieldRule { .structured }
    }
}

/// `POST /v1/driver/availability`.
public struct AvailabilityChange: Codable, Sendable, Equatable {
    /// Whether the driver takes offers.
    public var available: Bool

    /// A change to `available`.
    public init(available: Bool) { self.available = available }

    enum CodingKeys: String, WireKey {
        case available
        var rule: FieldRule { .structured }
    }
}

/// An offer of a booking to a driver.
public struct OfferAnswer: Codable, Sendable, Equatable {
    /// The offer's id.
    public var id: UInt64
    /// The booking offered.
    public var booking: Int
    /// The driver's cab.
    public var cab: String
    /// Where the passenger waits.
    public var pickup: LatLon
    /// Where they go (shown once accepted, where the city says so).
    public var destination: LatLon?
    /// The cab's ETA to the pickup, in seconds.
    public var etaS: Double
    /// When the offer lapses.
    public var expires: Date

    /// The API's view of `o`.
    public init(_ o: DriverOffer) {
        id = o.id; booking = o.booking; cab = o.cab; pickup = LatLon(o.pickup); destination = o.destination.map(LatLon.init)
        etaS = (o.etaSeconds * 10).rounded() / 10; expires = o.expires
    }

    enum CodingKeys: String, CodingKey { case id, booking, cab, pickup, destination, etaS = "eta_s", expires }
}

/// `GET /v1/driver/offers`.
public struct OfferList: Codable, Sendable, Equatable {
    /// The offers waiting for an answer.
    public var offers: [OfferAnswer]

    /// A list of `offers`.
    public init(offers: [OfferAnswer]) { self.offers = offers }
}

/// `POST /v1/driver/offers/{id}`: the driver's answer.
public struct OfferReply: Codable, Sendable, Equatable {
    /// Accept (true) or decline.
    public var accept: Bool

    /// A reply.
    public init(accept: Bool) { self.accept = accept }

    enum CodingKeys: String, WireKey {
        case accept
        var rule: FieldRule { .structured }
    }
}

/// `POST /v1/driver/bookings/{number}/complete`: the taximeter's reading, a cross-check of
/// the fare the server bills from the trip's track.
public struct TripEnd: Codable, Sendable, Equatable {
    /// The meter's distance.
    public var metres: Int64
    /// The meter's waiting on the way, in seconds.
    public var waitingOnTheWayS: Int64?

    /// A reading from its fields.
    public init(metres: Int64, waitingOnTheWayS: Int64? = nil) { self.metres = metres; self.waitingOnTheWayS = waitingOnTheWayS }

    enum CodingKeys: String, WireKey {
        case metres, waitingOnTheWayS = "waiting_on_the_way_s"
        var rule: FieldRule { self == .metres ? .integer(0...1_000_000_000) : .integer(0...86_400) }
    }
}

/// The invoice of a completed trip.
public struct InvoiceAnswer: Codable, Sendable, Equatable {
    /// The booking.
    public var booking: Int
    /// The currency.
    public var currency: String
    /// The fare's parts, in minor units.
    public var base: Int64, distance: Int64, waiting: Int64, tolls: Int64, discount: Int64, total: Int64
    /// `wallet` or `cash`.
    public var method: String
    /// Paid from the wallet.
    public var walletPaid: Int64
    /// Paid in cash.
    public var cashPaid: Int64
    /// The company's commission.
    public var commission: Int64
    /// The distance billed, from the trip's track.
    public var billedM: Int64
    /// The meter's distance.
    public var meterM: Int64
    /// Why the trip is flagged for review, if it is.
    public var review: String?
    /// The part of the fare waiting for the passenger's confirmation.
    public var awaitingConfirmation: Int64

    /// The API's view of `invoice`.
    public init(_ invoice: TripInvoice, currency: String) {
        booking = invoice.booking; self.currency = currency; base = invoice.base; distance = invoice.distance
        waiting = invoice.waiting; tolls = invoice.tolls; discount = invoice.discount; total = invoice.total; method = invoice.method
        walletPaid = invoice.walletPaid; cashPaid = invoice.cashPaid; commission = invoice.commission
        billedM = invoice.billedMetres; meterM = invoice.meterMetres; review = invoice.review
        awaitingConfirmation = invoice.awaitingConfirmation
    }

    enum CodingKeys: String, CodingKey {
        case booking, currency, base, distance, waiting, tolls, discount, total, method, walletPaid = "wallet_paid"
        case cashPaid = "cash_paid", commission, billedM = "billed_m", meterM = "meter_m", review
        case awaitingConfirmation = "awaiting_confirmation"
    }
}
