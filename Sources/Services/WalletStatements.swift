import Storage

/// Every statement of the wallet's own tables (refill intents and trip payments), in one
/// place: values bound where they appear, rows decoded by column name. The money itself
/// moves through ``Ledger``, whose statements are ``LedgerStatements``.
struct WalletStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A refill as stored, from the first request to the gateway's final answer.
    struct IntentRecord: Decodable {
        let idempotencyKey: String
        let requestHash: String
        let userID: Int64
        let amount: Int64
        let status: String
        enum CodingKeys: String, CodingKey {
            case idempotencyKey = "idempotency_key", requestHash = "request_hash", userID = "user_id", amount, status
        }
    }

    /// An intent found by its idempotency key.
    struct KeyedIntentRecord: Decodable {
        let id: Int64
        let requestHash: String
        enum CodingKeys: String, CodingKey { case id, requestHash = "request_hash" }
    }

    /// A refill no answer settled yet.
    struct OpenIntentRecord: Decodable, Sendable {
        let id: Int64
        let status: String
        let createdMs: Int64
        enum CodingKeys: String, CodingKey { case id, status, createdMs = "created_ms" }
    }

    /// A trip's payment as stored.
    struct PaymentRecord: Decodable {
        let passengerID: Int64
        let method: String
        let held: Int64
        let pendingID: Int64?
        let status: String
        enum CodingKeys: String, CodingKey { case passengerID = "passenger_id", method, held, pendingID = "pending_id", status }
    }

    // MARK: Refill intents

    func intent(key: String) throws -> KeyedIntentRecord? {
        try c.fetchOne(KeyedIntentRecord.self, "SELECT id, request_hash FROM payment_intents WHERE idempotency_key = \(key)")
    }

    func intent(_ id: Int64) throws -> IntentRecord? {
        try c.fetchOne(IntentRecord.self, """
            SELECT idempotency_key, request_hash, user_id, amount, status FROM payment_intents WHERE id = \(id)
            """)
    }

    /// Records a refill before the gateway is called; returns its id.
    func insertIntent(key: String, requestHash: String, passenger: Int64, amount: Int64, at now: Int64) throws -> Int64 {
        try c.insertReturningID("""
            INSERT INTO payment_intents (idempotency_key, request_hash, user_id, amount, status, created_ms, updated_ms)
            VALUES (\(key), \(requestHash), \(passenger), \(amount), 'created', \(now), \(now)) RETURNING id
            """, into: "payment_intents")
    }

    /// Up to 500 refills waiting for an answer since before `cutoff`, oldest first.
    func openIntents(before cutoff: Int64) throws -> [OpenIntentRecord] {
        try c.fetchAll(OpenIntentRecord.self, """
            SELECT id, status, created_ms FROM payment_intents
            WHERE status IN ('created', 'unknown', 'requires_action') AND updated_ms < \(cutoff) ORDER BY id LIMIT 500
            """)
    }

    /// A refill's new status, with the gateway's reference, reason or challenge (nil keeps none).
    func setIntent(_ id: Int64, status: String, detail: String?, at now: Int64) throws {
        try c.execute("UPDATE payment_intents SET status = \(status), detail = \(detail), updated_ms = \(now) WHERE id = \(id)")
    }

    /// A refill's new status, keeping its detail.
    func setIntent(_ id: Int64, status: String, at now: Int64) throws {
        try c.execute("UPDATE payment_intents SET status = \(status), updated_ms = \(now) WHERE id = \(id)")
    }

    // MARK: Trip payments

    func hasPayment(reference: String) throws -> Bool {
        try c.first("SELECT reference FROM trip_payments WHERE reference = \(reference)") != nil
    }

    /// A trip's payment; `locked` for a transaction that settles or releases it.
    func payment(reference: String, locked: Bool = false) throws -> PaymentRecord? {
        try c.fetchOne(PaymentRecord.self, """
            SELECT passenger_id, method, held, pending_id, status FROM trip_payments WHERE reference = \(reference)\(sql: locked ? c.forUpdate : "")
            """)
    }

    /// A trip's payment: `held` in escrow by the pending transfer `pendingID` (wallet), or
    /// nothing held (cash).
    func insertPayment(reference: String, passenger: Int64, method: String, held: Int64, pendingID: Int64?, at now: Int64) throws {
        try c.execute("""
            INSERT INTO trip_payments (reference, passenger_id, method, held, pending_id, status, created_ms, updated_ms)
            VALUES (\(reference), \(passenger), \(method), \(held), \(pendingID), 'held', \(now), \(now))
            """)
    }

    func settle(reference: String, driver: Int64, fare: Int64, walletPaid: Int64, cashPaid: Int64, commission: Int64,
                at now: Int64) throws {
        try c.execute("""
            UPDATE trip_payments SET status = 'settled', driver_id = \(driver), fare = \(fare), wallet_paid = \(walletPaid),
                cash_paid = \(cashPaid), commission = \(commission), updated_ms = \(now)
            WHERE reference = \(reference)
            """)
    }

    func release(reference: String, at now: Int64) throws {
        try c.execute("UPDATE trip_payments SET status = 'released', updated_ms = \(now) WHERE reference = \(reference)")
    }

    /// A confirmed part of a fare, paid from the wallet after settlement.
    func addConfirmed(reference: String, amount: Int64, commission: Int64, at now: Int64) throws {
        try c.execute("""
            UPDATE trip_payments SET fare = fare + \(amount), wallet_paid = wallet_paid + \(amount),
                commission = commission + \(commission), updated_ms = \(now)
            WHERE reference = \(reference)
            """)
    }
}
