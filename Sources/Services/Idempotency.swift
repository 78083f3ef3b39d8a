import Crypto
import Foundation
import Storage

/// A client-chosen key that makes a call safe to repeat: the same key twice has the effect of
/// once, and the second call returns the first answer.
///
/// Keys are 1 to 64 characters of letters, digits, `-`, `_`, `:` and `.`, so that a UUID, a
/// ULID or a phone's own counter all fit, and nothing else (no SQL or control characters)
/// reaches the store.
public struct IdempotencyKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's text.
    public let rawValue: String

    /// A key from its text.
    /// - Throws: ``ServiceError/invalid(field:reason:)`` naming `idempotencyKey`.
    public init(_ rawValue: String) throws(ServiceError) {
        guard (1...64).contains(rawValue.utf8.count) else {
            throw .invalid(field: "idempotencyKey", reason: "must be 1 to 64 characters")
        }
        guard rawValue.utf8.allSatisfy({ c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")
        }) else {
            throw .invalid(field: "idempotencyKey", reason: "only letters, digits, '-', '_', ':' and '.'")
        }
        self.rawValue = rawValue
    }

    /// A fresh random key.
    public static func random() -> IdempotencyKey {
        // A UUID always passes the check above.
        IdempotencyKey(unchecked: UUID().uuidString)
    }

    init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The key's text.
    public var description: String { rawValue }
}

/// The stored first answers of idempotent calls.
///
/// The answer is written in the same transaction as the call's effect, so either both are
/// stored or neither: a call that crashed before committing runs again, and one that
/// committed returns its stored answer.
enum Idempotency {
    /// Runs `body` once per key: returns the stored answer when `key` was seen with the same
    /// operation and request, throws when it was seen with another, and otherwise runs `body`
    /// and stores its answer.
    static func once<R: Codable>(
        _ connection: any SQLConnection, key: IdempotencyKey, operation: String, request: String,
        now: Int64, _ body: () throws -> R
    ) throws -> R {
        // The key's turn first: a replay arriving while the first call still runs waits for
        // it and then finds its answer, where (under row locks) it would otherwise run the
        // body against the state the first call left and answer differently.
        try connection.takeTurn("idempotency:" + key.rawValue)
        if let answer = try stored(R.self, connection, key: key, operation: operation, request: request) { return answer }
        let answer = try body()
        try store(answer, connection, key: key, operation: operation, requestHash: hash(operation + "\n" + request), now: now)
        return answer
    }

    /// The stored answer for `key`, or nil when the key is new.
    /// - Throws: ``ServiceError/idempotencyKeyReused(_:)`` when the key came with another
    ///   operation or request.
    static func stored<R: Decodable>(_ type: R.Type, _ connection: any SQLConnection, key: IdempotencyKey,
                                     operation: String, request: String) throws -> R? {
        guard let record = try answer(connection, key: key) else { return nil }
        guard record.operation == operation, record.requestHash == hash(operation + "\n" + request) else {
            throw ServiceError.idempotencyKeyReused(key.rawValue)
        }
        return try decode(type, record.response)
    }

    /// The stored answer for `key` whatever the request was: for a step that continues a call
    /// already checked (a gateway's callback finishing a refill).
    static func stored<R: Decodable>(_ type: R.Type, _ connection: any SQLConnection, key: IdempotencyKey) throws -> R? {
        try answer(connection, key: key).map { try decode(type, $0.response) }
    }

    // The statements of the idempotency table, in one place.

    private static func answer(_ connection: any SQLConnection, key: IdempotencyKey) throws -> StoredAnswer? {
        try connection.fetchOne(StoredAnswer.self, "SELECT operation, request_hash, response FROM idempotency WHERE key = \(key.rawValue)")
    }

    /// Deletes the answers stored before `cutoff`; returns how many.
    static func purge(_ connection: any SQLConnection, before cutoff: Int64) throws -> Int {
        try connection.execute("DELETE FROM idempotency WHERE created_ms < \(cutoff)")
    }

    /// Stores the first answer for `key`, in the caller's transaction.
    static func store<R: Encodable>(_ answer: R, _ connection: any SQLConnection, key: IdempotencyKey, operation: String,
                                    requestHash: String, now: Int64) throws {
        let response = try encode(answer)
        try connection.execute("""
            INSERT INTO idempotency (key, operation, request_hash, response, created_ms)
            VALUES (\(key.rawValue), \(operation), \(requestHash), \(response), \(now))
            """)
    }

    /// An answer as stored, with what it answered.
    struct StoredAnswer: Decodable {
        let operation: String
        let requestHash: String
        let response: String
        enum CodingKeys: String, CodingKey { case operation, requestHash = "request_hash", response }
    }

    static func hash(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func encode<R: Encodable>(_ value: R) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<R: Decodable>(_ type: R.Type, _ text: String) throws -> R {
        do { return try JSONDecoder().decode(type, from: Data(text.utf8)) }
        catch { throw StoreError.decoding(column: "idempotency.response", expected: "\(type)") }
    }
}
