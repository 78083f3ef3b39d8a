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
/// when the driver collected cash that included the company's commission), `escrow`
/// (fares held between pickup and payout, credit-normal, never below zero), `revenue` (the
/// company's commission, credit-normal), and `gateway` (money the payment gateway owes the
/// company for approved card payments, debit-normal).
enum Ledger {
    enum Normal: String { case debit, credit }

    /// What a transaction that moves money passes as `locking:` to the store: every such
    /// transaction updates `escrow`, `revenue` or `gateway`, so on PostgreSQL they would
    /// abort each other under `SERIALIZABLE`; taking turns on the accounts table makes
    /// them wait instead, on every node (TigerBeetle, too, applies transfers one at a time).
    static let turns = ["ledger_accounts"]

    static let escrow = "escrow"
    static let revenue = "revenue"
    static let gateway = "gateway"
    static func wallet(_ user: Int64) -> String { "wallet:\(user)" }
    static func driver(_ user: Int64) -> String { "driver:\(user)" }

    /// Creates an account unless it exists.
    static func open(_ c: any SQLConnection, _ id: String, normal: Normal, noOverdraft: Bool) throws {
        try c.execute("""
            INSERT INTO ledger_accounts (id, normal, no_overdraft) VALUES (\(id), \(normal.rawValue), \(SQLValue(noOverdraft)))
            ON CONFLICT (id) DO NOTHING
            """)
    }

    /// The company's own accounts, created once per database.
    static func openCompanyAccounts(_ c: any SQLConnection) throws {
        try open(c, escrow, normal: .credit, noOverdraft: true)
        try open(c, revenue, normal: .credit, noOverdraft: false)
        try open(c, gateway, normal: .debit, noOverdraft: false)
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

        /// The posted balance on the account's normal side.
        var posted: Int64 {
            normal == .credit ? creditsPosted - debitsPosted : debitsPosted - creditsPosted
        }
    }

    static func balances(_ c: any SQLConnection, _ id: String) throws -> Balances? {
        guard let row = try c.first("""
            SELECT normal, no_overdraft, debits_posted, credits_posted, debits_pending, credits_pending
            FROM ledger_accounts WHERE id = \(id)
            """) else { return nil }
        return Balances(
            normal: try row.string("normal") == "debit" ? .debit : .credit,
            noOverdraft: try row.bool("no_overdraft"),
            debitsPosted: try row.int64("debits_posted"), creditsPosted: try row.int64("credits_posted"),
            debitsPending: try row.int64("debits_pending"), creditsPending: try row.int64("credits_pending"))
    }

    enum TransferFailure: Error, Equatable {
        /// The debit account would go below zero: what it has.
        case exceedsBalance(available: Int64)
    }

    /// Whether `amount` more on the debit side of `debitAccount` keeps it at or above zero.
    static func check(_ c: any SQLConnection, debit debitAccount: String, amount: Int64) throws {
        guard let balances = try balances(c, debitAccount) else {
            throw StoreError.statement("ledger account \(debitAccount) is missing")
        }
        if balances.noOverdraft && balances.normal == .credit && balances.available < amount {
            throw TransferFailure.exceedsBalance(available: max(0, balances.available))
        }
    }

    /// A transfer posted at once. Returns its id, or the existing id when `key` was used.
    @discardableResult
    static func transfer(_ c: any SQLConnection, key: String, from debit: String, to credit: String,
                         amount: Int64, reference: String, now: Int64) throws -> Int64 {
        try move(c, key: key, from: debit, to: credit, amount: amount, pending: false, reference: reference, now: now)
    }

    /// A pending transfer: the amount is held on both accounts until posted or voided.
    static func hold(_ c: any SQLConnection, key: String, from debit: String, to credit: String,
                     amount: Int64, reference: String, now: Int64) throws -> Int64 {
        try move(c, key: key, from: debit, to: credit, amount: amount, pending: true, reference: reference, now: now)
    }

    private static func move(_ c: any SQLConnection, key: String, from debit: String, to credit: String,
                             amount: Int64, pending: Bool, reference: String, now: Int64) throws -> Int64 {
        if let existing = try existingTransfer(c, key) { return existing }
        try check(c, debit: debit, amount: amount)
        let id = try insert(c, key: key, debit: debit, credit: credit, amount: amount, phase: pending ? "pending" : "single",
                            pendingID: nil, reference: reference, now: now)
        // Column names from two fixed spellings, never from input.
        let debits = Statement(pending ? "debits_pending" : "debits_posted"), credits = Statement(pending ? "credits_pending" : "credits_posted")
        try c.execute("UPDATE ledger_accounts SET \(sql: debits) = \(sql: debits) + \(amount) WHERE id = \(debit)")
        try c.execute("UPDATE ledger_accounts SET \(sql: credits) = \(sql: credits) + \(amount) WHERE id = \(credit)")
        return id
    }

    struct Pending {
        var id: Int64
        var debit: String
        var credit: String
        var amount: Int64
        var resolved: Bool
    }

