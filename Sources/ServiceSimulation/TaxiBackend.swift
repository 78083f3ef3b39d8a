import CityModel
import Essentials
import Fleet
import Foundation
import Geodesy
import Services
import Storage
import TaxiDispatch

/// What the simulated passengers and drivers of a ``ServiceSimulation`` call: the services
/// of one city, in process (``InProcessBackend``) or over the network.
///
/// Each call is one request a passenger's or driver's app makes; errors are the services'
/// `ServiceError`s, so a rule's refusal (a conflict, a lapsed offer) reads the same
/// whatever carries it. The backend's clock is virtual: ``advance(to:)`` moves it, and the
/// dispatcher's timers (offer time-outs, search rounds) fire as it passes them.
public protocol TaxiBackend: Sendable {
    /// The backend's store engine, for the summary (`sqlite` or `postgresql`).
    var storeName: String { get }
    /// The fare currency.
    var currency: String { get }
    /// Moves the backend's clock to `date`, firing the timers that fall due on the way.
    func advance(to date: Date) async throws(ServiceError)
    /// Registers passenger number `n` and returns the account's id.
    func registerPassenger(_ n: Int) async throws(ServiceError) -> Int64
    /// Tops up a passenger's wallet from a card that is approved.
    func refill(passenger: Int64, amount: Int64) async throws(ServiceError)
    /// Creates driver number `n` and puts them on shift in `cab`; returns the driver's id.
    func startShift(driver n: Int, cab: CabProfile) async throws(ServiceError) -> Int64
    /// A driver's position report.
    func report(driver: Int64, position: Coordinate, at time: Date) async throws(ServiceError)
    /// A driver becomes available, or steps away.
    func setAvailable(driver: Int64, _ available: Bool) async throws(ServiceError)
    /// Books a cab now.
    func bookNow(_ request: BookingRequest) async throws(ServiceError) -> Booking
    /// Books a cab for `pickupTime`.
    func bookLater(_ request: BookingRequest, at pickupTime: Date) async throws(ServiceError) -> Booking
    /// The passenger cancels a booking.
    func cancel(_ booking: Int, passenger: Int64) async throws(ServiceError)
    /// The offers made to drivers since the last call, oldest first.
    func takeOffers() async -> [DriverOffer]
    /// A driver's answer to an offer.
    func answer(_ offer: DriverOffer, accept: Bool) async throws(ServiceError)
    /// The driver is at the pickup.
    func arrived(_ booking: Int, driver: Int64) async throws(ServiceError)
    /// The passenger is on board.
    func started(_ booking: Int, driver: Int64) async throws(ServiceError)
    /// The trip ended after `metres`; the fare is settled.
    func complete(_ booking: Int, driver: Int64, metres: Int64) async throws(ServiceError) -> TripInvoice
    /// A passenger's booking as stored.
    func booking(_ number: Int, passenger: Int64) async throws(ServiceError) -> Booking
    /// Allocates the bookings for later that fell due.
    func runDue() async throws(ServiceError)
    /// The company's side of the ledger.
    func companyAccounts() async throws(ServiceError) -> CompanyAccounts
    /// Whether the ledger's invariants hold, and how many transfers it holds.
    func auditLedger() async throws(ServiceError) -> (sound: Bool, transfers: Int)
}

/// The services of one city in this process, on a store and a virtual clock: the backend
/// of `wayfare simulate --services`.
///
/// Accounts are made with a fast password hash: the simulation measures bookings, not
/// scrypt, and its accounts are thrown away.
///
/// `Sendable`: every stored property is `Sendable` (the services are, and the offers
/// received sit behind a lock).
public final class InProcessBackend: TaxiBackend {
    /// The store's engine name.
    public let storeName: String
    /// The fare currency.
    public var currency: String { bookings.city.fares.currency }
    let store: any SQLStore
    let scheduler: VirtualScheduler
    let accounts: Accounts
    let wallet: Wallet
    let bookings: Bookings
    let inbox = Locked<[DriverOffer]>([])
    /// The simulated passengers' phones: where the verification codes arrive.
    let phones = PhoneInbox()
    let adminSession: Locked<String?> = Locked(nil)

    /// The services of `city` on `store` (migrated to `ServiceSchema`), on a virtual clock
    /// that starts at `start`.
    public init(city: City, store: any SQLStore, start: Date, dispatch: Dispatcher.Configuration = .init(),
                policy: any DispatchPolicy = FastestArrivalPolicy()) throws(ServiceError) {
        self.store = store
        storeName = store.dialect == .sqlite ? "sqlite" : "postgresql"
        let scheduler = VirtualScheduler(start: start)
        self.scheduler = scheduler
        accounts = Accounts(store: store, notifier: phones, clock: scheduler, settings: AccountSettings(),
                            hasher: .fastForTests)
        wallet = Wallet(store: store, gateway: TestModeGateway(), clock: scheduler)
        let inbox = self.inbox
        bookings = try Bookings(store: store, city: city, dispatch: dispatch, policy: policy, scheduler: scheduler,
                                offers: { offer in inbox.withLock { $0.append(offer) } })
    }

