import Foundation
import GeoJSON

/// The OpenAPI 3.1 document of the API, written from ``Endpoint/all`` and the types their
/// bodies name: the one description of the wire, served at `/openapi.json`, which the
/// fuzzer and schemathesis read.
public enum OpenAPIDocument {
    /// The document as JSON text.
    /// - Throws: ``WireError`` when a request field states no rule (a programming error a
    ///   test catches).
    public static func text(_ endpoints: [Endpoint] = Endpoint.all) throws(WireError) -> String {
        try document(endpoints).serialized
    }

    /// The document.
    public static func document(_ endpoints: [Endpoint] = Endpoint.all) throws(WireError) -> JSONValue {
        let errorSchema = try WireSchema.of(ErrorAnswer.self, request: false)
        func error(_ description: String) -> JSONValue {
            .object([("description", .string(description)),
                     ("content", .object([("application/json", .object([("schema", errorSchema)]))]))])
        }
        let meanings: [Int: String] = [
            400: "bad input, naming the field", 401: "no valid bearer token (or, for callbacks, signature)", 403: "the caller's role may not",
            404: "not found, or not the caller's", 405: "method not allowed", 409: "the state forbids it", 413: "body over 64 KiB",
            422: "cannot be done as asked", 429: "too many requests from this client", 500: "internal error; the log has it under the request id",
            503: "the store is unavailable, or no replica owns the city yet; retry",
        ]
        var paths: [(String, [(String, JSONValue)])] = []
        for endpoint in endpoints {
            var operation: [(String, JSONValue)] = [("summary", .string(endpoint.summary)), ("tags", .array([.string(endpoint.tag)])),
                                                     ("operationId", .string(operationID(endpoint)))]
            if !endpoint.parameters.isEmpty {
                operation.append(("parameters", .array(endpoint.parameters.map { p in
                    .object([("name", .string(p.name)), ("in", .string(p.location.rawValue)), ("required", .bool(p.required)),
                             ("description", .string(p.description)), ("schema", p.schema)])
                })))
            }
            if let body = endpoint.request {
                operation.append(("requestBody", .object([("required", .bool(true)),
                                                          ("content", .object([("application/json", .object([("schema", try body.schema(true))]))]))])))
            }
            var responses: [(String, JSONValue)] = []
            for answer in endpoint.answers {
                var fields: [(String, JSONValue)] = [("description", .string(answer.description))]
                if let body = answer.body, let other = answer.otherBody {
                    let either: JSONValue = .object([("oneOf", .array([try body.schema(false), try other.schema(false)]))])
                    fields.append(("content", .object([("application/json", .object([("schema", either)]))])))
                } else if let body = answer.body {
                    fields.append(("content", .object([("application/json", .object([("schema", try body.schema(false))]))])))
                } else if let media = answer.mediaType {
                    let schema: JSONValue = media.hasSuffix("json") ? .object([("type", .string("object"))]) : .object([("type", .string("string"))])
                    fields.append(("content", .object([(media, .object([("schema", schema)]))])))
                }
                responses.append((String(answer.status), .object(fields)))
            }
            var statuses = Set([400, 405, 429, 500, 503] + endpoint.failures)
            if endpoint.request != nil { statuses.insert(413) }
            if case .role = endpoint.access { statuses.formUnion([401, 403]) }
            if endpoint.access == .signedIn { statuses.formUnion([401, 403]) }
            for status in statuses.sorted() where !endpoint.answers.contains(where: { $0.status == status }) {
                responses.append((String(status), error(meanings[status] ?? "error")))
            }
            operation.append(("responses", .object(responses)))
            switch endpoint.access {
            case .role, .signedIn: operation.append(("security", .array([.object([("bearer", .array([]))])])))
            case .anyone, .gateway: break
            }
            let method = endpoint.method.rawValue.lowercased()
            if let i = paths.firstIndex(where: { $0.0 == endpoint.path }) { paths[i].1.append((method, .object(operation))) }
            else { paths.append((endpoint.path, [(method, .object(operation))])) }
        }
        return .object([
            ("openapi", .string("3.1.0")),
            ("info", .object([("title", .string("Wayfare")), ("version", .string("1.0.0")),
                              ("description", .string("The HTTP JSON API of one city: the engine (zones, routes, ETAs, cabs, geocoding, fares) and the services (accounts, wallet, favourites, bookings, ride requests, the driver's side). Money is in minor units of the city's currency. Written from the same Swift types the server reads and writes."))])),
            ("servers", .array([.object([("url", .string("/"))])])),
            ("components", .object([("securitySchemes", .object([("bearer", .object([("type", .string("http")), ("scheme", .string("bearer"))]))]))])),
            ("paths", .object(paths.map { ($0.0, .object($0.1)) })),
        ])
    }

    /// `getBookingsNumberTrack`-style ids, unique per method and path.
    static func operationID(_ endpoint: Endpoint) -> String {
        let words = endpoint.path.split(whereSeparator: { "/{}-.".contains($0) }).map(String.init)
        return endpoint.method.rawValue.lowercased() + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
