import Crypto
import Essentials
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

/// Where requests come from and how many each source may make: the per-client rate limit,
/// the throttles on the calls that guess at accounts, and the proxies trusted to say who
/// the client is.
///
/// Why keys matter as much as numbers: only an identity the server verified deserves a
/// bucket of its own. A bearer token is a bucket of its own only once it is a live session;
/// a made-up token is just its address. `X-Forwarded-For` is read only from a proxy named in
/// ``trustedProxies``; from anyone else it is a claim and ignored.
public struct ClientGuards: Sendable, Equatable {
    /// Requests per client (nil: no limit).
    public var rateLimit: RateLimit?
    /// Logins, registrations and reset requests naming one mobile number or e-mail address:
    /// by default 6 at once, then one every 10 minutes (the 3-attempt lockout still counts
    /// the wrong passwords of known accounts; this also covers unknown ones).
    public var perAccount: RateLimit?
    /// Logins, registrations and reset requests from one address: 30 at once, then one every
    /// 20 seconds (an office or a campus behind one address still gets through).
    public var perAddress: RateLimit?
    /// The addresses of reverse proxies whose `X-Forwarded-For` names the client.
    public var trustedProxies: Set<String>
    /// Offer streams one driver may hold open at once (a phone needs one; a second is
    /// allowed for a reconnection racing the old stream's close).
    public var offerStreamsPerDriver: Int
    /// A connection that brings no request (or no whole request head) for this long is
    /// closed: idle keep-alive connections and clients that send their headers a byte at a
    /// time alike. A response under way (an offer stream) is never cut.
    public var idleTimeout: Duration
    /// Connections open at once; past it the server stops accepting until one closes (the
    /// kernel's backlog holds the newcomers).
    public var maximumConnections: Int

    /// The defaults.
    public init(rateLimit: RateLimit? = RateLimit(), perAccount: RateLimit? = RateLimit(burst: 6, perSecond: 1.0 / 600),
                perAddress: RateLimit? = RateLimit(burst: 30, perSecond: 1.0 / 20), trustedProxies: Set<String> = [],
                offerStreamsPerDriver: Int = 2, idleTimeout: Duration = .seconds(15), maximumConnections: Int = 10_000) {
        self.rateLimit = rateLimit
        self.perAccount = perAccount
        self.perAddress = perAddress
        self.trustedProxies = trustedProxies
        self.offerStreamsPerDriver = offerStreamsPerDriver
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }

    /// No limits at all (a simulation on loopback, tests of other things): every throttle off.
    public static let unlimited = ClientGuards(rateLimit: nil, perAccount: nil, perAddress: nil)
}

/// Token buckets by key: one per client, refilled at the limit's rate.
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

    /// The 429 answer for a wait of `seconds`.
    static func refusal(_ seconds: Double, _ what: String = "too many requests") -> APIError {
        let wait = Int(exactly: min(86_400, max(1, seconds.rounded(.up)))) ?? 1
        var error = APIError(.tooManyRequests, code: "rate_limited", message: "\(what); try again in \(wait) s")
        error.headers[.retryAfter] = String(wait)
        return error
    }
}

/// Bearer tokens seen to be live sessions lately, by hash: a token here has a rate-limit
/// bucket of its own. An entry lasts a minute, so a session that ended loses its bucket
/// soon after (the handler still refuses it at once: this is no authentication).
///
/// `Sendable`: the map sits behind a lock.
final class SessionKeys: Sendable {
    let entries = Locked<[String: Double]>([:])
    static let lifetime = 60.0
    static let maximumEntries = 100_000

    func isLive(_ key: String, at t: Double) -> Bool { entries.withLock { ($0[key] ?? -.infinity) > t } }

    func remember(_ key: String, at t: Double) {
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries = entries.filter { $0.value > t } }
            if entries.count < Self.maximumEntries { entries[key] = t + Self.lifetime }
        }
    }
}

extension WayfareServer {
    /// The address a request comes from: the peer, or, when the peer is a trusted proxy, the
    /// last address in `X-Forwarded-For` that is not itself a trusted proxy.
    func clientAddress(_ request: Request, context: WayfareContext) -> String {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        guard guards.trustedProxies.contains(peer), let header = request.headers[.init("X-Forwarded-For")!],
              header.utf8.count <= 1_000 else { return peer }
        let hops = header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() where !guards.trustedProxies.contains(hop) {
            // Only something shaped like an address: the header is the client's to write.
            guard hop.utf8.count <= 45, hop.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }), !hop.isEmpty else { return peer }
            return hop
        }
        return peer
    }

    /// Takes one request from the bucket of the request's client: its session's bucket when
    /// the bearer token is a live session, else its address's. A token not seen live in the
    /// last minute is looked up first (one indexed read, what the handler's authentication
    /// would cost); one that is no session is charged to the address like no token at all.
    /// - Throws: 429 when the bucket is empty.
    func chargeRateLimit(_ request: Request, context: WayfareContext, limiter: RateLimiter) async throws {
        var key = "address:" + clientAddress(request, context: context)
        if let header = request.headers[.authorization], header.utf8.count <= 300 {
            // The hash, not the token: the map must not hold secrets.
            let session = "session:" + SHA256.hash(data: Data(header.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
            let t = limiter.now()
            if sessionKeys.isLive(session, at: t) {
                key = session
            } else if let token = try? bearerToken(header), (try? await accounts.authenticate(token)) != nil {
                sessionKeys.remember(session, at: t)
                key = session
            }
        }
        if let wait = limiter.take(key) { throw RateLimiter.refusal(wait) }
    }

    /// Takes one attempt from the throttles of a call that guesses at an account: by the
    /// mobile number or e-mail address it names, and by the client's address.
    /// - Throws: 429 when either is spent.
    func throttleAccountCall(_ request: Request, context: WayfareContext, account: String) throws {
        let name = account.lowercased().filter { !$0.isWhitespace && $0 != "-" }
        if let wait = accountThrottle?.take("account:" + String(name.prefix(254))) {
            throw RateLimiter.refusal(wait, "too many attempts for this account")
        }
        if let wait = addressThrottle?.take("address:" + clientAddress(request, context: context)) {
            throw RateLimiter.refusal(wait, "too many attempts from this address")
        }
    }
}

/// Refuses a request over its client's limit with 429, `Retry-After` and the JSON error
/// `rate_limited`. `/health` is not limited: probes must always get through.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = WayfareContext
    let limiter: RateLimiter
    let server: WayfareServer

    func handle(_ request: Request, context: WayfareContext, next: (Request, WayfareContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path == "/health" || path == "/ready" || path == "/metrics" { return try await next(request, context) }
        try await server.chargeRateLimit(request, context: context, limiter: limiter)
        return try await next(request, context)
    }
}
