import Storage

/// A double-entry ledger in the manner of TigerBeetle: accounts keep four running sums,
/// transfers move an amount from one account's debits to another's credits, and a transfer
/// may be two-phase (held as pending, then posted in part or voided).
///
/// Every function runs inside the caller's transaction and changes the transfer rows and the
/// account sums together, so they always agree; ``LedgerAudit`` checks that they do from
/// the transfers alone.
///
/// Account ids: `wallet:<user>` (what the company owes a passenger, credit-normal, never
/// below zero), `driver:<user>` (what it owes a driver, credit-normal, may go below zero
/// when the driver collected cash that included the company's commission), and the company's
/// accounts, each in ``shards`` shards: `escrow:<k>` (fares held between pickup and payout,
/// credit-normal, never below zero), `revenue:<k>` (the company's commission, credit-normal)
/// and `gateway:<k>` (money the payment gateway owes the company for approved card payments,
/// debit-normal). Databases of earlier versions also hold the unsharded `escrow`, `revenue`
/// and `gateway`; the back office sums each with its shards.
enum Ledger {
    enum Normal: String, Decodable { case debit, credit }

    /// How many shards each of the company's accounts is split into.
    ///
    /// Why: every trip credits the escrow and the revenue, and every refill debits the
    /// gateway. As single rows they would make every money-moving transaction wait for (or,
    /// serializable, abort) every other, in every city on the server: TigerBeetle's notes
    /// on hot accounts, and the measured 59 trips/s with 8 workers against 67 with 1. Split
    /// in sixteen, two payments collide only when their owners fall in the same shard.
    static let shards = 16