    static func pending(_ c: any SQLConnection, id: Int64) throws -> Pending? {
        guard let row = try c.first("""
            SELECT id, debit_account, credit_account, amount, resolved FROM ledger_transfers
            WHERE id = \(id) AND phase = 'pending'
            """) else { return nil }
        return Pending(id: try row.int64("id"), debit: try row.string("debit_account"),
                       credit: try row.string("credit_account"), amount: try row.int64("amount"),
                       resolved: try row.bool("resolved"))
    }

    /// Resolves a pending transfer: posts `amount` (at most the held amount; 0 voids it) and
    /// releases the rest. Resolving twice is refused by the caller's state, and the
    /// `resolved` flag makes a second resolution here a no-op.
    static func resolve(_ c: any SQLConnection, pendingID: Int64, post amount: Int64, key: String,
                        reference: String, now: Int64) throws {
        guard let p = try pending(c, id: pendingID) else {
            throw StoreError.statement("pending transfer \(pendingID) is missing")
        }
        if p.resolved { return }
        guard amount >= 0 && amount <= p.amount else {
            throw StoreError.statement("posting \(amount) of a hold of \(p.amount)")
        }
        try c.execute("UPDATE ledger_transfers SET resolved = 1 WHERE id = \(p.id)")
        try c.execute("UPDATE ledger_accounts SET debits_pending = debits_pending - \(p.amount) WHERE id = \(p.debit)")
        try c.execute("UPDATE ledger_accounts SET credits_pending = credits_pending - \(p.amount) WHERE id = \(p.credit)")
        if amount > 0 {
            try insert(c, key: key, debit: p.debit, credit: p.credit, amount: amount, phase: "post",
                       pendingID: p.id, reference: reference, now: now)
            try c.execute("UPDATE ledger_accounts SET debits_posted = debits_posted + \(amount) WHERE id = \(p.debit)")
            try c.execute("UPDATE ledger_accounts SET credits_posted = credits_posted + \(amount) WHERE id = \(p.credit)")
        } else {
            try insert(c, key: key, debit: p.debit, credit: p.credit, amount: p.amount, phase: "void",
                       pendingID: p.id, reference: reference, now: now)
        }
    }

    private static func existingTransfer(_ c: any SQLConnection, _ key: String) throws -> Int64? {
        try c.first("SELECT id FROM ledger_transfers WHERE transfer_key = \(key)")?.int64("id")
    }

    @discardableResult
    private static func insert(_ c: any SQLConnection, key: String, debit: String, credit: String, amount: Int64,
                               phase: String, pendingID: Int64?, reference: String, now: Int64) throws -> Int64 {
        guard let row = try c.first("""
            INSERT INTO ledger_transfers
                (transfer_key, debit_account, credit_account, amount, phase, pending_id, reference, created_ms)
            VALUES (\(key), \(debit), \(credit), \(amount), \(phase), \(SQLValue(pendingID)), \(reference), \(now)) RETURNING id
            """) else {
            throw StoreError.statement("insert into ledger_transfers returned no id")
        }
        return try row.int64("id")
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
            let accounts = try c.query("""
                SELECT id, normal, no_overdraft, debits_posted, credits_posted, debits_pending, credits_pending
                FROM ledger_accounts ORDER BY id
                """)
            // The sums each account should hold, from the transfers: posted = single and
            // post phases; pending = unresolved pending phases.
            let debitSums = try sums(c, side: "debit_account")
            let creditSums = try sums(c, side: "credit_account")
            var audit = LedgerAudit(mismatchedAccounts: [], overdrawnAccounts: [], totalDebitsPosted: 0,
                                    totalCreditsPosted: 0, totalDebitsPending: 0, totalCreditsPending: 0,
                                    transfers: try c.first("SELECT COUNT(*) AS n FROM ledger_transfers")?.int("n") ?? 0)
            for row in accounts {
                let id = try row.string("id")
                let dp = try row.int64("debits_posted"), cp = try row.int64("credits_posted")
                let dq = try row.int64("debits_pending"), cq = try row.int64("credits_pending")
                let d = debitSums[id] ?? (0, 0), cr = creditSums[id] ?? (0, 0)
                if dp != d.posted || dq != d.pending || cp != cr.posted || cq != cr.pending {
                    audit.mismatchedAccounts.append(id)
                }
                if try row.bool("no_overdraft") {
                    let credit = try row.string("normal") == "credit"
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

    private static func sums(_ c: any SQLConnection, side: String) throws -> [String: (posted: Int64, pending: Int64)] {
        var out: [String: (posted: Int64, pending: Int64)] = [:]
        // A column name (one of two fixed spellings), spliced as SQL: not a value.
        let column = Statement(side)
        for row in try c.query("""
            SELECT \(sql: column) AS account,
                CAST(COALESCE(SUM(CASE WHEN phase IN ('single', 'post') THEN amount ELSE 0 END), 0) AS BIGINT) AS posted,
                CAST(COALESCE(SUM(CASE WHEN phase = 'pending' AND resolved = 0 THEN amount ELSE 0 END), 0) AS BIGINT) AS pending
            FROM ledger_transfers GROUP BY \(sql: column)
            """) {
            out[try row.string("account")] = (try row.int64("posted"), try row.int64("pending"))
        }
        return out
    }
}
