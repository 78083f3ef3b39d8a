import Storage

/// Every statement of the outbox, in one place: values bound where they appear, rows
/// decoded by column name.
struct OutboxStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A notification waiting to be sent.
    struct Record: Decodable {
        let id: Int64
        let userID: Int64?
        let kind: String
        let payload: String
        let attempts: Int64
        enum CodingKeys: String, CodingKey { case id, userID = "user_id", kind, payload, attempts }
    }

    /// Up to `limit` notifications due at `now`, oldest due first. Reset links and
    /// verification codes are sent by `Accounts` itself, which holds their secrets.
    func due(at now: Int64, limit: Int) throws -> [Record] {
        try c.fetchAll(Record.self, """
            SELECT id, user_id, kind, payload, attempts FROM outbox
            WHERE sent_ms IS NULL AND set_aside_ms IS NULL AND next_attempt_ms <= \(now)
                AND kind NOT IN ('password-reset', 'verification-code')
            ORDER BY next_attempt_ms, id LIMIT \(limit)
            """)
    }

    func markSent(_ id: Int64, at now: Int64, attempts: Int64) throws {
        try c.execute("UPDATE outbox SET sent_ms = \(now), attempts = \(attempts) WHERE id = \(id)")
    }

    /// Marks a message sent by its own service (a code or a reset link), one more attempt.
    func markDelivered(_ id: Int64, at now: Int64) throws {
        try c.execute("UPDATE outbox SET sent_ms = \(now), attempts = attempts + 1 WHERE id = \(id)")
    }

    func setAside(_ id: Int64, at now: Int64, attempts: Int64) throws {
        try c.execute("UPDATE outbox SET attempts = \(attempts), set_aside_ms = \(now) WHERE id = \(id)")
    }

    func retry(_ id: Int64, at next: Int64, attempts: Int64) throws {
        try c.execute("UPDATE outbox SET attempts = \(attempts), next_attempt_ms = \(next) WHERE id = \(id)")
    }

    /// Deletes messages sent before `cutoff`, and the records of codes and reset links whose
    /// one send failed (they are never retried from the outbox: the secret is not stored).
    func purge(before cutoff: Int64) throws -> Int {
        try c.execute("""
            DELETE FROM outbox WHERE sent_ms < \(cutoff)
                OR (sent_ms IS NULL AND kind IN ('password-reset', 'verification-code') AND created_ms < \(cutoff))
            """)
    }

    /// Writes a notification; returns its id.
    func insert(user: Int64?, kind: String, payload: String, at now: Int64, sent: Int64?) throws -> Int64 {
        try c.insertReturningID("""
            INSERT INTO outbox (user_id, kind, payload, created_ms, sent_ms)
            VALUES (\(user), \(kind), \(payload), \(now), \(sent)) RETURNING id
            """, into: "outbox")
    }
}
