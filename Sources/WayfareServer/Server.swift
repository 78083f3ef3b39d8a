import CityFolder
import CityModel
import Essentials
import Fleet
import Foundation
import GeoJSON
import Geocoding
import Hummingbird
import HummingbirdCore
import Logging
import RoadGraph
import NIOCore
import ServiceLifecycle
import Services
import Storage
import TaxiDispatch
import WayfareAPI

/// The HTTP JSON API of one city: the engine's answers (zones, routes, ETAs, nearest cabs,
/// geocoding) and every service (accounts, sessions, bookings, fares, wallet, favourites,
/// the driver's side), on Hummingbird 2.
///
/// One process serves one city from its folder and keeps the city's live fleet and
/// dispatcher in memory; business state is in the store. Passengers, drivers and admins
/// authenticate with the bearer token of their session; a passenger reaches only their own
/// bookings and wallet (another's booking is *not found*, like an unknown one).
///
/// `Sendable`: every stored property is an immutable `Sendable` service or value.
public final class WayfareServer: Sendable {
    /// The largest request body accepted (413 beyond).
    public static let maximumBodyBytes = 64 * 1024

    /// The city served.
    public let city: CityFolder
    /// Accounts and sessions.
    public let accounts: Accounts
    /// Wallets and payments.
    public let wallet: Wallet
    /// Bookings and the city's dispatcher.
    public let bookings: Bookings
    /// Favourite places.
    public let favourites: PassengerFavourites
    /// Ride requests (002).
    public let rideRequests: RideRequests
    let store: any SQLStore
    let metrics = ServerMetrics()
    let outbox: Outbox
    let notifier: any Notifier
    let routers: RouterPool
    /// Map matchers, one per thread matching at once.
    let matchers: WorkspacePool<Matcher>
    let guards: ClientGuards
    /// The gateway's signing secret (bytes: `SymmetricKey` is not `Sendable`; a key is made per check).
    let callbackSecret: [UInt8]?
    /// `test` on the test-mode gateway (no money moves), `live` otherwise.
    public let paymentsMode: String
    /// The codes "texted" to phones when SMS is in test mode (nil otherwise).
    let testPhones: PhoneInbox?
    let limiter: RateLimiter?
    let accountThrottle: RateLimiter?
    let addressThrottle: RateLimiter?
    let sessionKeys = SessionKeys()
    let housekeeping: Housekeeping
    let lastHousekeeping = Locked<Date?>(nil)
    let offerHub = OfferHub()
    /// The city's lease when this process is one of several replicas (nil: the only one).
    let lease: CityLease?
    let leaseView = Locked(LeaseView())
    let logger: Logger

    /// The services of `city` on `store` (migrated to `ServiceSchema`).
    ///
    /// - Parameters:
    ///   - city: the city folder.
    ///   - store: the store.
    ///   - scheduler: the dispatcher's timers and everyone's clock (a `VirtualScheduler`
    ///     in tests and the demo).
    ///   - gateway: the card payment gateway (the test-mode gateway by default: there is no
    ///     real one to reach from here).
    ///   - notifier: where the outbox's messages go (the log by default).
    ///   - logger: the server's log.
    ///   - guards: how many requests each client may make, the throttles on logins,
    ///     registrations and resets, the proxies trusted to name the client, the cap on offer
    ///     streams.
    ///   - replicaURL: this process's URL when it is one of several replicas of the city on
    ///     one PostgreSQL store: the replicas hold a lease on the city, the owner runs the live
    ///     fleet and dispatch, and the others redirect the fleet's routes to it (nil: the only
    ///     process, which owns the city).
    ///   - callbackSecret: the secret the payment gateway signs its callbacks with (nil: the
    ///     callback route answers 404).
    ///   - sms: where registration codes go: through `notifier` (`.notifier`), or back in the
    ///     registration's answer (`.test`: no text is sent; said in `/health`).
    public convenience init(city: CityFolder, store: any SQLStore, scheduler: any DispatchScheduler = SystemScheduler(),
                gateway: any PaymentGateway = TestModeGateway(), notifier: (any Notifier)? = nil,
                logger: Logger = Logger(label: "wayfare.server"), guards: ClientGuards = ClientGuards(),
                replicaURL: String? = nil, callbackSecret: [UInt8]? = nil, sms: SMSMode = .notifier) throws(ServiceError) {
        try self.init(city: city, store: store, scheduler: scheduler, gateway: gateway, notifier: notifier, logger: logger,
                      passwords: .standard, guards: guards, replicaURL: replicaURL, callbackSecret: callbackSecret, sms: sms)
    }

