import Storage

/// Every statement of the accounts (users, verification codes, sessions, password resets
/// and login probes), in one place: values bound where they appear, rows decoded by column
/// name into the records below.
///
/// The rules (who may register, the lockout, what a reset ends) stay in ``Accounts``; this
/// type only says how each fact is read and written.
struct AccountStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// The columns of a user as ``User`` shows it.
    private static let userColumns: Statement = "id, role, name, mobile, email, suspended_until_ms"

    /// A user as stored.
    struct UserRecord: Decodable {
        let id: Int64
        let role: Role
        let name: String
        let mobile: String
        let email: String
        let suspendedUntilMs: Int64?
        enum CodingKeys: String, CodingKey { case id, role, name, mobile, email, suspendedUntilMs = "suspended_until_ms" }

        var user: User {
            User(id: id, role: role, name: name, mobile: mobile, email: email, suspendedUntil: suspendedUntilMs.map(date(milliseconds:)))
        }
    }

    /// What a login reads of a user: the user, the stored hash, whether verified (one row,
    /// read as the user's record and two columns more).
    struct SignInRecord: Decodable {
        let account: UserRecord
        let passwordHash: String
        let verifiedMs: Int64?
        enum CodingKeys: String, CodingKey { case passwordHash = "password_hash", verifiedMs = "verified_ms" }

        init(from decoder: any Decoder) throws {
            account = try UserRecord(from: decoder)
            let columns = try decoder.container(keyedBy: CodingKeys.self)
            passwordHash = try columns.decode(String.self, forKey: .passwordHash)
            verifiedMs = try columns.decodeIfPresent(Int64.self, forKey: .verifiedMs)
        }

        var id: Int64 { account.id }
        var suspendedUntilMs: Int64? { account.suspendedUntilMs }
        var user: User { account.user }
    }

    /// An account holding a mobile number or an e-mail address, verified or not.
    struct HolderRecord: Decodable {
        let id: Int64
        let verifiedMs: Int64?
        enum CodingKeys: String, CodingKey { case id, verifiedMs = "verified_ms" }
    }

    /// A verification code waiting for its number.
    struct CodeRecord: Decodable {
        let userID: Int64
        let codeHash: String
        let expiresMs: Int64
        let attempts: Int64
        enum CodingKeys: String, CodingKey { case userID = "user_id", codeHash = "code_hash", expiresMs = "expires_ms", attempts }
    }

    /// The user a reset token is for.
    struct ResetRecord: Decodable {
        let userID: Int64
        let role: Role
        enum CodingKeys: String, CodingKey { case userID = "user_id", role }
    }

    private struct Suspension: Decodable {
        let until: Int64?
        enum CodingKeys: String, CodingKey { case until = "suspended_until_ms" }
    }

    // MARK: Users

    func user(_ id: Int64) throws -> UserRecord? {
        try c.fetchOne(UserRecord.self, "SELECT \(sql: Self.userColumns) FROM users WHERE id = \(id)")
    }

    /// The user of a live session.
    func user(session tokenHash: String, at now: Int64) throws -> UserRecord? {
        try c.fetchOne(UserRecord.self, """
            SELECT u.id, u.role, u.name, u.mobile, u.email, u.suspended_until_ms
            FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.token_hash = \(tokenHash) AND s.ended_ms IS NULL AND s.expires_ms > \(now)
            """)
    }

    func signIn(mobile: String) throws -> SignInRecord? {
        try c.fetchOne(SignInRecord.self, """
            SELECT \(sql: Self.userColumns), password_hash, verified_ms FROM users WHERE mobile = \(mobile)
            """)
    }

    /// Users suspended at `now`, the latest suspension first.
    func suspended(at now: Int64) throws -> [UserRecord] {
        try c.fetchAll(UserRecord.self, """
            SELECT \(sql: Self.userColumns) FROM users
            WHERE suspended_until_ms > \(now) ORDER BY suspended_until_ms DESC, id
            """)
    }

    func holders(mobile: String, email: String) throws -> [HolderRecord] {
        try c.fetchAll(HolderRecord.self, "SELECT id, verified_ms FROM users WHERE mobile = \(mobile) OR email = \(email)")
    }

    func isTaken(email: String) throws -> Bool {
        try c.fetchOne(RowID.self, "SELECT id FROM users WHERE email = \(email)") != nil
    }

    func isTaken(mobile: String) throws -> Bool {
        try c.fetchOne(RowID.self, "SELECT id FROM users WHERE mobile = \(mobile)") != nil
    }

    /// The verified user of an e-mail address.
    func verifiedUser(email: String) throws -> Int64? {
        try c.fetchOne(RowID.self, "SELECT id FROM users WHERE email = \(email) AND verified_ms IS NOT NULL")?.id
    }

    /// Whether user `id` has `role`; `locked` keeps the user's row locked until the
    /// transaction ends, so that the user's own transactions that lock it take turns.
    func exists(_ id: Int64, role: Role, locked: Bool = false) throws -> Bool {
        try c.fetchOne(RowID.self, """
            SELECT id FROM users WHERE id = \(id) AND role = \(role.rawValue)\(sql: locked ? c.forUpdate : "")
            """) != nil
    }

    func count(role: Role) throws -> Int64 {
        try c.fetchOne(RowCount.self, "SELECT COUNT(*) AS n FROM users WHERE role = \(role.rawValue)")?.n ?? 0
    }

    /// A new user; `verified` is nil until the mobile number is verified. Returns the id.
    func insertUser(role: Role, name: String, mobile: String, email: String, passwordHash: String, at now: Int64,
                    verified: Int64?) throws -> Int64 {
        try c.insertReturningID("""
            INSERT INTO users (role, name, mobile, email, password_hash, created_ms, verified_ms)
            VALUES (\(role.rawValue), \(name), \(mobile), \(email), \(passwordHash), \(now), \(verified)) RETURNING id
            """, into: "users")
    }

    func markVerified(_ id: Int64, at now: Int64) throws {
        try c.execute("UPDATE users SET verified_ms = \(now) WHERE id = \(id)")
    }

    /// Deletes a user that was never verified, with its code.
    func deleteUnverified(_ user: Int64) throws {
        try c.execute("DELETE FROM verification_codes WHERE user_id = \(user)")
        try c.execute("DELETE FROM users WHERE id = \(user) AND verified_ms IS NULL")
    }

    // MARK: Passwords and the lockout

    /// Counts an attempt while fewer than `maximum` are counted; false when none was free.
    func countAttempt(_ user: Int64, maximum: Int64) throws -> Bool {
        try c.first("""
            UPDATE users SET failed_attempts = failed_attempts + 1 WHERE id = \(user) AND failed_attempts < \(maximum) RETURNING failed_attempts
            """) != nil
    }

    /// Suspends `user` until `until` if its attempts reached `maximum`; whether it did.
    func suspend(_ user: Int64, until: Int64, ifAttemptsReach maximum: Int64) throws -> Bool {
        try c.execute("""
            UPDATE users SET failed_attempts = 0, suspended_until_ms = \(until) WHERE id = \(user) AND failed_attempts >= \(maximum)
            """) == 1
    }

    func suspension(of user: Int64) throws -> Int64? {
        try c.fetchOne(Suspension.self, "SELECT suspended_until_ms FROM users WHERE id = \(user)")?.until
    }

    /// Clears the attempts and any suspension; whether the user exists.
    @discardableResult
    func clearAttempts(_ user: Int64) throws -> Bool {
        try c.execute("UPDATE users SET failed_attempts = 0, suspended_until_ms = NULL WHERE id = \(user)") == 1
    }

    func setPasswordHash(_ user: Int64, to hash: String) throws {
        try c.execute("UPDATE users SET password_hash = \(hash) WHERE id = \(user)")
    }

    /// Replaces a hash with a stronger one of the same password, unless it changed meanwhile.
    func upgradePasswordHash(_ user: Int64, from stored: String, to upgraded: String) throws {
        try c.execute("UPDATE users SET password_hash = \(upgraded) WHERE id = \(user) AND password_hash = \(stored)")
    }

    /// A reset's new password: set, and the lockout lifted.
    func resetPassword(_ user: Int64, to hash: String) throws {
        try c.execute("UPDATE users SET password_hash = \(hash), failed_attempts = 0, suspended_until_ms = NULL WHERE id = \(user)")
    }

    /// Counts a try at a login name that matches no account.
    func probe(nameHash: String, at now: Int64) throws {
        try c.execute("""
            INSERT INTO login_probes (name_hash, attempts, last_ms) VALUES (\(nameHash), 1, \(now))
            ON CONFLICT (name_hash) DO UPDATE SET attempts = login_probes.attempts + 1, last_ms = excluded.last_ms
            """)
    }

    /// Login names tried that match no account, verification codes past their time and
    /// registrations nobody verified, from before `cutoff`; returns how many registrations.
    func purgeUnverified(before cutoff: Int64) throws -> Int {
        try c.execute("DELETE FROM login_probes WHERE last_ms < \(cutoff)")
        try c.execute("DELETE FROM verification_codes WHERE expires_ms < \(cutoff)")
        return try c.execute("""
            DELETE FROM users WHERE verified_ms IS NULL AND created_ms < \(cutoff)
                AND id NOT IN (SELECT user_id FROM verification_codes)
            """)
    }

    // MARK: Verification codes

    func insertCode(mobile: String, user: Int64, codeHash: String, expires: Int64) throws {
        try c.execute("""
            INSERT INTO verification_codes (mobile, user_id, code_hash, expires_ms)
            VALUES (\(mobile), \(user), \(codeHash), \(expires))
            """)
    }

    func code(mobile: String) throws -> CodeRecord? {
        try c.fetchOne(CodeRecord.self, "SELECT user_id, code_hash, expires_ms, attempts FROM verification_codes WHERE mobile = \(mobile)")
    }

    func countWrongCode(mobile: String) throws {
        try c.execute("UPDATE verification_codes SET attempts = attempts + 1 WHERE mobile = \(mobile)")
    }

    func deleteCode(mobile: String) throws {
        try c.execute("DELETE FROM verification_codes WHERE mobile = \(mobile)")
    }

    // MARK: Sessions

    func insertSession(tokenHash: String, user: Int64, at now: Int64, expires: Int64) throws {
        try c.execute("""
            INSERT INTO sessions (token_hash, user_id, created_ms, expires_ms)
            VALUES (\(tokenHash), \(user), \(now), \(expires))
            """)
    }

    func endSession(tokenHash: String, at now: Int64) throws {
        try c.execute("UPDATE sessions SET ended_ms = \(now) WHERE token_hash = \(tokenHash) AND ended_ms IS NULL")
    }

    /// Ends every session of `user` but the one with `keeping` (nil: all of them).
    func endSessions(of user: Int64, keeping: String?, at now: Int64) throws {
        if let keeping {
            try c.execute("""
                UPDATE sessions SET ended_ms = \(now) WHERE user_id = \(user) AND ended_ms IS NULL AND token_hash <> \(keeping)
                """)
        } else {
            try c.execute("UPDATE sessions SET ended_ms = \(now) WHERE user_id = \(user) AND ended_ms IS NULL")
        }
    }

    /// Sessions that expired or ended before `cutoff`; returns how many.
    func purgeSessions(endedBefore cutoff: Int64) throws -> Int {
        try c.execute("DELETE FROM sessions WHERE expires_ms < \(cutoff) OR ended_ms < \(cutoff)")
    }

    // MARK: Password resets

    func insertReset(tokenHash: String, user: Int64, at now: Int64, expires: Int64) throws {
        try c.execute("""
            INSERT INTO password_resets (token_hash, user_id, created_ms, expires_ms)
            VALUES (\(tokenHash), \(user), \(now), \(expires))
            """)
    }

    /// The user of an unused, unexpired reset token.
    func reset(tokenHash: String, at now: Int64) throws -> ResetRecord? {
        try c.fetchOne(ResetRecord.self, """
            SELECT r.user_id, u.role FROM password_resets r JOIN users u ON u.id = r.user_id
            WHERE r.token_hash = \(tokenHash) AND r.used_ms IS NULL AND r.expires_ms > \(now)
            """)
    }

    /// Marks a reset token used if it was not; whether this call did.
    func useReset(tokenHash: String, at now: Int64) throws -> Bool {
        try c.execute("UPDATE password_resets SET used_ms = \(now) WHERE token_hash = \(tokenHash) AND used_ms IS NULL") == 1
    }

    /// Reset tokens that expired or were used before `cutoff`; returns how many.
    func purgeResets(endedBefore cutoff: Int64) throws -> Int {
        try c.execute("DELETE FROM password_resets WHERE expires_ms < \(cutoff) OR used_ms < \(cutoff)")
    }

    /// Ends every unused reset token of `user`.
    func endResets(of user: Int64, at now: Int64) throws {
        try c.execute("UPDATE password_resets SET used_ms = \(now) WHERE user_id = \(user) AND used_ms IS NULL")
    }
}
