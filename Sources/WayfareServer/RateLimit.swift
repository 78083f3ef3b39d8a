import Crypto
import Fleet
import Foundation
import Hummingbird
import NIOCore

/// How many requests one client may make: a token bucket of `burst` requests, refilled at
/// `perSecond`.
///
/// The defaults fit the specifications' apps with room to spare — a driver reports every 5 s
/// and answers offers, a passenger polls the cabs around every 30 s and tracks a cab every
/// few seconds — while a runaway loop or a flood from one client is refused with 429 before
/// it costs the store anything.
public struct RateLimit: Sendable, Equatable {
    /// Requests a client may make at once.
    public var burst: Double
    /// Requests per second a client may sustain.
    public var perSecond: Double

    /// A limit.
    public init(burst: Double = 120, perSecond: Double = 20) {
        self.burst = burst
        self.perSecond = perSecond
    }
}

/// The buckets of every client, keyed by the hash of the bearer token when there is one (a
/// person, whatever network they are on) and by the remote address otherwise.
///
/// `Sendable`: the buckets sit behind a lock; the clock is a `Sendable` closure.
final class RateLimiter: Sendable {
    struct Bucket { var tokens: Double; var updated: Double }

    let limit: RateLimit
    let now: @Sendable () -> Double
    let buckets = Locked<[String: Bucket]>([:])
    /// More clients than this and the full buckets are forgotten (they hold no debt).
    static let maximumClients = 100_000

    init(_ limit: RateLimit, now: @escaping @Sendable () -> Double) {
        self.limit = limit
        self.now = now
    }

    /// Takes one request from `client`'s bucket; nil when allowed, else the seconds until
    /// the next request would be.
    func take(_ client: String) -> Double? {
        let t = now()
        return buckets.withLock { buckets in
            if buckets.count >= Self.maximumClients {
                buckets = buckets.filter { min(limit.burst, $0.value.tokens + (t - $0.value.updated) * limit.perSecond) < limit.burst }
            }
            var bucket = buckets[client] ?? Bucket(tokens: limit.burst, updated: t)
            bucket.tokens = min(limit.burst, bucket.tokens + max(0, t - bucket.updated) * limit.perSecond)
            bucket.updated = t
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return (1 - bucket.tokens) / limit.perSecond
            }
            bucket.tokens -= 1
            buckets[client] = bucket
            return nil
        }
    }

    /// The client a request comes from.
    static func client(of request: Request, context: WayfareContext) -> String {
        if let header = request.headers[.authorization], header.utf8.count <= 300 {
            // The hash, not the token: the map must not hold secrets.
            return "token:" + SHA256.hash(data: Data(header.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
        }
        return "address:" + (context.remoteAddress?.ipAddress ?? "unknown")
    }
}

/// Refuses a request over its client's limit with 429, `Retry-After` and the JSON error
/// `rate_limited`. `/health`, `/ready` and `/metrics` are not limited: probes and scrapers
/// must always get through.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = WayfareContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: WayfareContext, next: (Request, WayfareContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/health" || path == "/ready" || path == "/metrics" { return try await next(request, context) }
        if let wait = limiter.take(RateLimiter.client(of: request, context: context)) {
            var error = APIError(.tooManyRequests, code: "rate_limited", message: "too many requests; try again in \(Int(wait.rounded(.up))) s")
            error.headers[.retryAfter] = String(Int(wait.rounded(.up)))
            throw error
        }
        return try await next(request, context)
    }
}
