import Essentials
import Foundation
import Storage

/// Why a service refused or failed a call: one typed error for every service.
///
/// Rules of the specifications (a booking too soon, a balance too low, a wrong password)
/// are cases of their own with the field or reason named; a failure of the store arrives as
/// ``store(_:)``. Messages never hold a password, a token or an SQL text.
public enum ServiceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A value the caller gave is not acceptable: the field and why.
    case invalid(field: String, reason: String)
    /// No such thing, or not the caller's: the kind and id ("booking 123456").
    case notFound(String)
    /// The thing is in a state that forbids the call ("booking 123456 is already cancelled").
    case conflict(String)
    /// Wrong credentials, or a session or token that is unknown, expired or used.
    case unauthorized(String)
    /// Too many failed attempts: the account is suspended until this time.
    case suspended(until: Date)
    /// The caller's role may not do this.
    case forbidden(String)
    /// An idempotency key came back with a different request than the first time.
    case idempotencyKeyReused(String)
    /// The store failed; nothing of the call was applied.
    case store(StoreError)

    /// One line for logs and users.
    public var description: String {
        switch self {
        case .invalid(let field, let reason): return "\(field): \(reason)"
        case .notFound(let what): return "\(what) not found"
        case .conflict(let why): return why
        case .unauthorized(let why): return why
        case .suspended(let until):
            return "account suspended until \(ISO8601.seconds(until)) after 3 failed attempts"
        case .forbidden(let why): return why
        case .idempotencyKeyReused(let key):
            return "idempotency key \(key) was already used for a different request"
        case .store(let error): return error.description
        }
    }
}

/// Runs `work`, passing ``ServiceError`` through and wrapping everything else, so that every
/// public entry point throws one typed error.
@discardableResult
package func serviceCall<T>(_ work: () async throws -> T) async throws(ServiceError) -> T {
    do {
        return try await work()
    } catch let error as ServiceError {
        throw error
    } catch let error as StoreError {
        throw .store(error)
    } catch let error as MigrationListError {
        throw .store(.statement(error.description))
    } catch {
        throw .store(.statement("\(error)"))
    }
}

/// Milliseconds since 1970, the unit every stored time uses (an integer on both engines).
///
/// Never traps: a time past about 146 million years either side of 1970 (or NaN, which a
/// `Date` can hold) is clamped to ±2^62 ms, which leaves room to add durations to it.
func milliseconds(_ date: Date) -> Int64 {
    let limit: Int64 = 1 << 62
    guard let ms = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded(.down)) else {
        return date.timeIntervalSince1970 > 0 ? limit : -limit
    }
    return min(max(ms, -limit), limit)
}

/// The date of a stored time.
func date(milliseconds ms: Int64) -> Date {
    Date(timeIntervalSince1970: Double(ms) / 1000)
}