    /// The shard of a payment's reference: FNV-1a over its owner, the first two of its
    /// colon-separated fields (`booking:42` of `booking:42:1790000000000:2`, `ride:7`,
    /// `refill:9`), so that every revision of one booking pays through the same shard.
    static func shard(of reference: String) -> Int {
        let owner = reference.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).joined(separator: ":")
        // The store's one FNV-1a (what names turns), read unsigned.
        return Int(UInt64(bitPattern: turnKey(owner)) % UInt64(shards))
    }

    /// What a transaction that moves the money of `reference` passes as `locking:` to the
    /// store: the turn of its shard. Transactions of one shard update the same company rows,
    /// so they take turns rather than abort each other; those of other shards run at once.
    static func turns(for reference: String) -> [String] { ["ledger:\(shard(of: reference))"] }

    /// The escrow shard of `reference`: fares held between booking and payout.
    static func escrow(for reference: String) -> String { "escrow:\(shard(of: reference))" }
    /// The revenue shard of `reference`: the company's commission.
    static func revenue(for reference: String) -> String { "revenue:\(shard(of: reference))" }
    /// The gateway shard of `reference`: what the payment gateway owes for approved cards.
    static func gateway(for reference: String) -> String { "gateway:\(shard(of: reference))" }

    /// The company's accounts, each the unsharded account of earlier versions and its
    /// shards (`escrow`, `escrow:0` … `escrow:15`): what the back office sums.
    static let company = (escrow: "escrow", revenue: "revenue", gateway: "gateway")

    /// Locks the rows of every account a transaction will move money through, in one
    /// statement, in id order, before it reads a balance: what a transaction under
    /// `WriteIsolation.rowLocks` does first. Locked one transfer at a time, two transactions
    /// crossing the same accounts in opposite orders could each hold what the other waits for.
    static func lock(_ c: any SQLConnection, _ accounts: [String]) throws {
        try LedgerStatements(c).lock(accounts)
    }

    /// Locks `accounts` as ``lock(_:_:)`` does and returns their balances by id, in one
    /// statement when they exist. An account named in `opening` that does not exist yet
    /// (one opened before its owner's account creation opened it) is created, and the rows
    /// are locked again. Why: the balances decide the transfers, and reading them with the
    /// lock saves a statement per account read; opening only what is missing saves one more.
    static func lock(_ c: any SQLConnection, _ accounts: [String],
                     opening: [(id: String, normal: Normal, noOverdraft: Bool)]) throws -> [String: Balances] {
        let ledger = LedgerStatements(c)
        var rows = try ledger.lockedAccounts(accounts)
        let missing = opening.filter { account in !rows.contains { $0.id == account.id } }
        if !missing.isEmpty {
            for account in missing { try ledger.open(account.id, normal: account.normal, noOverdraft: account.noOverdraft) }
            rows = try ledger.lockedAccounts(accounts)
        }
        return Dictionary(rows.map { ($0.id, Balances($0)) }, uniquingKeysWith: { first, _ in first })
    }

    static func wallet(_ user: Int64) -> String { "wallet:\(user)" }
    static func driver(_ user: Int64) -> String { "driver:\(user)" }

    /// Creates an account unless it exists.
    static func open(_ c: any SQLConnection, _ id: String, normal: Normal, noOverdraft: Bool) throws {
        try LedgerStatements(c).open(id, normal: normal, noOverdraft: noOverdraft)
    }

    struct Balances {
        var normal: Normal
        var noOverdraft: Bool
        var debitsPosted: Int64
        var creditsPosted: Int64
        var debitsPending: Int64
        var creditsPending: Int64

        /// What can still be debited (credit-normal) or credited (debit-normal) without
        /// going below zero, pending holds counted.
        var available: Int64 {
            switch normal {
            case .credit: return creditsPosted - debitsPosted - debitsPending
            case .debit: return debitsPosted - creditsPosted - creditsPending
            }
        }

        /// An account's row as the balances it holds.
        init(_ row: LedgerStatements.AccountRecord) {
            normal = row.normal
            noOverdraft = row.noOverdraft
            debitsPosted = row.debitsPosted
            creditsPosted = row.creditsPosted
            debitsPending = row.debitsPending
            creditsPending = row.creditsPending
        }

        /// The posted balance on the account's normal side.
        var posted: Int64 {
            normal == .credit ? creditsPosted - debitsPosted : debitsPosted - creditsPosted
        }
    }

    static func balances(_ c: any SQLConnection, _ id: String) throws -> Balances? {
        try LedgerStatements(c).account(id).map(Balances.init)
    }

    /// A transfer posted at once. Returns its id, or the existing id when `key` was used.
    @discardableResult
    static func transfer(_ c: any SQLConnection, key: String, from debit: String, to credit: String,
                         amount: Int64, reference: String, now: Int64) throws -> Int64 {
        var batch = Postings()
        batch.transfer(key: key, from: debit, to: credit, amount: amount, reference: reference)
        return try id(of: key, in: post(c, batch, now: now), c)
    }

    /// A pending transfer: the amount is held on both accounts until posted or voided.
    static func hold(_ c: any SQLConnection, key: String, from debit: String, to credit: String,
                     amount: Int64, reference: String, now: Int64) throws -> Int64 {
        var batch = Postings()
        batch.hold(key: key, from: debit, to: credit, amount: amount, reference: reference)
        return try id(of: key, in: post(c, batch, now: now), c)
    }

    /// The id of the transfer `key`: written now, or (a replay) written before.
    private static func id(of key: String, in written: [String: Int64], _ c: any SQLConnection) throws -> Int64 {
        if let id = written[key] { return id }
        guard let existing = try LedgerStatements(c).transfer(key: key) else { throw StoreError.statement("transfer \(key) vanished") }
        return existing
    }

    /// The phase a transfer row records.
    enum Phase: String {
        /// Posted at once.
        case single
        /// Held on both accounts until resolved.
        case pending
        /// The posted part of a resolved hold.
        case post
        /// A hold released with nothing posted.
        case void
    }

    /// One transfer row to write, and what it adds to its two accounts' sums.
    struct Posting {
        var key: String
        var debit: String
        var credit: String
        var amount: Int64
        var phase: Phase
        var pendingID: Int64?
        var reference: String
        /// Added to the posted sums of both accounts (the debit side of `debit`, the credit
        /// side of `credit`).
        var posted: Int64
        /// Added to their pending sums.
        var pending: Int64
    }

    /// Transfers written together: their rows in one statement and every account's sums in
    /// one more, however many there are (a settlement is three or four). Why: each statement
    /// is a round trip to PostgreSQL, and a trip's settlement was eight of them.
    ///
    /// A transfer whose key was used already is written by no one and changes no sum (a
    /// replay), as when written alone. The sums change all at once, so the schema's checks
    /// against overdraft see each account after the whole batch; no batch here takes an
    /// account below zero on the way (the money comes in before it goes out).
    struct Postings {
        private(set) var entries: [Posting] = []

        /// A transfer posted at once.
        mutating func transfer(key: String, from debit: String, to credit: String, amount: Int64, reference: String) {
            entries.append(Posting(key: key, debit: debit, credit: credit, amount: amount, phase: .single, pendingID: nil,
                                   reference: reference, posted: amount, pending: 0))
        }

        /// A pending transfer, held on both accounts.
        mutating func hold(key: String, from debit: String, to credit: String, amount: Int64, reference: String) {
            entries.append(Posting(key: key, debit: debit, credit: credit, amount: amount, phase: .pending, pendingID: nil,
                                   reference: reference, posted: 0, pending: amount))
        }

        /// The resolution of hold `p`: `amount` posted (0 voids it), the whole hold released.
        mutating func resolve(_ p: Pending, post amount: Int64, key: String, reference: String) {
            entries.append(Posting(key: key, debit: p.debit, credit: p.credit, amount: amount > 0 ? amount : p.amount,
                                   phase: amount > 0 ? .post : .void, pendingID: p.id, reference: reference,
                                   posted: amount, pending: -p.amount))
        }
    }

    /// Writes `batch`: two statements, whatever its size. Returns the ids of the transfers
    /// written, by key (a key used before is not among them).
    @discardableResult
    static func post(_ c: any SQLConnection, _ batch: Postings, now: Int64) throws -> [String: Int64] {
        let ledger = LedgerStatements(c)
        let written = try ledger.insertTransfers(batch.entries, at: now)
        var shifts: [String: LedgerStatements.Shift] = [:]
        for p in batch.entries where written[p.key] != nil {
            shifts[p.debit, default: .init()].debitsPosted += p.posted
            shifts[p.debit, default: .init()].debitsPending += p.pending
            shifts[p.credit, default: .init()].creditsPosted += p.posted
            shifts[p.credit, default: .init()].creditsPending += p.pending
        }
        try ledger.shift(shifts)
        return written
    }

    /// A pending transfer as stored.
    struct Pending: Decodable {
        var id: Int64
        var debit: String
        var credit: String
        var amount: Int64
        var resolved: Bool
        enum CodingKeys: String, CodingKey { case id, debit = "debit_account", credit = "credit_account", amount, resolved }
    }

    /// Resolves a pending transfer into `batch`: posts `amount` (at most the held amount; 0
    /// voids it) and releases the rest, when the batch is posted. Resolving twice is refused
    /// by the caller's state, and the `resolved` flag makes a second resolution here a no-op.
    /// Returns the account the hold credited (the escrow shard the held money sits in).
    @discardableResult
    static func resolve(_ c: any SQLConnection, pendingID: Int64, post amount: Int64, key: String,
                        reference: String, into batch: inout Postings) throws -> String {
        let ledger = LedgerStatements(c)
        // Marked resolved as it is read (one statement); a refusal below rolls the mark back
        // with the transaction.
        guard let p = try ledger.resolvePending(pendingID) else {
            guard let resolved = try ledger.pending(pendingID) else {
                throw StoreError.statement("pending transfer \(pendingID) is missing")
            }
            return resolved.credit
        }
        guard amount >= 0 && amount <= p.amount else {
            throw StoreError.statement("posting \(amount) of a hold of \(p.amount)")
        }
        batch.resolve(p, post: amount, key: key, reference: reference)
        return p.credit
    }
}

