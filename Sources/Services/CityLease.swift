import Foundation
import Storage

/// Which replica owns a city's live fleet and dispatch, through a lease row in the store.
///
/// The fleet index, the zone queues and the offer timers live in one process's memory, so one
/// replica at a time runs them; the others send that city's fleet traffic to it. The owner
/// renews its lease well within its time to live; when it dies, the lease expires and the next
/// replica to claim it takes over, and the fencing token goes up by one.
///
/// `Sendable`: immutable values and a `Sendable` store.
public struct CityLease: Sendable {
    /// Who holds a lease, after a claim.
    public struct Holder: Sendable, Equatable {
        /// The holder's process id.
        public var owner: String
        /// Where other replicas send the city's fleet traffic.
        public var url: String
        /// Grows by one at every change of owner (the fencing token).
        public var token: Int64
        /// When the lease lapses unless renewed.
        public var expires: Date
    }

    let store: any SQLStore
    /// The city.
    public let city: String
    /// This process's id (unique per process run).
    public let owner: String
    /// This process's URL, for the others.
    public let url: String
    /// How long a claim lasts.
    public let timeToLive: TimeInterval

    /// A lease of `city` on `store` for the process `owner` reachable at `url`.
    public init(store: any SQLStore, city: String, owner: String, url: String, timeToLive: TimeInterval = 3) {
        self.store = store
        self.city = city
        self.owner = owner
        self.url = url
        self.timeToLive = timeToLive
    }

    /// Takes the lease when nobody holds it or it lapsed, renews it when this process holds
    /// it, and otherwise leaves it; returns the holder after the call, in one transaction.
    public func claim(now: Date) async throws(ServiceError) -> Holder {
        let (city, owner, url) = (self.city, self.owner, self.url)
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded()), until = nowMs + Int64(timeToLive * 1000)
        return try await serviceCall {
            try await store.write(locking: ["city_leases"]) { c -> Holder in
                let leases = LeaseStatements(c)
                func holder(_ o: String, _ u: String, _ t: Int64, _ e: Int64) -> Holder {
                    Holder(owner: o, url: u, token: t, expires: Date(timeIntervalSince1970: Double(e) / 1000))
                }
                guard let lease = try leases.lease(of: city) else {
                    try leases.insert(city: city, owner: owner, url: url, until: until)
                    return holder(owner, url, 1, until)
                }
                if lease.owner == owner {
                    try leases.renew(city: city, url: url, until: until)
                    return holder(owner, url, lease.token, until)
                }
                guard lease.expiresMs < nowMs else { return holder(lease.owner, lease.url, lease.token, lease.expiresMs) }
                try leases.take(city: city, owner: owner, url: url, token: lease.token + 1, until: until)
                return holder(owner, url, lease.token + 1, until)
            }
        }
    }
}
