import Foundation
import Services

/// `GET /v1/ride-requests/fare`: the fare the city suggests.
public struct SuggestedFare: Codable, Sendable, Equatable {
    /// The currency.
    public var currency: String
    /// The suggested fare, in minor units.
    public var suggestedFare: Int64

    /// A suggestion from its fields.
    public init(currency: String, suggestedFare: Int64) { self.currency = currency; self.suggestedFare = suggestedFare }

    enum CodingKeys: String, CodingKey { case currency, suggestedFare = "suggested_fare" }
}

/// `POST /v1/ride-requests`: a rider's trip and the fare offered.
public struct NewRideRequest: Codable, Sendable, Equatable {
    /// The phone's own id of the request: a replay with the same id is the same request.
    public var clientID: String
    /// Where from.
    public var source: LatLon
    /// Where to.
    public var destination: LatLon
    /// The address where from, as the rider wrote it.
    public var sourceAddress: String?
    /// The address where to.
    public var destinationAddress: String?
    /// A note for drivers.
    public var description: String?
    /// The fare offered, in minor units.
    public var fare: Int64

    /// A request from its fields.
    public init(clientID: String, source: LatLon, destination: LatLon, sourceAddress: String? = nil, destinationAddress: String? = nil,
                description: String? = nil, fare: Int64) {
        self.clientID = clientID; self.source = source; self.destination = destination; self.sourceAddress = sourceAddress
        self.destinationAddress = destinationAddress; self.description = description; self.fare = fare
    }

    enum CodingKeys: String, WireKey {
        case clientID = "client_id", source, destination, sourceAddress = "source_address", destinationAddress = "destination_address"
        case description, fare
        var rule: FieldRule {
            switch self {
            case .clientID: Limits.clientID
            case .source, .destination: .structured
            case .sourceAddress, .destinationAddress: .text(maximum: 500)
            case .description: .text(maximum: 1000)
            case .fare: Limits.amount
            }
        }
    }
}

/// A ride request as the API shows it.
public struct RideRequestAnswer: Codable, Sendable, Equatable {
    /// The request's id.
    public var id: Int64
    /// The rider's phone's id of it.
    public var clientID: String
    /// The rider's user id.
    public var rider: Int64
    /// Where it stands.
    public var status: RideRequestStatus
    /// Where from.
    public var source: LatLon
    /// Where to.
    public var destination: LatLon
    /// The address where from.
    public var sourceAddress: String
    /// The address where to.
    public var destinationAddress: String
    /// The rider's note.
    public var description: String
    /// The fare offered, in minor units.
    public var fare: Int64
    /// The route's length.
    public var metres: Int64
    /// The fare per kilometre of route.
    public var farePerKm: Int64
    /// The drivers who accepted.
    public var acceptedBy: [Int64]
    /// The driver the rider confirmed.
    public var driver: Int64?
    /// When it was posted.
    public var created: Date
    /// How far from the searching driver (in search results).
    public var distanceM: Double?

    /// The API's view of `r`, `metres` from the searching driver.
    public init(_ r: RideRequestRecord, distance: Double? = nil) {
        id = r.id; clientID = r.clientID; rider = r.rider; status = r.status; source = LatLon(r.source); destination = LatLon(r.destination)
        sourceAddress = r.sourceAddress; destinationAddress = r.destinationAddress; description = r.description; fare = r.fare
        metres = r.metres; farePerKm = r.farePerKilometre; acceptedBy = r.acceptedBy; driver = r.driver; created = r.created
        distanceM = distance.map { $0.rounded() }
    }

    enum CodingKeys: String, CodingKey {
        case id, clientID = "client_id", rider, status, source, destination, sourceAddress = "source_address"
        case destinationAddress = "destination_address", description, fare, metres, farePerKm = "fare_per_km"
        case acceptedBy = "accepted_by", driver, created, distanceM = "distance_m"
    }
}

/// `GET /v1/ride-requests`: nearest first.
public struct RideRequestList: Codable, Sendable, Equatable {
    /// The requests.
    public var requests: [RideRequestAnswer]

    /// A list of `requests`.
    public init(requests: [RideRequestAnswer]) { self.requests = requests }
}

/// `POST /v1/ride-requests/{id}/accept`: a driver takes it.
public struct RideAcceptance: Codable, Sendable, Equatable {
    /// The driver's phone's id of the acceptance.
    public var clientID: String

    /// An acceptance from its id.
    public init(clientID: String) { self.clientID = clientID }

    enum CodingKeys: String, WireKey {
        case clientID = "client_id"
        var rule: FieldRule { Limits.clientID }
    }
}

/// `POST /v1/ride-requests/{id}/confirm`: the rider picks a driver who accepted.
public struct RideConfirmation: Codable, Sendable, Equatable {
    /// The driver's user id.
    public var driver: Int64

    /// A confirmation of `driver`.
    public init(driver: Int64) { self.driver = driver }

    enum CodingKeys: String, WireKey {
        case driver
        var rule: FieldRule { .integer(1...Int64.max) }
    }
}

/// `POST /v1/ride-requests/{id}/pay`.
public struct RidePaymentAnswer: Codable, Sendable, Equatable {
    /// The currency.
    public var currency: String
    /// `wallet` or `cash`.
    public var method: String
    /// The fare, in minor units.
    public var fare: Int64
    /// Paid from the wallet.
    public var walletPaid: Int64
    /// Paid in cash.
    public var cashPaid: Int64
    /// The company's commission.
    public var commission: Int64

    /// A payment from its fields.
    public init(currency: String, method: String, fare: Int64, walletPaid: Int64, cashPaid: Int64, commission: Int64) {
        self.currency = currency; self.method = method; self.fare = fare; self.walletPaid = walletPaid; self.cashPaid = cashPaid
        self.commission = commission
    }

    enum CodingKeys: String, CodingKey {
        case currency, method, fare, walletPaid = "wallet_paid", cashPaid = "cash_paid", commission
    }
}
