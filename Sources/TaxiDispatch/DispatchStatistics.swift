import Essentials
import Foundation

/// Figures about dispatch computed from a decision log alone: "statistics regarding
/// punctuality and accuracy of Taxi Driver".
public struct DispatchStatistics: Sendable, Equatable {
    /// One driver's (cab's) answers.
    public struct Driver: Sendable, Equatable {
        /// Offers made to the cab.
        public var offers = 0
        /// Offers accepted, declined, and left to time out.
        public var accepted = 0, declined = 0, timedOut = 0
        /// Mean seconds from an offer to its answer (accepted or declined), nil without answers.
        public var meanResponseSeconds: Double?
        /// Accepted offers over all offers.
        public var acceptanceRate: Double { offers == 0 ? 0 : Double(accepted) / Double(offers) }
    }
    /// Requests in the log.
    public var requests = 0
    /// Requests that got a cab.
    public var served = 0
    /// Requests that ended without a cab, by reason.
    public var notServed: [NotServedReason: Int] = [:]
    /// Requests the customer cancelled.
    public var cancelled = 0
    /// Requests still open at the end of the log.
    public var open = 0
    /// Offers made, over requests.
    public var offersPerRequest = 0.0
    /// Seconds from request to assignment of the served requests: mean, p50 and p95.
    public var timeToDispatch: Summary?
    /// ETA at assignment of the served requests, seconds: mean, p50 and p95.
    public var pickupETA: Summary?
    /// Per cab id.
    public var drivers: [String: Driver] = [:]

    /// A distribution in three numbers.
    public struct Summary: Sendable, Equatable {
        /// The mean, the median and the 95th percentile (nearest rank).
        public var mean, p50, p95: Double
        /// The summary of `values` (nil when empty).
        public init?(_ values: [Double]) {
            let s = values.sorted()
            guard let p50 = percentile(0.5, ofSorted: s), let p95 = percentile(0.95, ofSorted: s) else { return nil }
            mean = s.reduce(0, +) / Double(s.count)
            self.p50 = p50
            self.p95 = p95
        }
    }

    /// Reads the figures out of `records` (in log order).
    public init(_ records: [DecisionRecord]) {
        var requested: [UInt64: Date] = [:], ended = Set<UInt64>()
        var offeredAt: [UInt64: (cab: String, time: Date)] = [:]
        var responses: [String: [Double]] = [:]
        var offers = 0
        var dispatchTimes: [Double] = [], etas: [Double] = []
        for r in records {
            switch r.kind {
            case .requested:
                requests += 1; requested[r.request] = r.time
            case .candidates: break
            case let .offered(cab, _, _):
                offers += 1; drivers[cab, default: Driver()].offers += 1
                offeredAt[r.request] = (cab, r.time)
            case let .accepted(cab):
                drivers[cab, default: Driver()].accepted += 1
                if let o = offeredAt[r.request], o.cab == cab { responses[cab, default: []].append(r.time.timeIntervalSince(o.time)) }
            case let .declined(cab):
                drivers[cab, default: Driver()].declined += 1
                if let o = offeredAt[r.request], o.cab == cab { responses[cab, default: []].append(r.time.timeIntervalSince(o.time)) }
            case let .timedOut(cab):
                drivers[cab, default: Driver()].timedOut += 1
            case let .assigned(_, eta):
                served += 1; ended.insert(r.request); etas.append(eta)
                if let t = requested[r.request] { dispatchTimes.append(r.time.timeIntervalSince(t)) }
            case let .notServed(reason):
                notServed[reason, default: 0] += 1; ended.insert(r.request)
            case .cancelled:
                cancelled += 1; ended.insert(r.request)
            }
        }
        for (cab, times) in responses { drivers[cab]?.meanResponseSeconds = times.reduce(0, +) / Double(times.count) }
        open = requested.keys.filter { !ended.contains($0) }.count
        offersPerRequest = requests == 0 ? 0 : Double(offers) / Double(requests)
        timeToDispatch = Summary(dispatchTimes)
        pickupETA = Summary(etas)
    }
}
