import Fleet
import Foundation
import RoadGraph

/// A cab considered for a request, with its road ETA to the pickup.
public struct Candidate: Sendable, Equatable {
    /// The cab's id.
    public let cab: String
    /// Its type and seats.
    public let type: CabType
    /// Passenger seats.
    public let seats: Int
    /// The zone whose queue it was found in.
    public let zone: Int
    /// Its place in that queue's order: lower is nearer the head (the number of its
    /// latest join of the queue's tail, so comparable within one queue).
    public let queueOrder: UInt64
    /// Great-circle metres from its last position to the pickup.
    public let straightMetres: Double
    /// Fastest road arrival at the pickup.
    public let eta: ETA
    /// How many times it has already been offered this request.
    public let timesAsked: Int
}

/// How the candidates of a request are gathered from a zone's queue before ranking.
public enum CandidateGathering: Sendable, Equatable {
    /// From the head of the queue: the first `maxCandidates` eligible cabs.
    case queueOrder
    /// The `maxCandidates` eligible cabs of the queue nearest the pickup in a straight
    /// line, whatever their place in it.
    case nearestFirst
}

/// The order in which a dispatcher offers a request to its candidates: one of the three
/// built in, or a backend's own.
///
/// The dispatcher gathers candidates as `gathering` says, drops those that cannot arrive
/// within the request's ETA limit, then asks `rank` for the order; it offers to the first
/// (or to the one a reservation hook picks). Called under the dispatcher's lock: keep it
/// quick and do not call back into the dispatcher.
public protocol DispatchPolicy: Sendable {
    /// How candidates are gathered.
    var gathering: CandidateGathering { get }
    /// Puts the candidates in offering order.
    func rank(_ candidates: inout [Candidate], for request: RideRequest)
}

/// The specification's default: "the first taxi driver in the zone queue", in queue order.
public struct ZoneQueuePolicy: DispatchPolicy {
    /// A zone-queue policy.
    public init() {}
    /// From the queue's head.
    public var gathering: CandidateGathering { .queueOrder }
    /// Queue order, as gathered (zones by ETA when several are searched).
    public func rank(_ candidates: inout [Candidate], for request: RideRequest) {}
}

/// BR1: "the fastest arrival time from a set of cabs": the lowest road ETA first (ties in
/// queue order).
public struct FastestArrivalPolicy: DispatchPolicy {
    /// A fastest-arrival policy.
    public init() {}
    /// The nearest in a straight line, then ranked by road.
    public var gathering: CandidateGathering { .nearestFirst }
    /// By ETA, then queue order.
    public func rank(_ candidates: inout [Candidate], for request: RideRequest) {
        candidates.sort { ($0.eta.seconds, $0.queueOrder, $0.cab) < ($1.eta.seconds, $1.queueOrder, $1.cab) }
    }
}

/// The shortest drive to the pickup first (by road metres along the fastest path), for a
/// city that pays drivers per kilometre to the pickup.
public struct NearestByRoadPolicy: DispatchPolicy {
    /// A nearest-by-road policy.
    public init() {}
    /// The nearest in a straight line, then ranked by road.
    public var gathering: CandidateGathering { .nearestFirst }
    /// By road metres, then queue order.
    public func rank(_ candidates: inout [Candidate], for request: RideRequest) {
        candidates.sort { ($0.eta.metres, $0.queueOrder, $0.cab) < ($1.eta.metres, $1.queueOrder, $1.cab) }
    }
}

extension DispatchPolicy where Self == ZoneQueuePolicy {
    /// The zone queue's order (the default).
    public static var zoneQueue: ZoneQueuePolicy { ZoneQueuePolicy() }
}

extension DispatchPolicy where Self == FastestArrivalPolicy {
    /// The fastest road arrival first.
    public static var fastestArrival: FastestArrivalPolicy { FastestArrivalPolicy() }
}

extension DispatchPolicy where Self == NearestByRoadPolicy {
    /// The shortest road distance first.
    public static var nearestByRoad: NearestByRoadPolicy { NearestByRoadPolicy() }
}

/// What a request's candidate search may use; a `DispatchHooks.adjustSelection` hook may
/// change it per request.
public struct SelectionParameters: Sendable, Equatable {
    /// The most road seconds from a cab to the pickup (the specification: 30 minutes).
    public var maxETASeconds: Double
    /// The most candidates gathered and given ETAs per search.
    public var maxCandidates: Int
    /// Whether neighbouring zones are searched when the pickup's zone has no candidate.
    public var neighbourZones: Bool
    /// Cab types allowed (nil: the request's type, or any when the request names none).
    public var types: Set<CabType>?
    /// The fewest passenger seats.
    public var minimumSeats: Int
}

/// Where a cab goes in its zone queue after declining or letting an offer time out.
public enum QueuePlacement: Sendable, Equatable {
    /// To the bottom of its zone queue (the specification).
    case bottom
    /// Stays where it was.
    case unchanged
}

/// What a reservation hook decides when the dispatcher is about to offer a request.
public enum ReservationDecision: Sendable, Equatable {
    /// Offer to the candidate the policy put first.
    case proceed
    /// Offer to the candidate at this index of the ranked list instead.
    case offer(candidateIndex: Int)
    /// Offer to none now: the request waits for the next retry.
    case hold
}

/// Hooks into a dispatcher's decisions. Each runs under the dispatcher's lock, on the thread
/// of the call that triggered it: keep them quick and do not call back into the dispatcher.
public struct DispatchHooks: Sendable {
    /// Adjusts the selection parameters of one request before its candidates are gathered.
    public var adjustSelection: (@Sendable (RideRequest, inout SelectionParameters) -> Void)?
    /// The reservation event: sees the ranked candidates before an offer, and may keep,
    /// replace or hold the decision.
    public var reservation: (@Sendable (RideRequest, [Candidate]) -> ReservationDecision)?
    /// Overrides the queue policy after a decline or a timeout.
    public var placementAfterDecline: (@Sendable (_ cab: String, _ zone: Int) -> QueuePlacement)?

    /// Hooks, each optional.
    public init(adjustSelection: (@Sendable (RideRequest, inout SelectionParameters) -> Void)? = nil,
                reservation: (@Sendable (RideRequest, [Candidate]) -> ReservationDecision)? = nil,
                placementAfterDecline: (@Sendable (_ cab: String, _ zone: Int) -> QueuePlacement)? = nil) {
        self.adjustSelection = adjustSelection
        self.reservation = reservation
        self.placementAfterDecline = placementAfterDecline
    }
}
