import Storage

/// Every statement of the ledger, in one place: values bound where they appear, rows
/// decoded by column name. ``Ledger`` keeps the rules (what a transfer may do, how a hold
/// resolves); ``LedgerAudit`` reads through the same type.
struct LedgerStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// Which side of a transfer an account is on.
    enum Side: String {
        case debit = "debit_account", credit = "credit_account"
        var column: Statement { Statement(rawValue) }
    }

    /// An account's row: its id, kind and four sums.
    struct AccountRecord: Decodable {
        let id: String
        let normal: Ledger.Normal
        let noOverdraft: Bool
        let debitsPosted: Int64
        let creditsPosted: Int64
        let debitsPending: Int64
        let creditsPending: Int64
        enum CodingKeys: String, CodingKey {
            case id, normal, noOverdraft = "no_overdraft", debitsPosted = "debits_posted", creditsPosted = "credits_posted"
            case debitsPending = "debits_pending", creditsPending = "credits_pending"
        }
    }

    private struct AccountID: Decodable { let id: String }

    /// A company account's four sums over its shards.
    struct CompanySumsRecord: Decodable {
        let debitsPosted: Int64
        let creditsPosted: Int64
        let debitsPending: Int64
        let creditsPending: Int64
        enum CodingKeys: String, CodingKey {
            case debitsPosted = "debits_posted", creditsPosted = "credits_posted"
            case debitsPending = "debits_pending", creditsPending = "credits_pending"
        }
    }

    /// An account's sums as its transfers give them.
    struct SumsRecord: Decodable {
        let account: String
        let posted: Int64
        let pending: Int64
    }

    private static let accountColumns: Statement =
        "id, normal, no_overdraft, debits_posted, credits_posted, debits_pending, credits_pending"

    // MARK: Accounts

    func open(_ id: String, normal: Ledger.Normal, noOverdraft: Bool) throws {
        try c.execute("""
            INSERT INTO ledger_accounts (id, normal, no_overdraft) VALUES (\(id), \(normal.rawValue), \(noOverdraft))
            ON CONFLICT (id) DO NOTHING
            """)
    }

    func account(_ id: String) throws -> AccountRecord? {
        try c.fetchOne(AccountRecord.self, "SELECT \(sql: Self.accountColumns) FROM ledger_accounts WHERE id = \(id)")
    }

    func accounts() throws -> [AccountRecord] {
        try c.fetchAll(AccountRecord.self, "SELECT \(sql: Self.accountColumns) FROM ledger_accounts ORDER BY id")
    }

    /// Locks the rows of `accounts` until the transaction ends, in id order (two transactions
    /// locking overlapping sets then cannot wait for each other in a circle). PostgreSQL
    /// only: SQLite's writer is alone.
    func lock(_ accounts: [String]) throws {
        guard c.dialect == .postgres, !accounts.isEmpty else { return }
        _ = try c.fetchAll(AccountID.self, "SELECT id FROM ledger_accounts WHERE id IN (\(sql: Self.idList(accounts))) ORDER BY id\(sql: c.forUpdate)")
    }

    /// The rows of `accounts` that exist, locked until the transaction ends in id order as
    /// ``lock(_:)`` locks them (on SQLite, read: its writer is alone).
    func lockedAccounts(_ accounts: [String]) throws -> [AccountRecord] {
        guard !accounts.isEmpty else { return [] }
        return try c.fetchAll(AccountRecord.self, """
            SELECT \(sql: Self.accountColumns) FROM ledger_accounts WHERE id IN (\(sql: Self.idList(accounts))) ORDER BY id\(sql: c.forUpdate)
            """)
    }

    /// `accounts` without repeats, in id order, as a list of bound values for `IN (…)`.
    private static func idList(_ accounts: [String]) -> Statement {
        Statement.joined(Set(accounts).sorted().map { id -> Statement in "\(id)" }, separator: ", ")
    }

    /// What a batch of transfers adds to one account's four sums (negative to take away).
    struct Shift: Equatable {
        var debitsPosted: Int64 = 0, debitsPending: Int64 = 0, creditsPosted: Int64 = 0, creditsPending: Int64 = 0
    }

    /// Adds each account's shift to its sums, every account in one statement.
    /// - Throws: when an account is missing (fewer rows changed than named).
    func shift(_ shifts: [String: Shift]) throws {
        guard !shifts.isEmpty else { return }
        let accounts = shifts.keys.sorted()
        func column(_ name: String, _ delta: (Shift) -> Int64) -> Statement {
            let cases = Statement.joined(accounts.map { id -> Statement in "WHEN \(id) THEN \(delta(shifts[id]!))" }, separator: " ")
            return "\(sql: Statement(name)) = \(sql: Statement(name)) + CASE id \(sql: cases) ELSE 0 END"
        }
        let changed = try c.execute("""
            UPDATE ledger_accounts SET \(sql: column("debits_posted", \.debitsPosted)), \(sql: column("debits_pending", \.debitsPending)),
                \(sql: column("credits_posted", \.creditsPosted)), \(sql: column("credits_pending", \.creditsPending))
            WHERE id IN (\(sql: Self.idList(accounts)))
            """)
        guard changed == accounts.count else {
            throw StoreError.statement("a ledger account of \(accounts.joined(separator: ", ")) is missing")
        }
    }

    /// The four sums of the company account `kind` (`escrow`, `revenue`, `gateway`): the
    /// unsharded account of earlier versions and its shards together.
    func sums(ofAccount kind: String) throws -> CompanySumsRecord {
        try c.fetchOne(CompanySumsRecord.self, """
            SELECT CAST(COALESCE(SUM(debits_posted), 0) AS BIGINT) AS debits_posted,
                CAST(COALESCE(SUM(credits_posted), 0) AS BIGINT) AS credits_posted,
                CAST(COALESCE(SUM(debits_pending), 0) AS BIGINT) AS debits_pending,
                CAST(COALESCE(SUM(credits_pending), 0) AS BIGINT) AS credits_pending
            FROM ledger_accounts WHERE id = \(kind) OR id LIKE \(kind + ":%")
            """) ?? CompanySumsRecord(debitsPosted: 0, creditsPosted: 0, debitsPending: 0, creditsPending: 0)
    }

    /// The posted balance of every credit-normal account whose id starts with `prefix`
    /// (`driver:`, `wallet:`), summed.
    func postedCredit(ofAccountsStartingWith prefix: String) throws -> Int64 {
        try c.fetchOne(RowCount.self, """
            SELECT CAST(COALESCE(SUM(credits_posted - debits_posted), 0) AS BIGINT) AS n
            FROM ledger_accounts WHERE id LIKE \(prefix + "%")
            """)?.n ?? 0
    }

    // MARK: Transfers

    func transfer(key: String) throws -> Int64? {
        try c.fetchOne(RowID.self, "SELECT id FROM ledger_transfers WHERE transfer_key = \(key)")?.id
    }

    /// A pending transfer, its row locked until the transaction ends.
    func pending(_ id: Int64) throws -> Ledger.Pending? {
        try c.fetchOne(Ledger.Pending.self, """
            SELECT id, debit_account, credit_account, amount, resolved FROM ledger_transfers
            WHERE id = \(id) AND phase = 'pending'\(sql: c.forUpdate)
            """)
    }

    /// Marks pending transfer `id` resolved and returns it as it was, in one statement; nil
    /// when it is missing or resolved already (``pending(_:)`` tells which). The row stays
    /// locked until the transaction ends.
    func resolvePending(_ id: Int64) throws -> Ledger.Pending? {
        try c.fetchOne(Ledger.Pending.self, """
            UPDATE ledger_transfers SET resolved = 1 WHERE id = \(id) AND phase = 'pending' AND resolved = 0
            RETURNING id, debit_account, credit_account, amount, 0 AS resolved
            """)
    }

    /// Writes transfer rows, all in one statement; returns the id of each written, by key.
    /// A row whose key was used already is not written (and not in the answer).
    func insertTransfers(_ transfers: [Ledger.Posting], at now: Int64) throws -> [String: Int64] {
        guard !transfers.isEmpty else { return [:] }
        let rows = Statement.joined(transfers.map { t -> Statement in
            "(\(t.key), \(t.debit), \(t.credit), \(t.amount), \(t.phase.rawValue), \(t.pendingID), \(t.reference), \(now))"
        }, separator: ", ")
        let written = try c.fetchAll(WrittenTransfer.self, """
            INSERT INTO ledger_transfers
                (transfer_key, debit_account, credit_account, amount, phase, pending_id, reference, created_ms)
            VALUES \(sql: rows)
            ON CONFLICT (transfer_key) DO NOTHING RETURNING id, transfer_key
            """)
        return Dictionary(written.map { ($0.key, $0.id) }, uniquingKeysWith: { first, _ in first })
    }

    private struct WrittenTransfer: Decodable {
        let id: Int64
        let key: String
        enum CodingKeys: String, CodingKey { case id, key = "transfer_key" }
    }

    func transferCount() throws -> Int64 {
        try c.fetchOne(RowCount.self, "SELECT COUNT(*) AS n FROM ledger_transfers")?.n ?? 0
    }

    /// What each account's sums on `side` should be, from the transfers alone: posted =
    /// single and post phases; pending = unresolved pending phases.
    func sums(on side: Side) throws -> [SumsRecord] {
        try c.fetchAll(SumsRecord.self, """
            SELECT \(sql: side.column) AS account,
                CAST(COALESCE(SUM(CASE WHEN phase IN ('single', 'post') THEN amount ELSE 0 END), 0) AS BIGINT) AS posted,
                CAST(COALESCE(SUM(CASE WHEN phase = 'pending' AND resolved = 0 THEN amount ELSE 0 END), 0) AS BIGINT) AS pending
            FROM ledger_transfers GROUP BY \(sql: side.column)
            """)
    }
}
