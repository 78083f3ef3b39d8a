import Foundation
import GeoJSON
import Geodesy
import Hummingbird

/// A request's JSON object, read field by field: each getter names its field in the error,
/// and ``finish()`` refuses fields nobody asked for, so a misspelt field is an error rather
/// than a silently ignored default.
struct JSONBody {
    private let members: [(String, JSONValue)]
    private var read: Set<String> = []

    /// Parses `bytes`: a JSON object, or `invalid` naming the body.
    init(_ bytes: ByteBuffer) throws(APIError) {
        let value: JSONValue
        do { value = try JSONParser.parse(Array(bytes.readableBytesView)) } catch {
            throw APIError.invalid("body", "not valid JSON: \(error.description)")
        }
        guard case let .object(members) = value else { throw APIError.invalid("body", "must be a JSON object") }
        var seen = Set<String>()
        for (key, _) in members where !seen.insert(key).inserted {
            throw APIError.invalid(key, "appears twice")
        }
        self.members = members
    }

    private mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let v = members.first(where: { $0.0 == key })?.1 else { return nil }
        if case .null = v { return nil }
        return v
    }

    mutating func string(_ key: String, maximum: Int = 1000) throws(APIError) -> String {
        guard let s = try optionalString(key, maximum: maximum) else { throw APIError.invalid(key, "is required") }
        return s
    }

    mutating func optionalString(_ key: String, maximum: Int = 1000) throws(APIError) -> String? {
        guard let v = value(key) else { return nil }
        guard case let .string(s) = v else { throw APIError.invalid(key, "must be a string") }
        guard s.unicodeScalars.count <= maximum else { throw APIError.invalid(key, "must be at most \(maximum) characters") }
        return s
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int64>) throws(APIError) -> Int64 {
        guard let n = try optionalInteger(key, in: range) else { throw APIError.invalid(key, "is required") }
        return n
    }

    mutating func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(APIError) -> Int64? {
        guard let v = value(key) else { return nil }
        // `Int64(exactly:)`, never `Int64(_:)`: a double at or past 2^63 (which is what
        // `Double(Int64.max)` rounds to) would trap, and one request would end the process.
        guard case let .number(d) = v, let n = Int64(exactly: d), range.contains(n) else {
            throw APIError.invalid(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool {
        guard let v = value(key) else { throw APIError.invalid(key, "is required") }
        guard case let .bool(b) = v else { throw APIError.invalid(key, "must be true or false") }
        return b
    }

    /// A point: `{"lat":…,"lon":…}` in degrees.
    mutating func coordinate(_ key: String) throws(APIError) -> Coordinate {
        guard let c = try optionalCoordinate(key) else { throw APIError.invalid(key, "is required") }
        return c
    }

    mutating func optionalCoordinate(_ key: String) throws(APIError) -> Coordinate? {
        guard let v = value(key) else { return nil }
        return try Self.coordinate(v, field: key)
    }

    static func coordinate(_ v: JSONValue, field: String) throws(APIError) -> Coordinate {
        guard case let .object(m) = v, m.count == 2,
              let lat = m.first(where: { $0.0 == "lat" })?.1.numberValue, let lon = m.first(where: { $0.0 == "lon" })?.1.numberValue else {
            throw APIError.invalid(field, "must be {\"lat\": degrees, \"lon\": degrees}")
        }
        do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw APIError.invalid(field, error.description) }
    }

    /// A time: an ISO 8601 string with its offset.
    mutating func optionalDate(_ key: String) throws(APIError) -> Date? {
        guard let s = try optionalString(key, maximum: 40) else { return nil }
        // With or without fractional seconds: the server writes its own times with
        // milliseconds, and a client sends them back as they came.
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let d = plain.date(from: s) ?? fractional.date(from: s) else {
            throw APIError.invalid(key, "must be an ISO 8601 time such as 2026-11-25T18:30:00Z")
        }
        return d
    }

    mutating func array(_ key: String, maximum: Int) throws(APIError) -> [JSONValue] {
        guard let v = value(key) else { throw APIError.invalid(key, "is required") }
        guard case let .array(a) = v else { throw APIError.invalid(key, "must be an array") }
        guard a.count <= maximum else { throw APIError.invalid(key, "must have at most \(maximum) items") }
        return a
    }

    /// Refuses the fields no getter asked for.
    func finish() throws(APIError) {
        if let unknown = members.first(where: { !read.contains($0.0) }) {
            throw APIError.invalid(String(unknown.0.prefix(64)), "is not a field of this request")
        }
    }
}

/// Query parameters, read with the same care.
struct Query {
    let parameters: [(String, String)]

    init(_ request: Request) {
        parameters = request.uri.queryParameters.map { (String($0.key), String($0.value)) }
    }

    func string(_ key: String) -> String? { parameters.first { $0.0 == key }?.1 }

    func coordinate(_ key: String) throws(APIError) -> Coordinate {
        guard let text = string(key) else { throw APIError.invalid(key, "is required (lat,lon in degrees)") }
        guard text.utf8.count <= 64 else { throw APIError.invalid(key, "must be lat,lon in degrees") }
        do { return try Coordinate(parsing: text) } catch { throw APIError.invalid(key, error.description) }
    }

    func optionalCoordinate(_ key: String) throws(APIError) -> Coordinate? {
        string(key) == nil ? nil : try coordinate(key)
    }

    func integer(_ key: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text = string(key) else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw APIError.invalid(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
    }
}

extension Coordinate {
    /// `{"lat":…,"lon":…}`.
    var json: JSONValue { .object([("lat", .number(latitude)), ("lon", .number(longitude))]) }
}

extension Date {
    /// ISO 8601 with milliseconds, UTC.
    var json: JSONValue {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return .string(f.string(from: self))
    }
}
