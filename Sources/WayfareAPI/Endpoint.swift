import Foundation
import GeoJSON
import Geodesy
import Services

/// One operation of the HTTP API: its method and path, who may call it, its parameters, the
/// body it reads and the answers it gives. The server mounts its routes from these, the
/// OpenAPI document is written from them, and clients call through them.
public struct Endpoint: Sendable {
    /// The HTTP method.
    public enum Method: String, Sendable { case get = "GET", post = "POST", patch = "PATCH", delete = "DELETE" }

    /// Who may call.
    public enum Access: Sendable, Equatable {
        /// Anyone, signed in or not (a signed-in admin may see more).
        case anyone
        /// Any signed-in user.
        case signedIn
        /// A signed-in user of this role.
        case role(Role)
        /// The payment gateway, with a signature.
        case gateway
    }

    /// The method.
    public let method: Method
    /// The path, with `{name}` for each path parameter (OpenAPI's form).
    public let path: String
    /// One line on what it does.
    public let summary: String
    /// The document's group (`bookings`, `drivers`, …).
    public let tag: String
    /// Who may call.
    public let access: Access
    /// Path, query and header parameters.
    public let parameters: [Parameter]
    /// The JSON body it reads, if any.
    public let request: Body?
    /// Its answers on success.
    public let answers: [Answer]
    /// The error statuses it may give besides those every call may (400, 405, 413, 429,
    /// 500, 503, and 401/403 when signed in).
    public let failures: [Int]

    /// An endpoint from its parts.
    public init(_ method: Method, _ path: String, _ summary: String, tag: String, access: Access = .anyone, parameters: [Parameter] = [],
                request: Body? = nil, answers: [Answer], failures: [Int] = []) {
        self.method = method; self.path = path; self.summary = summary; self.tag = tag; self.access = access
        self.parameters = parameters; self.request = request; self.answers = answers; self.failures = failures
    }

    /// The path in Hummingbird's form (`/v1/bookings/:number`).
    public var routerPath: String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? ":" + part.dropFirst().dropLast() : String(part)
        }.joined(separator: "/")
    }

    /// Whether the call must carry an `Idempotency-Key`.
    public var isIdempotent: Bool { parameters.contains { $0.name == Parameter.idempotencyKey.name } }

    /// A JSON body type, by its schema.
    public struct Body: Sendable {
        /// The Swift type's name.
        public let name: String
        /// The type's schema as a request (`true`) or an answer.
        public let schema: @Sendable (_ request: Bool) throws(WireError) -> JSONValue

        /// Reads JSON bytes strictly as the type, as the server does (for tests and tools
        /// that hold only the endpoint).
        public let read: @Sendable (_ bytes: [UInt8]) throws(WireError) -> Void

        /// The body of type `T`.
        public init<T: Decodable & Sendable>(_ type: T.Type) {
            name = String(describing: T.self)
            schema = { request throws(WireError) in try WireSchema.of(T.self, request: request) }
            read = { bytes throws(WireError) in _ = try WireDecoder.requests.decode(T.self, from: bytes) }
        }
    }

    /// An answer on success.
    public struct Answer: Sendable {
        /// The status.
        public let status: Int
        /// What it means.
        public let description: String
        /// The JSON body, if the answer is JSON.
        public let body: Body?
        /// The media type of a body that is not one of the API's JSON types.
        public let mediaType: String?
        /// The other JSON body the same status may carry, chosen by a parameter of the call
        /// (the document says `oneOf` the two).
        public var otherBody: Body? = nil

        /// A JSON answer of type `T`.
        public static func json<T: Decodable & Sendable>(_ status: Int, _ description: String, _ type: T.Type) -> Answer {
            Answer(status: status, description: description, body: Body(type), mediaType: nil)
        }

        /// A JSON answer of type `T`, or of type `U` when the call asks for it.
        public static func json<T: Decodable & Sendable, U: Decodable & Sendable>(_ status: Int, _ description: String, _ type: T.Type,
                                                                                  or other: U.Type) -> Answer {
            Answer(status: status, description: description, body: Body(type), mediaType: nil, otherBody: Body(other))
        }

        /// An answer with no body.
        public static func empty(_ status: Int, _ description: String) -> Answer {
            Answer(status: status, description: description, body: nil, mediaType: nil)
        }

        /// An answer of another media type (`text/html`, `application/geo+json`, …).
        public static func media(_ status: Int, _ description: String, _ mediaType: String) -> Answer {
            Answer(status: status, description: description, body: nil, mediaType: mediaType)
        }
    }
}