    /// Advances the shared virtual clock, off the cooperative pool.
    public func advance(to date: Date) async throws(ServiceError) {
        // Off the cooperative pool: timers that fire write dispatch outcomes to the store.
        let scheduler = self.scheduler
        try await serviceCall { try await offThePool { scheduler.advance(to: date) } }
    }

    /// Registers through `Accounts`.
    public func registerPassenger(_ n: Int) async throws(ServiceError) -> Int64 {
        let receipt = try await accounts.register(Self.registration("Passenger \(n)", mobile: 8_000_000_000 + n,
                                                                   email: "passenger\(n)@simulation.example"))
        // The simulated passenger reads the code their phone received.
        guard let code = phones.code(for: receipt.mobile) else { throw .conflict("no code reached \(receipt.mobile)") }
        return try await accounts.verify(mobile: receipt.mobile, code: code).id
    }

    /// Refills through `Wallet` with the test-mode gateway's approved card.
    public func refill(passenger: Int64, amount: Int64) async throws(ServiceError) {
        let result = try await wallet.refill(passenger: passenger, amount: amount, paymentToken: "tok_visa", key: .random())
        guard case .completed = result else { throw .conflict("the test card was not charged: \(result)") }
    }

    /// The simulation's admin creates the driver, who starts a shift through `Bookings`.
    public func startShift(driver n: Int, cab: CabProfile) async throws(ServiceError) -> Int64 {
        let session = try await admin()
        let driver = try await accounts.createDriver(Self.registration("Driver \(n)", mobile: 7_000_000_000 + n,
                                                                       email: "driver\(n)@simulation.example"), adminSession: session).id
        try await bookings.startShift(driver: driver, cab: cab)
        return driver
    }

    /// Passes the report to `Bookings`.
    public func report(driver: Int64, position: Coordinate, at time: Date) async throws(ServiceError) {
        try bookings.report(driver: driver, position: position, at: time)
    }

    /// Passes the status to `Bookings`.
    public func setAvailable(driver: Int64, _ available: Bool) async throws(ServiceError) {
        try bookings.setAvailable(driver: driver, available)
    }

    /// Books through `Bookings` with a fresh idempotency key.
    public func bookNow(_ request: BookingRequest) async throws(ServiceError) -> Booking {
        try await bookings.bookNow(request, key: .random())
    }

    /// Books through `Bookings` with a fresh idempotency key.
    public func bookLater(_ request: BookingRequest, at pickupTime: Date) async throws(ServiceError) -> Booking {
        try await bookings.bookLater(request, at: pickupTime, key: .random())
    }

    /// Cancels through `Bookings`.
    public func cancel(_ booking: Int, passenger: Int64) async throws(ServiceError) {
        _ = try await bookings.cancel(booking, for: passenger, key: .random())
    }

    /// The offers `Bookings` announced since the last call.
    public func takeOffers() async -> [DriverOffer] {
        inbox.withLock { offers in defer { offers = [] }; return offers }
    }

    /// Answers through `Bookings`.
    public func answer(_ offer: DriverOffer, accept: Bool) async throws(ServiceError) {
        try await bookings.answer(offer: offer.id, driver: offer.driver, accept: accept)
    }

    /// Through `Bookings`.
    public func arrived(_ booking: Int, driver: Int64) async throws(ServiceError) {
        try await bookings.arrived(booking, driver: driver)
    }

    /// Through `Bookings`.
    public func started(_ booking: Int, driver: Int64) async throws(ServiceError) {
        try await bookings.started(booking, driver: driver)
    }

    /// Completes through `Bookings`; the taximeter reports `metres`.
    public func complete(_ booking: Int, driver: Int64, metres: Int64) async throws(ServiceError) -> TripInvoice {
        try await bookings.complete(booking, driver: driver, trip: TripReport(metres: metres), key: .random())
    }

    /// Reads through `Bookings`.
    public func booking(_ number: Int, passenger: Int64) async throws(ServiceError) -> Booking {
        try await bookings.booking(number, for: passenger)
    }

    /// Through `Bookings`.
    public func runDue() async throws(ServiceError) {
        _ = try await bookings.runDue()
    }

    /// Through `Wallet`.
    public func companyAccounts() async throws(ServiceError) -> CompanyAccounts {
        try await wallet.companyAccounts()
    }

    /// Runs `LedgerAudit` on the store.
    public func auditLedger() async throws(ServiceError) -> (sound: Bool, transfers: Int) {
        let store = self.store
        let audit = try await serviceCall { try await offThePool { try LedgerAudit.run(on: store) } }
        return (audit.isSound, audit.transfers)
    }

    /// The session of the simulation's admin, who creates the drivers; made on first use.
    func admin() async throws(ServiceError) -> String {
        if let session = adminSession.withLock({ $0 }) { return session }
        let password = "Simulation!admin-2026"
        _ = try await accounts.createAdmin(Self.registration("Admin", mobile: 9_000_000_000, email: "admin@simulation.example",
                                                             password: password), adminSession: nil)
        let session = try await accounts.logIn(mobile: "9000000000", password: password).token
        adminSession.withLock { $0 = session }
        return session
    }

    static func registration(_ name: String, mobile: Int, email: String, password: String = "simulated rider 2026") -> Registration {
        Registration(name: name, mobile: String(mobile), email: email, password: password, confirmation: password)
    }
}