    /// Where the one-time codes of registrations go.
    public enum SMSMode: Sendable, Equatable {
        /// Through the notifier, as a text message (a real SMS provider plugs in there).
        case notifier
        /// Back in the registration's answer (`test_code`), for tests, the demo and a server
        /// with no SMS provider yet; `/health` says `"sms": "test"`.
        case test
    }

    /// The services with the password hash `passwords`: `wayfare demo` uses cheap parameters
    /// for its hundreds of throwaway accounts (scrypt at N = 2^17 costs a second a login).
    package init(city: CityFolder, store: any SQLStore, scheduler: any DispatchScheduler, gateway: any PaymentGateway,
                 notifier: (any Notifier)?, logger: Logger, passwords: PasswordHasher, guards: ClientGuards,
                 replicaURL: String? = nil, callbackSecret: [UInt8]? = nil, sms: SMSMode = .notifier) throws(ServiceError) {
        self.city = city
        self.callbackSecret = callbackSecret
        // Said in /health and on the page: test payments take no money.
        paymentsMode = gateway is TestModeGateway ? "test" : "live"
        let store = MeasuredStore(base: store, metrics: metrics)
        self.store = store
        self.logger = logger
        let clock = scheduler.clock
        var notifier: any Notifier = notifier ?? LogNotifier(logger: logger)
        if sms == .test {
            let phones = PhoneInbox(forwardingTo: notifier)
            testPhones = phones
            notifier = phones
        } else {
            testPhones = nil
        }
        self.notifier = notifier
        accounts = Accounts(store: store, notifier: notifier, clock: clock, settings: AccountSettings(), hasher: passwords)
        wallet = Wallet(store: store, gateway: gateway, clock: clock)
        let hub = offerHub
        bookings = try Bookings(store: store, city: city.city, scheduler: scheduler, offers: { offer in hub.publish(offer) })
        favourites = PassengerFavourites(store: store)
        rideRequests = RideRequests(store: store, city: city.city, clock: clock)
        outbox = Outbox(store: store, clock: clock)
        housekeeping = Housekeeping(store: store, clock: clock)
        routers = RouterPool(network: city.city.network)
        let network = city.city.network
        matchers = WorkspacePool { Matcher(network: network) }
        self.guards = guards
        let seconds: @Sendable () -> Double = { clock.now().timeIntervalSinceReferenceDate }
        limiter = guards.rateLimit.map { RateLimiter($0, now: seconds) }
        accountThrottle = guards.perAccount.map { RateLimiter($0, now: seconds) }
        addressThrottle = guards.perAddress.map { RateLimiter($0, now: seconds) }
        lease = replicaURL.map { url in
            CityLease(store: store, city: city.settings.name, owner: "\(ProcessInfo.processInfo.hostName)-\(getpid())-\(UUID().uuidString.prefix(8))",
                      url: url)
        }
        if let lease { bookings.fence(city: lease.city, token: 0) } else { leaseView.withLock { $0.owning = true } }
    }

    /// The routes, behind the request log, the error middleware and the rate limit:
    /// controllers per resource, their route collections mounted on the `/v1` group, each
    /// under the context of its audience (anyone, any signed-in user, passengers, drivers,
    /// admins) so that a handler is reached only by whom its endpoint allows.
    public func router() -> Hummingbird.Router<WayfareContext> {
        let router = Hummingbird.Router(context: WayfareContext.self)
        router.add(middleware: RequestLogMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware())
        if let limiter { router.add(middleware: RateLimitMiddleware(limiter: limiter, server: self)) }
        let root = router.group().add(middleware: AuthenticationMiddleware(accounts: accounts))
        let operations = OperationsController(server: self), web = WebController(server: self)
        router.addRoutes(operations.probeRoutes)
        root.addRoutes(operations.publicRoutes)
        root.addRoutes(web.pageRoutes)
        root.group(context: AdminContext.self).addRoutes(operations.adminRoutes)

        let v1 = router.group("v1").add(middleware: AuthenticationMiddleware(accounts: accounts))
        let users = v1.group(context: AnyUserContext.self), passengers = v1.group(context: PassengerContext.self)
        let drivers = v1.group(context: DriverContext.self), admins = v1.group(context: AdminContext.self)
        let accounts = AccountsController(server: self), rides = RideRequestsController(server: self)
        v1.addRoutes(EngineController(server: self).routes)
        v1.addRoutes(web.streetRoutes)
        v1.addRoutes(accounts.publicRoutes)
        v1.addRoutes(PaymentsController(server: self).routes)
        users.addRoutes(accounts.userRoutes)
        users.addRoutes(rides.userRoutes)
        admins.addRoutes(accounts.adminRoutes)
        passengers.addRoutes(accounts.passengerRoutes)
        passengers.addRoutes(BookingsController(server: self).routes)
        passengers.addRoutes(rides.riderRoutes)
        drivers.addRoutes(DriversController(server: self).routes)
        drivers.addRoutes(rides.driverRoutes)
        return router
    }

