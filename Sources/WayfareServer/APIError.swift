import Essentials
import Foundation
import GeoJSON
import Hummingbird
import Services
import Storage
import WayfareAPI

/// An error as the API answers it: a status, a stable code, a message for people and, for
/// bad input, the field at fault. The body is `{"error":{"code":…,"message":…,"field":…}}`.
///
/// Nothing from inside the server reaches the message: a store failure is "the store is
/// unavailable" or "internal error", never the engine's text or SQL.
public struct APIError: Error, HTTPResponseError, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The stable code clients switch on (`invalid`, `unauthorized`, `not_found`, …).
    public var code: String
    /// One line for people.
    public var message: String
    /// The request field at fault, for `invalid`.
    public var field: String?
    /// Extra headers (`WWW-Authenticate`, `Retry-After`).
    var headers: HTTPFields = [:]

    /// An error with its parts.
    public init(_ status: HTTPResponse.Status, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    /// Bad input: 400 `invalid`, naming the field.
    public static func invalid(_ field: String, _ reason: String) -> APIError {
        APIError(.badRequest, code: "invalid", message: "\(field): \(reason)", field: field)
    }

    /// The answer to a service's error.
    public static func from(_ error: ServiceError) -> APIError {
        switch error {
        case let .invalid(field, reason): return .invalid(field, reason)
        case let .notFound(what): return APIError(.notFound, code: "not_found", message: "\(what) not found")
        case let .conflict(why): return APIError(.conflict, code: "conflict", message: why)
        case let .unauthorized(why):
            var e = APIError(.unauthorized, code: "unauthorized", message: why)
            e.headers[.wwwAuthenticate] = "Bearer"
            return e
        case let .suspended(until):
            return APIError(.forbidden, code: "suspended",
                            message: "the account is suspended until \(ISO8601.seconds(until))")
        case let .forbidden(why): return APIError(.forbidden, code: "forbidden", message: why)
        case let .idempotencyKeyReused(key):
            return APIError(.unprocessableContent, code: "idempotency_key_reused",
                            message: "the Idempotency-Key \(key.prefix(64)) was used with another request")
        case let .store(storeError):
            switch storeError {
            case .conflict, .unavailable, .closed:
                var e = APIError(.serviceUnavailable, code: "unavailable", message: "the store is unavailable; try again")
                e.headers[.retryAfter] = "1"
                return e
            default:
                return .internal
            }
        }
    }

    /// 500 with nothing of the cause in it (the log has it, under the request id).
    public static let `internal` = APIError(.internalServerError, code: "internal", message: "internal error")

    /// The response: the JSON error with its headers.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(ErrorAnswer(code: code, message: message, field: field), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