/// The ledger's invariants, recomputed from the transfers alone: the check the tests and
/// `wayfare` run after a crash.
public struct LedgerAudit: Sendable, Equatable {
    /// Accounts whose four sums differ from their transfers: the ids.
    public var mismatchedAccounts: [String]
    /// Accounts below zero that must not be: the ids.
    public var overdrawnAccounts: [String]
    /// The sum of every account's posted debits and of every account's posted credits; equal
    /// in a sound ledger.
    public var totalDebitsPosted: Int64
    /// See ``totalDebitsPosted``.
    public var totalCreditsPosted: Int64
    /// Pending holds, the same on both sides in a sound ledger.
    public var totalDebitsPending: Int64
    /// See ``totalDebitsPending``.
    public var totalCreditsPending: Int64
    /// How many transfers there are.
    public var transfers: Int

    /// Whether every invariant holds.
    public var isSound: Bool {
        mismatchedAccounts.isEmpty && overdrawnAccounts.isEmpty
            && totalDebitsPosted == totalCreditsPosted && totalDebitsPending == totalCreditsPending
    }

    /// Audits the ledger of `store` in one read transaction.
    public static func run(on store: any SQLStore) throws -> LedgerAudit {
        try store.blockingRead { c in
            let ledger = LedgerStatements(c)
            // The sums each account should hold, from the transfers alone.
            let debitSums = try sums(ledger, on: .debit), creditSums = try sums(ledger, on: .credit)
            var audit = LedgerAudit(mismatchedAccounts: [], overdrawnAccounts: [], totalDebitsPosted: 0,
                                    totalCreditsPosted: 0, totalDebitsPending: 0, totalCreditsPending: 0,
                                    transfers: Int(clamping: try ledger.transferCount()))
            for account in try ledger.accounts() {
                let id = account.id
                let dp = account.debitsPosted, cp = account.creditsPosted
                let dq = account.debitsPending, cq = account.creditsPending
                let d = debitSums[id] ?? (0, 0), cr = creditSums[id] ?? (0, 0)
                if dp != d.posted || dq != d.pending || cp != cr.posted || cq != cr.pending {
                    audit.mismatchedAccounts.append(id)
                }
                if account.noOverdraft {
                    let credit = account.normal == .credit
                    if credit ? dp + dq > cp : cp + cq > dp { audit.overdrawnAccounts.append(id) }
                }
                audit.totalDebitsPosted += dp
                audit.totalCreditsPosted += cp
                audit.totalDebitsPending += dq
                audit.totalCreditsPending += cq
            }
            return audit
        }
    }

    private static func sums(_ ledger: LedgerStatements, on side: LedgerStatements.Side) throws -> [String: (posted: Int64, pending: Int64)] {
        var out: [String: (posted: Int64, pending: Int64)] = [:]
        for row in try ledger.sums(on: side) { out[row.account] = (row.posted, row.pending) }
        return out
    }
}