/// A path, query or header parameter, with its rule.
public struct Parameter: Sendable {
    /// Where it is sent.
    public enum Location: String, Sendable { case path, query, header }

    /// What it holds.
    public enum Kind: Sendable, Equatable {
        /// `lat,lon` in degrees.
        case coordinate
        /// A whole number in a range.
        case integer(ClosedRange<Int64>)
        /// Text of at most `maximum` characters.
        case text(maximum: Int)
        /// One of these words.
        case choice([String])
    }

    /// The name.
    public let name: String
    /// Where it is sent.
    public let location: Location
    /// Whether it must be sent.
    public let required: Bool
    /// What it means.
    public let description: String
    /// What it holds.
    public let kind: Kind

    /// A parameter from its parts.
    public init(_ name: String, in location: Location, required: Bool, _ description: String, _ kind: Kind) {
        self.name = name; self.location = location; self.required = required; self.description = description; self.kind = kind
    }

    /// The parameter's text, checked against its kind: nil when absent and not required.
    /// - Throws: ``WireError`` naming the parameter.
    public func text(_ value: String?) throws(WireError) -> String? {
        guard let value else {
            if required { throw WireError(name, "is required\(kind == .coordinate ? " (lat,lon in degrees)" : "")") }
            return nil
        }
        switch kind {
        case .text(let maximum):
            guard value.unicodeScalars.count <= maximum else { throw WireError(name, "must be at most \(maximum) characters") }
            if required && value.isEmpty { throw WireError(name, "is required") }
        case .choice(let words):
            guard words.contains(value) else { throw WireError(name, "must be \(words.joined(separator: " or "))") }
        case .coordinate, .integer:
            guard value.utf8.count <= 64 else { throw WireError(name, "is too long") }
        }
        return value
    }

    /// The parameter as a point.
    public func coordinate(_ value: String?) throws(WireError) -> Coordinate? {
        guard let text = try text(value) else { return nil }
        do { return try Coordinate(parsing: text) } catch { throw WireError(name, error.description) }
    }

    /// The parameter as a whole number in its range.
    public func integer(_ value: String?) throws(WireError) -> Int64? {
        guard let text = try text(value) else { return nil }
        guard case let .integer(range) = kind, let n = Int64(text), range.contains(n) else {
            if case let .integer(range) = kind {
                throw WireError(name, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            throw WireError(name, "must be a whole number")
        }
        return n
    }

    /// The parameter's JSON Schema.
    var schema: JSONValue {
        switch kind {
        case .coordinate:
            return .object([("type", .string("string")), ("pattern", .string(#"^-?[0-9]{1,2}(\.[0-9]{1,7})?,-?[0-9]{1,3}(\.[0-9]{1,7})?$"#))])
        case .integer(let range):
            return .object([("type", .string("integer")), ("minimum", .number(Double(range.lowerBound))),
                            ("maximum", .number(Double(range.upperBound)))])
        case .text(let maximum):
            var fields: [(String, JSONValue)] = [("type", .string("string")), ("maxLength", .number(Double(maximum)))]
            if required { fields.append(("minLength", .number(1))) }
            return .object(fields)
        case .choice(let words):
            return .object([("type", .string("string")), ("enum", .array(words.map { .string($0) }))])
        }
    }
}

extension Endpoint.Access: CustomStringConvertible {
    /// Who, in words (`passengers`, `any signed-in user`).
    public var description: String {
        switch self {
        case .anyone: "anyone"
        case .signedIn: "any signed-in user"
        case .role(let role): "\(role.rawValue)s"
        case .gateway: "the payment gateway"
        }
    }
}
