import Essentials
import Fleet
import Foundation
import Storage

/// The wallet's settings.
public struct WalletSettings: Sendable, Equatable {
    /// The currency of every amount, an ISO 4217 code.
    public var currency: String
    /// The company's commission on each fare, in percent.
    ///
    /// Why 20: the specifications give no figure; 20 % is the common ride-hailing share.
    public var commissionPercent: Int64
    /// The largest single refill, in minor units (default INR 50,000).
    public var maximumRefill: Int64

    /// Settings from their values; the defaults are India's rupee, 20 % and INR 50,000.
    public init(currency: String = "INR", commissionPercent: Int64 = 20, maximumRefill: Int64 = 5_000_000) {
        self.currency = currency
        self.commissionPercent = commissionPercent
        self.maximumRefill = maximumRefill
    }
}

/// What a refill came to.
public enum RefillResult: Sendable, Equatable, Codable {
    /// The money is in the wallet; the wallet's available balance after it.
    case completed(balance: Int64)
    /// The card was refused; the reason for the passenger. Nothing was taken.
    case declined(reason: String)
    /// The card's issuer wants a 3-D Secure step: show `challenge`, then call
    /// ``Wallet/completeRefill(intent:)``.
    case requiresAction(intent: Int64, challenge: String)
    /// The gateway did not answer in time; the refill completes when it does (its callback,
    /// or ``Wallet/completeRefill(intent:)``). Asking again with the same key is safe.
    case pending(intent: Int64)
}

/// A passenger's wallet balance, in minor units.
public struct WalletBalance: Sendable, Equatable, Codable {
    /// What the passenger can spend: posted money minus holds.
    public var available: Int64
    /// What is held for trips under way.
    public var held: Int64

    /// A balance from its parts.
    public init(available: Int64, held: Int64) {
        self.available = available
        self.held = held
    }
}

/// The company's side of the ledger, in minor units (``Wallet/companyAccounts()``).
public struct CompanyAccounts: Sendable, Equatable, Codable {
    /// Commission earned: the revenue account's posted balance.
    public var revenue: Int64
    /// Estimates held from wallets for trips under way.
    public var escrowHeld: Int64
    /// What the payment gateway owes for approved card refills.
    public var gatewayOwes: Int64
    /// What the company owes its drivers, all together (a driver who collected cash owes
    /// the commission back, which counts against it).
    public var owedToDrivers: Int64
    /// What the company owes its passengers: the sum of their posted wallet balances.
    public var owedToPassengers: Int64

    /// The accounts as given.
    public init(revenue: Int64, escrowHeld: Int64, gatewayOwes: Int64, owedToDrivers: Int64, owedToPassengers: Int64) {
        self.revenue = revenue
        self.escrowHeld = escrowHeld
        self.gatewayOwes = gatewayOwes
        self.owedToDrivers = owedToDrivers
        self.owedToPassengers = owedToPassengers
    }
}

/// How a trip's fare was paid.
public struct TripPayment: Sendable, Equatable, Codable {
    /// `wallet` or `cash`: how the trip was booked to be paid.
    public var method: String
    /// The fare, in minor units.
    public var fare: Int64
    /// The part taken from the wallet.
    public var walletPaid: Int64
    /// The part the passenger pays the driver in cash.
    public var cashPaid: Int64
    /// The company's commission on the whole fare.
    public var commission: Int64

    /// A payment from its parts.
    public init(method: String, fare: Int64, walletPaid: Int64, cashPaid: Int64, commission: Int64) {
        self.method = method
        self.fare = fare
        self.walletPaid = walletPaid
        self.cashPaid = cashPaid
        self.commission = commission
    }
}

/// The start of a trip's payment: the estimate held in the wallet, or cash.
public enum FareHold: Sendable, Equatable, Codable {
    /// The estimate is held in escrow until the trip ends.
    case held(amount: Int64)
    /// The wallet holds too little: the passenger is told to pay cash; the trip is recorded
    /// as cash. What the wallet had.
    case payCash(available: Int64)
}

