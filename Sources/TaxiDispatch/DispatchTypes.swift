import Essentials
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Zones

/// A cab as dispatch knows it: the fleet's cab plus its passenger seats.
public struct CabProfile: Sendable, Hashable {
    /// The cab's id, unique in the fleet.
    public let id: String
    /// Its type.
    public let type: CabType
    /// Passenger seats.
    public let seats: Int
    /// A profile.
    public init(id: String, type: CabType, seats: Int) { self.id = id; self.type = type; self.seats = seats }
}

/// A customer's request for a cab now.
public struct RideRequest: Sendable, Equatable {
    /// Who asks; one open request per customer.
    public let customer: String
    /// Where to pick up.
    public let pickup: Coordinate
    /// Where to go, when known.
    public let destination: Coordinate?
    /// The cab type wanted; nil for any.
    public let type: CabType?
    /// Passenger seats needed.
    public let seats: Int
    /// A request.
    public init(customer: String, pickup: Coordinate, destination: Coordinate? = nil, type: CabType? = nil, seats: Int = 1) {
        self.customer = customer; self.pickup = pickup; self.destination = destination; self.type = type; self.seats = seats
    }
}

/// A request's number, unique in its dispatcher.
public struct RequestID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number.
    public let value: UInt64
    /// Orders by number (the order requests were made).
    public static func < (a: RequestID, b: RequestID) -> Bool { a.value < b.value }
    /// The number as text.
    public var description: String { String(value) }
}

/// An offer of a request to one driver, who must answer before `expires`.
public struct Offer: Sendable, Hashable {
    /// The offer's number, unique in its dispatcher.
    public let id: UInt64
    /// The request offered.
    public let request: RequestID
    /// The request's customer, as the request named them.
    public let customer: String
    /// The pickup, for the driver to judge.
    public let pickup: Coordinate
    /// The cab (driver) asked.
    public let cab: String
    /// The cab's road ETA to the pickup when offered, in seconds.
    public let etaSeconds: Double
    /// When the offer lapses.
    public let expires: Date
}

/// A request that got its cab.
public struct Assignment: Sendable {
    /// The cab.
    public let cab: String
    /// Its ETA to the pickup when it accepted.
    public let eta: ETA
    /// The route from the cab to the pickup (nil only if the cab moved off the road network
    /// between its offer and its answer).
    public let route: Route?
}

/// Where a request stands.
public enum RequestStatus: Sendable {
    /// Looking for a cab, with the offer outstanding now (nil between offers).
    case searching(offer: Offer?)
    /// Done: the cab, its ETA and its route.
    case assigned(Assignment)
    /// Ended without a cab: "the service cannot be delivered".
    case notServed(NotServedReason)
    /// The customer cancelled.
    case cancelled
}

/// What the dispatcher tells the outside world, after the call that caused it returns.
public enum DispatchNotification: Sendable {
    /// A driver is offered a request and must answer.
    case offer(Offer)
    /// An offer lapsed or was withdrawn (the request ended); the driver's app should drop it.
    case offerWithdrawn(Offer)
    /// A request ended: assigned, not served or cancelled.
    case requestEnded(RequestID, customer: String, RequestStatus)
}

/// Why the dispatcher refused a call.
public enum DispatchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The pickup is outside every service area (the zones' own refusal).
    case outOfServiceArea(Coordinate)
    /// The pickup is farther than the snapping limit from every road.
    case noRoadNearby(Coordinate)
    /// The customer already has an open request.
    case customerHasOpenRequest(customer: String, RequestID)
    /// Seats must be 1 or more.
    case invalidSeats(Int)
    /// No such request.
    case unknownRequest(RequestID)
    /// No such offer, or it is no longer outstanding (answered, lapsed or withdrawn).
    case offerNotOutstanding(UInt64)
    /// The request has already ended.
    case requestEnded(RequestID)
    /// The fleet refused (unknown cab, a report from the future, …).
    case fleet(FleetError)
    /// A cab profile with no seats or of a type the fleet does not know.
    case invalidCab(String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .outOfServiceArea(c): ZoneError.outOfServiceArea(c).description
        case let .noRoadNearby(c): "pickup \(c): no road within reach"
        case let .customerHasOpenRequest(customer, id): "customer \"\(customer)\" already has open request \(id)"
        case let .invalidSeats(n): "seats must be at least 1, not \(n)"
        case let .unknownRequest(id): "unknown request \(id)"
        case let .offerNotOutstanding(id): "offer \(id) is not outstanding"
        case let .requestEnded(id): "request \(id) has already ended"
        case let .fleet(e): e.description
        case let .invalidCab(why): why
        }
    }
}