    /// The OpenAPI document, written once from ``Endpoint/all`` (a test checks it is).
    static let openAPIDocument: String = (try? OpenAPIDocument.text()) ?? #"{"error":"the document could not be written"}"#

    /// The application: the routes on `host:port`, with the host's periodic work
    /// (bookings for later falling due, the outbox) as a service that stops with it.
    ///
    /// - Parameters:
    ///   - host: the address to listen on.
    ///   - port: the port (0: any free port, reported to `onServerRunning`).
    ///   - periodicWork: whether the server runs its periodic work every 2 seconds itself;
    ///     a simulation on a virtual clock runs it at its own times instead.
    ///   - onServerRunning: called with the port once the server listens.
    ///   - server: the HTTP server (nil: ``httpServer()``; the command line passes
    ///     HummingbirdTLS's `.tls(httpServer())` when given a certificate and key, so this
    ///     module needs no TLS library).
    public func application(host: String = "127.0.0.1", port: Int = 8080, periodicWork: Bool = true,
                            server: HTTPServerBuilder? = nil,
                            onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(router: router(), server: server ?? httpServer(),
                    // A backlog of 4,096 (the kernel caps it at somaxconn): a burst of
                    // connections waits there to be accepted instead of being dropped.
                    configuration: .init(address: .hostname(host, port: port), serverName: "wayfare", backlog: 4_096,
                                         availableConnectionsDelegate: .maximum(guards.maximumConnections, logger: logger)),
                    services: (periodicWork ? [PeriodicWork(server: self)] : []) + (lease.map { [LeaseKeeper(server: self, lease: $0)] } ?? []),
                    onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// HTTP/1.1 with the guards' idle timeout: a connection that brings no request head for
    /// that long is closed, so idle and slow clients cannot hold the file descriptors.
    public func httpServer() -> HTTPServerBuilder {
        let c = guards.idleTimeout.components
        let nanoseconds = c.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let timeout: TimeAmount = nanoseconds.overflow ? .hours(24) : .nanoseconds(nanoseconds.partialValue + c.attoseconds / 1_000_000_000)
        return .http1(configuration: .init(idleTimeout: timeout))
    }

    /// Ready when the store answers: a load balancer sends traffic only then. The replica's
    /// standing (owner or not, the owner's URL, the lease token) only to an admin.
    func ready(details: Bool) async throws -> Response {
        do {
            _ = try await store.read { c in try c.first("SELECT 1 AS one") }
            guard details else { return JSONResponse.make(Readiness(city: city.settings.name)) }
            let view = leaseView.withLock { $0 }
            return JSONResponse.make(Readiness(city: city.settings.name, owner: view.owning, ownerURL: view.ownerURL, leaseToken: view.token))
        } catch {
            throw APIError(.serviceUnavailable, code: "unavailable", message: "the store is unavailable")
        }
    }

    /// The work a host does every few seconds: allocate bookings for later that fell due,
    /// write the cabs' positions down for a replica that may take over, and send the outbox.
    public func runPeriodicWork() async {
        // Bookings for later are dispatched by the owner of the city's fleet only.
        guard leaseView.withLock({ $0.owning }) else { return }
        do { _ = try await bookings.runDue() } catch { logger.error("runDue failed: \(error)") }
        do { try await bookings.persistPositions() } catch { logger.error("persisting positions failed: \(error)") }
        do { _ = try await outbox.deliver(through: notifier) } catch { logger.error("outbox delivery failed: \(error)") }
        // Refills no answer settled (timed out, 3-D Secure, a process that died mid-charge).
        do {
            let r = try await wallet.reconcile()
            if r != Wallet.Reconciliation() { logger.notice("refills reconciled: \(r.completed) completed, \(r.declined) declined, \(r.waiting) waiting") }
        } catch { logger.error("refill reconciliation failed: \(error)") }
        // Once an hour: ended sessions and reset tokens, old idempotency answers and sent
        // notifications, bookings past their retention.
        let now = bookings.dispatcher.fleet.clock.now()
        let due = lastHousekeeping.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 3_600 }) ?? true else { return false }
            last = now
            return true
        }
        if due {
            do {
                let purged = try await housekeeping.run()
                let bookingsPurged = try await bookings.purgeHistory()
                logger.info("housekeeping: purged \(purged.sessions) sessions, \(purged.resets) reset tokens, \(purged.idempotency) idempotency answers, \(purged.notifications) notifications, \(bookingsPurged) bookings")
            } catch { logger.error("housekeeping failed: \(error)") }
        }
    }
}