/// Passengers' wallets, kept as a double-entry ledger in the store.
///
/// Every money call takes an ``IdempotencyKey`` and runs in one transaction with the stored
/// answer, so a retried call (a phone on a bad network, a client that crashed) has the
/// effect of once and gets the first answer back. No balance goes below zero: the code
/// checks it, and the schema refuses it.
///
/// Refills go through a ``PaymentGateway`` in three steps so that no transaction is open
/// while the gateway is called: record the intent and commit; call the gateway; record the
/// outcome and the ledger transfer in a second transaction. A crash between the steps
/// leaves an intent that the same key (or the gateway's callback) completes.
///
/// `Sendable`: every stored property is immutable and `Sendable`.
public struct Wallet: Sendable {
    let store: any SQLStore
    let gateway: any PaymentGateway
    let clock: any FleetClock
    /// The settings.
    public let settings: WalletSettings

    /// A wallet service on `store` (migrated to ``ServiceSchema``).
    public init(store: any SQLStore, gateway: any PaymentGateway, clock: any FleetClock = SystemClock(),
                settings: WalletSettings = WalletSettings()) {
        self.store = store
        self.gateway = gateway
        self.clock = clock
        self.settings = settings
    }

    private var now: Int64 { milliseconds(clock.now()) }

    /// The wallet balance of `passenger`.
    public func balance(of passenger: Int64) async throws(ServiceError) -> WalletBalance {
        try await serviceCall {
            try await store.read { c in try Self.balance(c, passenger) }
        }
    }

    static func balance(_ c: any SQLConnection, _ passenger: Int64) throws -> WalletBalance {
        guard let b = try Ledger.balances(c, Ledger.wallet(passenger)) else { return WalletBalance(available: 0, held: 0) }
        return WalletBalance(available: b.available, held: b.debitsPending)
    }

    /// The company's side of the ledger: what it earned, holds, is owed and owes. For the
    /// back office (the admin pages, the simulator's summary); a read on one snapshot.
    public func companyAccounts() async throws(ServiceError) -> CompanyAccounts {
        try await serviceCall {
            try await store.read { c in
                let ledger = LedgerStatements(c)
                let revenue = try ledger.sums(ofAccount: Ledger.company.revenue)
                let escrow = try ledger.sums(ofAccount: Ledger.company.escrow)
                let gateway = try ledger.sums(ofAccount: Ledger.company.gateway)
                let drivers = try ledger.postedCredit(ofAccountsStartingWith: "driver:")
                let wallets = try ledger.postedCredit(ofAccountsStartingWith: "wallet:")
                return CompanyAccounts(revenue: revenue.creditsPosted - revenue.debitsPosted, escrowHeld: escrow.creditsPending,
                                       gatewayOwes: gateway.debitsPosted - gateway.creditsPosted, owedToDrivers: drivers,
                                       owedToPassengers: wallets)
            }
        }
    }

    // MARK: Refills

    /// Adds `amount` minor units to the wallet of `passenger` from the card behind
    /// `paymentToken`.
    ///
    /// - Throws: ``ServiceError/invalid(field:reason:)`` for an amount outside 1…the maximum
    ///   or an empty token; ``ServiceError/notFound(_:)`` for an unknown passenger;
    ///   ``ServiceError/idempotencyKeyReused(_:)`` when `key` came with another request.
    public func refill(passenger: Int64, amount: Int64, paymentToken: String,
                       key: IdempotencyKey) async throws(ServiceError) -> RefillResult {
        guard amount > 0, amount <= settings.maximumRefill else {
            throw .invalid(field: "amount", reason: "must be between 1 and \(settings.maximumRefill) minor units")
        }
        try Validate.token(paymentToken, field: "paymentToken")
        let request = "\(passenger)|\(amount)|\(Idempotency.hash(paymentToken))"
        let now = self.now
        let step = try await serviceCall { () async throws -> RefillStep in
            try await store.write { c -> RefillStep in
                if let answer = try Idempotency.stored(RefillResult.self, c, key: key, operation: "refill", request: request) {
                    return .done(answer)
                }
                let wallet = WalletStatements(c)
                if let existing = try wallet.intent(key: key.rawValue) {
                    guard existing.requestHash == Self.refillHash(request) else { throw ServiceError.idempotencyKeyReused(key.rawValue) }
                    return .charge(intent: existing.id)
                }
                try Users.require(c, passenger, role: .passenger)
                return .charge(intent: try wallet.insertIntent(key: key.rawValue, requestHash: Self.refillHash(request),
                                                               passenger: passenger, amount: amount, at: now))
            }
        }
        switch step {
        case .done(let answer): return answer
        case .charge(let intent):
            let outcome = await gateway.charge(intent: Self.gatewayIntent(intent), amount: amount,
                                               currency: settings.currency, paymentToken: paymentToken)
            return try await record(outcome, intent: intent)
        }
    }

