import Foundation
import GeoJSON
import Geodesy
import Hummingbird
import HummingbirdCore
import NIOCore
import Services
import WayfareAPI

/// Reads the bearer token once for the routes below it: a live session puts its user in
/// ``WayfareContext/identity``; a token that is no session leaves the identity empty and
/// notes why, for the routes that need one (anonymous routes ignore it).
struct AuthenticationMiddleware: RouterMiddleware {
    typealias Context = WayfareContext
    let accounts: Accounts

    func handle(_ request: Request, context: WayfareContext, next: (Request, WayfareContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else { return try await next(request, context) }
        var context = context
        do {
            let token = try bearerToken(header)
            context.identity = try await accounts.authenticate(token)
            context.sessionToken = token
        } catch let error as APIError {
            context.authenticationFailure = error
        } catch let error as ServiceError {
            // The store being away is not "you are signed out".
            if case .store = error { throw error }
            context.authenticationFailure = APIError.from(error)
        }
        return try await next(request, context)
    }
}

/// The token of an `Authorization: Bearer …` header.
func bearerToken(_ header: String) throws(APIError) -> String {
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty, parts[1].utf8.count <= 256 else {
        throw APIError.from(.unauthorized("the Authorization header must be Bearer and a token"))
    }
    return String(parts[1])
}

extension RouteCollection where Context: AccessContext {
    /// Adds the route of `endpoint` (its path below `/v1`, where controllers are mounted).
    ///
    /// The endpoint's access must be the collection's: a passenger's route in an admin's
    /// collection is a mistake found when the server builds its router, not by a caller.
    @discardableResult
    func on(_ endpoint: Endpoint, use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator) -> Self {
        precondition(endpoint.access == Context.access || (endpoint.access == .gateway && Context.access == .anyone),
                     "\(endpoint.method.rawValue) \(endpoint.path) is for \(endpoint.access), mounted for \(Context.access)")
        let path = endpoint.routerPath.hasPrefix("/v1/") ? String(endpoint.routerPath.dropFirst(3)) : endpoint.routerPath
        return on(RouterPath(path), method: HTTPRequest.Method(rawValue: endpoint.method.rawValue)!, use: handler)
    }
}

extension Request {
    /// The body as `T`, read strictly (``WireDecoder/requests``): 400 naming the field for
    /// anything the type does not allow, 413 past ``WayfareServer/maximumBodyBytes``.
    func decode<T: Decodable>(_ type: T.Type) async throws -> T {
        var request = self
        let bytes: ByteBuffer
        do { bytes = try await request.collectBody(upTo: WayfareServer.maximumBodyBytes) } catch {
            throw APIError(.contentTooLarge, code: "too_large", message: "the body is larger than \(WayfareServer.maximumBodyBytes) bytes")
        }
        do { return try WireDecoder.requests.decode(type, from: bytes.readableBytesView) } catch { throw APIError.invalid(error) }
    }

    /// A query or header parameter's text, checked by its definition.
    func parameter(_ parameter: Parameter) throws(APIError) -> String? {
        let raw: String?
        switch parameter.location {
        case .header: raw = headers[.init(parameter.name)!]
        default: return try query.parameter(parameter)
        }
        do { return try parameter.text(raw) } catch { throw APIError.invalid(error) }
    }

    /// The query, parsed once for a handler that reads several of its parameters (each
    /// `uri.queryParameters` parses the whole query again).
    var query: Query { Query(values: uri.queryParameters) }

    /// A query parameter as a point.
    func coordinate(_ parameter: Parameter) throws(APIError) -> Coordinate? { try query.coordinate(parameter) }

    /// A query parameter as a whole number.
    func integer(_ parameter: Parameter) throws(APIError) -> Int64? { try query.integer(parameter) }

    /// The `Idempotency-Key` header: required on every call that books or moves money, so
    /// that a retried request has the effect of one.
    func idempotencyKey() throws(APIError) -> IdempotencyKey {
        guard let text = headers[.init(Parameter.idempotencyKey.name)!] else {
            throw APIError.invalid(Parameter.idempotencyKey.name, "the header is required on this call (any unique string of up to 100 characters)")
        }
        do { return try IdempotencyKey(text) } catch { throw APIError.from(error) }
    }
}

extension RequestContext {
    /// A path parameter as a whole number in its definition's range.
    func integer(_ parameter: Parameter) throws(APIError) -> Int64 {
        do throws(WireError) {
            guard let n = try parameter.integer(parameters.get(parameter.name)) else { throw WireError(parameter.name, "is required") }
            return n
        } catch { throw APIError.invalid(error) }
    }

    /// A path parameter as an `Int` (booking numbers).
    func int(_ parameter: Parameter) throws(APIError) -> Int {
        guard let n = Int(exactly: try integer(parameter)) else { throw APIError.invalid(parameter.name, "is out of range") }
        return n
    }
}

/// A request's query parameters, parsed, each read and checked by its definition.
struct Query {
    let values: FlatDictionary<Substring, Substring>

    /// A parameter's text, checked.
    func parameter(_ parameter: Parameter) throws(APIError) -> String? {
        do throws(WireError) { return try parameter.text(values.get(parameter.name)) } catch { throw APIError.invalid(error) }
    }

    /// A parameter as a point.
    func coordinate(_ parameter: Parameter) throws(APIError) -> Coordinate? {
        do throws(WireError) { return try parameter.coordinate(values.get(parameter.name)) } catch { throw APIError.invalid(error) }
    }

    /// A parameter as a whole number.
    func integer(_ parameter: Parameter) throws(APIError) -> Int64? {
        do throws(WireError) { return try parameter.integer(values.get(parameter.name)) } catch { throw APIError.invalid(error) }
    }
}

extension APIError {
    /// 400 for what the wire decoder refused.
    static func invalid(_ error: WireError) -> APIError { .invalid(error.field, error.reason) }
}

/// JSON answers, written by ``WireEncoder`` from the API's types straight into the body.
enum JSONResponse {
    /// `value` as a JSON answer; `capacity` is a guess at its size in bytes, so the body's
    /// storage is reserved once.
    static func make<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, capacity: Int = 256) -> Response {
        make(bytes: WireEncoder.bytes(value, capacity: capacity), status: status)
    }

    /// JSON already written, as an answer.
    static func make(bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