/// Runs ``WayfareServer/runPeriodicWork()`` every 2 seconds until the application shuts
/// down gracefully.
struct PeriodicWork: Service {
    let server: WayfareServer

    func run() async throws {
        // Stopping is the normal end: the sleep's cancellation is not a failure of the service
        // (ServiceGroup would report it as one and the process would exit 1).
        do {
            try await cancelWhenGracefulShutdown {
                var beats = 0
                while !Task.isCancelled {
                    await server.runPeriodicWork()
                    beats += 1
                    if beats % 8 == 0 { server.offerHub.heartbeat() }
                    try await Task.sleep(for: .seconds(2))
                }
            }
        } catch is CancellationError {}
    }
}

/// Sends notifications to the log (without their secrets: a reset token is never in a
/// notification's payload, see `Accounts`).
struct LogNotifier: Notifier {
    let logger: Logger
    func send(_ notification: OutgoingNotification) async throws {
        logger.info("notification \(notification.kind.rawValue) to user \(notification.user.map(String.init) ?? "none")")
    }
}

/// Turns every error into the API's JSON error: ``APIError`` as it is, a service's error
/// by ``APIError/from(_:)``, Hummingbird's own (404, 405, 413) with their status, anything
/// else as 500 with nothing of its cause.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = WayfareContext

    func handle(_ request: Request, context: WayfareContext, next: (Request, WayfareContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as WireError {
            return try APIError.invalid(error).response(from: request, context: context)
        } catch let error as ServiceError {
            if case .store = error { context.logger.error("store error: \(error)") }
            return try APIError.from(error).response(from: request, context: context)
        } catch let error as HTTPResponseError {
            let status = error.status
            let code: String
            switch status.code {
            case 404: code = "not_found"
            case 405: code = "method_not_allowed"
            case 413: code = "too_large"
            case 400..<500: code = "invalid"
            default: code = "internal"
            }
            let message = status.code == 413 ? "the body is larger than \(WayfareServer.maximumBodyBytes) bytes" : status.reasonPhrase.lowercased()
            return try APIError(status, code: code, message: message).response(from: request, context: context)
        } catch {
            context.logger.error("unexpected error: \(String(reflecting: error))")
            return try APIError.internal.response(from: request, context: context)
        }
    }
}

/// One log line per request (method, path without the query, status, milliseconds, request
/// id), the request's count and latency in the metrics, and the request id in the
/// `X-Request-Id` header. Never the headers or the body:
/// they carry tokens and passwords.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = WayfareContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: WayfareContext, next: (Request, WayfareContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response = try await next(request, context)
        response.headers[.init("X-Request-Id")!] = context.id
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.logger.info("\(request.method) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms)) ms")
        // By route pattern, not path: ids in paths would make a series per booking.
        // Methods outside the API's few are one series: a client cannot grow the table.
        let method = ["GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"].contains(request.method.rawValue) ? request.method.rawValue : "other"
        metrics.request(route: context.endpointPath ?? "unmatched", method: method, status: Int(response.status.code),
                        duration: elapsed)
        return response
    }
}

/// Health, readiness, the document and the metrics.
struct OperationsController {
    let server: WayfareServer

    /// `/health`: no authentication, no rate limit, nothing read: probes always get through.
    var probeRoutes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        // The same answer every time: written once.
        let health = WireEncoder.bytes(Health(payments: server.paymentsMode, sms: server.testPhones == nil ? "live" : "test"))
        routes.on(.health) { _, _ in JSONResponse.make(bytes: health) }
        return routes
    }

    /// `/ready` (details for an admin) and `/openapi.json`.
    var publicRoutes: RouteCollection<WayfareContext> {
        let routes = RouteCollection(context: WayfareContext.self)
        let server = server
        routes.on(.ready) { _, context in try await server.ready(details: context.isAdmin) }
        routes.on(.openAPI) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: WayfareServer.openAPIDocument)))
        }
        return routes
    }

    /// `/metrics`: for the operations team only (the metrics tell the fleet's size and the traffic).
    var adminRoutes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        let server = server
        routes.on(.metrics) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            let text = server.metrics.exposition(fleet: server.bookings.dispatcher.fleet, outcomes: server.bookings.dispatchOutcomes)
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return routes
    }
}