    private enum RefillStep: Sendable { case done(RefillResult), charge(intent: Int64) }

    /// Asks the gateway what became of a refill left pending or waiting for 3-D Secure, and
    /// records it.
    public func completeRefill(intent: Int64) async throws(ServiceError) -> RefillResult {
        let outcome = await gateway.status(of: Self.gatewayIntent(intent))
        return try await record(outcome, intent: intent)
    }

    /// Records an outcome the gateway sent on its own (a webhook). A callback that comes
    /// twice, or after the refill was already recorded, changes nothing.
    public func gatewayCallback(intent: Int64, outcome: GatewayOutcome) async throws(ServiceError) -> RefillResult {
        try await record(outcome, intent: intent)
    }

    /// The gateway's name for an intent.
    static func gatewayIntent(_ id: Int64) -> String { "wayfare-refill-\(id)" }

    /// The intent of a gateway's name (`wayfare-refill-ID`), or nil.
    public static func intent(fromGatewayName name: String) -> Int64? {
        guard name.hasPrefix("wayfare-refill-"), name.utf8.count <= 40 else { return nil }
        return Int64(name.dropFirst("wayfare-refill-".count)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Refills left unsettled, by their outcome after ``reconcile(olderThan:abandonAfter:)``.
    public struct Reconciliation: Sendable, Equatable {
        /// Settled as approved, money in the wallet.
        public var completed = 0
        /// Settled as declined (the gateway never charged, or said no).
        public var declined = 0
        /// Still waiting (a 3-D Secure step the passenger has not finished).
        public var waiting = 0
        /// Nothing settled.
        public init() {}
    }

    /// Settles refills that no answer settled: those that timed out (`unknown`), wait for a
    /// 3-D Secure step, or were created by a process that died before it charged, once they
    /// are older than `age` seconds. Each is asked of the gateway (``PaymentGateway/status(of:)``)
    /// and recorded as for a first answer; a refill still waiting for its 3-D Secure step after
    /// `abandon` seconds is declined (the gateway's authorisation lapses about then). A host
    /// runs it every minute.
    @discardableResult
    public func reconcile(olderThan age: TimeInterval = 60, abandonAfter abandon: TimeInterval = 86_400) async throws(ServiceError) -> Reconciliation {
        let now = self.now
        let cutoff = now - Int64(age * 1000), lapsed = now - Int64(abandon * 1000)
        let open = try await serviceCall {
            try await store.read { c in try WalletStatements(c).openIntents(before: cutoff) }
        }
        var result = Reconciliation()
        for refill in open {
            let intent = refill.id
            var outcome = await gateway.status(of: Self.gatewayIntent(intent))
            if case .requiresAction = outcome, refill.status == "requires_action", refill.createdMs < lapsed {
                outcome = .declined(reason: "the 3-D Secure step was not completed")
            }
            switch try await record(outcome, intent: intent) {
            case .completed: result.completed += 1
            case .declined: result.declined += 1
            case .requiresAction, .pending: result.waiting += 1
            }
        }
        return result
    }

    private func record(_ outcome: GatewayOutcome, intent: Int64) async throws(ServiceError) -> RefillResult {
        let now = self.now
        return try await serviceCall {
            try await store.write(locking: Ledger.turns(for: "refill:\(intent)")) { c -> RefillResult in
                let wallet = WalletStatements(c)
                guard let refill = try wallet.intent(intent) else { throw ServiceError.notFound("refill \(intent)") }
                let key = IdempotencyKey(unchecked: refill.idempotencyKey)
                let passenger = refill.userID, amount = refill.amount
                // A final answer already recorded wins: callbacks may repeat or cross.
                if let stored = try Idempotency.stored(RefillResult.self, c, key: key) { return stored }
                let requestHash = refill.requestHash
                func finish(_ answer: RefillResult, status: String, detail: String?) throws -> RefillResult {
                    try wallet.setIntent(intent, status: status, detail: detail, at: now)
                    try Idempotency.store(answer, c, key: key, operation: "refill", requestHash: requestHash, now: now)
                    return answer
                }
                switch outcome {
                case .approved(let reference):
                    try Ledger.open(c, Ledger.wallet(passenger), normal: .credit, noOverdraft: true)
                    try Ledger.transfer(c, key: "refill:\(intent)", from: Ledger.gateway(for: "refill:\(intent)"), to: Ledger.wallet(passenger),
                                        amount: amount, reference: "refill:\(intent)", now: now)
                    try Outbox.enqueue(c, user: passenger, kind: .walletRefilled,
                                       payload: ["intent": "\(intent)", "amount": "\(amount)"], now: now)
                    return try finish(.completed(balance: try Self.balance(c, passenger).available),
                                      status: "succeeded", detail: reference)
                case .declined(let reason):
                    return try finish(.declined(reason: reason), status: "declined", detail: reason)
                case .insufficientFunds:
                    return try finish(.declined(reason: "insufficient funds on the card"), status: "declined",
                                      detail: "insufficient funds")
                case .requiresAction(let challenge):
                    try wallet.setIntent(intent, status: "requires_action", detail: challenge, at: now)
                    return .requiresAction(intent: intent, challenge: challenge)
                case .timedOut:
                    try wallet.setIntent(intent, status: "unknown", at: now)
                    return .pending(intent: intent)
                }
            }
        }
    }

    /// The request hash of a refill, as ``Idempotency`` computes it for the operation.
    private static func refillHash(_ request: String) -> String { Idempotency.hash("refill\n" + request) }

    // MARK: Paying for travel

    /// Holds the estimated fare of trip `reference` in escrow, or records the trip as cash
    /// when the wallet holds too little.
    public func holdFare(reference: String, passenger: Int64, estimate: Int64,
                         key: IdempotencyKey) async throws(ServiceError) -> FareHold {
        try Validate.reference(reference)
        guard estimate > 0, estimate <= FareLimits.maximumFare else {
            throw .invalid(field: "estimate", reason: "must be between 1 and \(FareLimits.maximumFare) minor units")
        }
        let now = self.now
        return try await serviceCall {
            try await store.write(locking: Ledger.turns(for: reference)) { c in
                try Idempotency.once(c, key: key, operation: "hold", request: "\(reference)|\(passenger)|\(estimate)", now: now) {
                    try Users.require(c, passenger, role: .passenger)
                    return try Self.holdFare(c, reference: reference, passenger: passenger, estimate: estimate, now: now)
                }
            }
        }
    }

    /// The hold inside the caller's transaction (bookings call it with their own), for a
    /// passenger the caller has checked is one (bookings lock the passenger's row first).
    static func holdFare(_ c: any SQLConnection, reference: String, passenger: Int64, estimate: Int64,
                         now: Int64) throws -> FareHold {
        let wallet = WalletStatements(c)
        if try wallet.hasPayment(reference: reference) { throw ServiceError.conflict("trip \(reference) already has a payment") }
        let locked = try Ledger.lock(c, [Ledger.wallet(passenger), Ledger.escrow(for: reference)],
                                     opening: [(Ledger.wallet(passenger), .credit, true)])
        let available = locked[Ledger.wallet(passenger)]?.available ?? 0
        if available < estimate {
            try insertCashPayment(c, reference: reference, passenger: passenger, now: now)
            return .payCash(available: available)
        }
        let pending = try Ledger.hold(c, key: "hold:\(reference)", from: Ledger.wallet(passenger), to: Ledger.escrow(for: reference),
                                      amount: estimate, reference: reference, now: now)
        try wallet.insertPayment(reference: reference, passenger: passenger, method: "wallet", held: estimate, pendingID: pending, at: now)
        return .held(amount: estimate)
    }

    /// Records trip `reference` as paid in cash (the passenger chose it), in the caller's
    /// transaction, for a passenger the caller has checked; settlement then books the
    /// commission the driver owes.
    static func recordCash(_ c: any SQLConnection, reference: String, passenger: Int64, now: Int64) throws {
        if try WalletStatements(c).hasPayment(reference: reference) { throw ServiceError.conflict("trip \(reference) already has a payment") }
        try insertCashPayment(c, reference: reference, passenger: passenger, now: now)
    }

    /// The trip-payment row of a cash trip: nothing held, settled later.
    private static func insertCashPayment(_ c: any SQLConnection, reference: String, passenger: Int64, now: Int64) throws {
        try WalletStatements(c).insertPayment(reference: reference, passenger: passenger, method: "cash", held: 0, pendingID: nil, at: now)
    }

    /// Settles trip `reference` at its final fare: posts what the wallet pays (the hold, and
    /// more when the fare came out higher and the wallet has it; the rest in cash), releases
    /// the rest of the hold, and splits the fare between the company's commission and
    /// `driver`'s payable.
    ///
    /// The commission is ``WalletSettings/commissionPercent`` of the fare, rounded half up to
    /// the minor unit.
    public func settleFare(reference: String, fare: Int64, driver: Int64,
                           key: IdempotencyKey) async throws(ServiceError) -> TripPayment {
        try Validate.reference(reference)
        guard fare >= 0, fare <= FareLimits.maximumFare else {
            throw .invalid(field: "fare", reason: "must be between 0 and \(FareLimits.maximumFare) minor units")
        }
        let now = self.now, percent = settings.commissionPercent
        return try await serviceCall {
            try await store.write(locking: Ledger.turns(for: reference)) { c in
                try Idempotency.once(c, key: key, operation: "settle", request: "\(reference)|\(fare)|\(driver)", now: now) {
                    try Users.require(c, driver, role: .driver)
                    return try Self.settleFare(c, reference: reference, fare: fare, driver: driver,
                                               commissionPercent: percent, now: now)
                }
            }
        }
    }

    /// The settlement inside the caller's transaction, for a driver the caller has checked
    /// is one (a booking's driver was one when the cab was allocated).
    static func settleFare(_ c: any SQLConnection, reference: String, fare: Int64, driver: Int64,
                           commissionPercent: Int64, now: Int64) throws -> TripPayment {
        let wallet = WalletStatements(c)
        guard let payment = try wallet.payment(reference: reference, locked: true) else { throw ServiceError.notFound("trip payment \(reference)") }
        guard payment.status == "held" else { throw ServiceError.conflict("trip \(reference) is already \(payment.status)") }
        let passenger = payment.passengerID, method = payment.method
        // Every account the settlement may touch, locked at once in id order.
        _ = try Ledger.lock(c, [Ledger.wallet(passenger), Ledger.escrow(for: reference), Ledger.revenue(for: reference),
                                Ledger.driver(driver)],
                            opening: [(Ledger.driver(driver), .credit, false)])
        var walletPaid: Int64 = 0
        // The escrow the held money sits in (a hold of an earlier version sits in the
        // unsharded one): everything this trip pays goes in and out of it.
        var escrow = Ledger.escrow(for: reference)
        // The settlement's transfers, written together at the end (two statements).
        var batch = Ledger.Postings()
        if method == "wallet", let pendingID = payment.pendingID {
            let held = payment.held
            walletPaid = min(fare, held)
            escrow = try Ledger.resolve(c, pendingID: pendingID, post: walletPaid, key: "post:\(reference)",
                                        reference: reference, into: &batch)
            let extra = fare - walletPaid
            if extra > 0 {
                // The wallet's balance once the hold is released (rare: the fare came out
                // above the estimate).
                try Ledger.post(c, batch, now: now)
                batch = Ledger.Postings()
                if try balance(c, passenger).available >= extra {
                    batch.transfer(key: "extra:\(reference)", from: Ledger.wallet(passenger), to: escrow, amount: extra, reference: reference)
                    walletPaid += extra
                }
            }
        }
        let cashPaid = fare - walletPaid
        let commission = (fare * commissionPercent + 50) / 100
        // The escrow pays out what the wallet paid: the commission first, the driver the rest.
        let fromEscrowToRevenue = min(commission, walletPaid)
        payOut(walletPaid, from: escrow, commission: fromEscrowToRevenue, driver: driver, keys: ("commission", "payout"),
               reference: reference, into: &batch)
        // The driver collected the cash part, commission included: the driver owes it.
        if commission - fromEscrowToRevenue > 0 {
            batch.transfer(key: "cash-commission:\(reference)", from: Ledger.driver(driver), to: Ledger.revenue(for: reference),
                           amount: commission - fromEscrowToRevenue, reference: reference)
        }
        try Ledger.post(c, batch, now: now)
        try wallet.settle(reference: reference, driver: driver, fare: fare, walletPaid: walletPaid, cashPaid: cashPaid,
                          commission: commission, at: now)
        try Outbox.enqueue(c, user: passenger, kind: .invoice,
                           payload: ["trip": reference, "fare": "\(fare)", "wallet": "\(walletPaid)", "cash": "\(cashPaid)"],
                           now: now)
        return TripPayment(method: method, fare: fare, walletPaid: walletPaid, cashPaid: cashPaid, commission: commission)
    }

    /// Releases the hold of trip `reference` (the booking was cancelled or not served).
    public func releaseFare(reference: String, key: IdempotencyKey) async throws(ServiceError) {
        try Validate.reference(reference)
        let now = self.now
        let _: Bool = try await serviceCall {
            try await store.write(locking: Ledger.turns(for: reference)) { c in
                try Idempotency.once(c, key: key, operation: "release", request: reference, now: now) {
                    try Self.releaseFare(c, reference: reference, now: now)
                    return true
                }
            }
        }
    }

    static func releaseFare(_ c: any SQLConnection, reference: String, now: Int64) throws {
        let wallet = WalletStatements(c)
        guard let payment = try wallet.payment(reference: reference, locked: true) else { throw ServiceError.notFound("trip payment \(reference)") }
        guard payment.status == "held" else { throw ServiceError.conflict("trip \(reference) is already \(payment.status)") }
        if let pendingID = payment.pendingID {
            try Ledger.lock(c, [Ledger.wallet(payment.passengerID), Ledger.escrow(for: reference)])
            var batch = Ledger.Postings()
            try Ledger.resolve(c, pendingID: pendingID, post: 0, key: "void:\(reference)", reference: reference, into: &batch)
            try Ledger.post(c, batch, now: now)
        }
        try wallet.release(reference: reference, at: now)
    }
}

extension Wallet {
    /// Pays `amount` out of the escrow account `escrow`: `commission` of it to the revenue
    /// shard of `reference`, the rest to the driver, each transfer idempotent by its key
    /// (`keys.commission:reference`, `keys.payout:reference`).
    static func payOut(_ amount: Int64, from escrow: String, commission: Int64, driver: Int64,
                       keys: (commission: String, payout: String), reference: String, into batch: inout Ledger.Postings) {
        if commission > 0 {
            batch.transfer(key: "\(keys.commission):\(reference)", from: escrow, to: Ledger.revenue(for: reference),
                           amount: commission, reference: reference)
        }
        if amount - commission > 0 {
            batch.transfer(key: "\(keys.payout):\(reference)", from: escrow, to: Ledger.driver(driver),
                           amount: amount - commission, reference: reference)
        }
    }

    /// Pays `amount` more of settled trip `reference` from the passenger's wallet, after the
    /// passenger confirmed it: wallet to escrow, then the commission on it to revenue and the
    /// rest to the driver. In the caller's transaction.
    static func payConfirmed(_ c: any SQLConnection, reference: String, passenger: Int64, amount: Int64, driver: Int64,
                             commissionPercent: Int64, now: Int64) throws {
        guard amount > 0, amount <= FareLimits.maximumFare else { throw ServiceError.invalid(field: "amount", reason: "out of range") }
        try Ledger.lock(c, [Ledger.wallet(passenger), Ledger.escrow(for: reference), Ledger.revenue(for: reference),
                            Ledger.driver(driver)])
        guard try balance(c, passenger).available >= amount else {
            throw ServiceError.conflict("the wallet holds less than \(amount); top it up first")
        }
        let escrow = Ledger.escrow(for: reference)
        var batch = Ledger.Postings()
        batch.transfer(key: "confirmed:\(reference)", from: Ledger.wallet(passenger), to: escrow, amount: amount, reference: reference)
        let commission = (amount * commissionPercent + 50) / 100
        payOut(amount, from: escrow, commission: commission, driver: driver, keys: ("confirmed-commission", "confirmed-payout"),
               reference: reference, into: &batch)
        try Ledger.post(c, batch, now: now)
        try WalletStatements(c).addConfirmed(reference: reference, amount: amount, commission: commission, at: now)
    }
}

/// Bounds on amounts, so that no sum of them can overflow 64 bits.
enum FareLimits {
    /// One fare or hold at most: 10^10 minor units (INR 100 million).
    static let maximumFare: Int64 = 10_000_000_000
}
