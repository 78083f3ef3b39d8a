import Foundation
import GeoJSON
import Geodesy
import Services
import TaxiDispatch

/// A point on the wire: `{"lat": degrees, "lon": degrees}`, written as given (the shortest
/// form that reads back as the same `Double`): a pickup or a report comes back exactly as it
/// was sent, so a driver is sent to the very point the passenger chose. Computed lines
/// (``LineString``) are rounded to 7 decimals instead.
public struct LatLon: Codable, Sendable, Equatable {
    /// Degrees north, −90 to 90.
    public var lat: Double
    /// Degrees east, −180 to 180.
    public var lon: Double

    /// A point from its degrees.
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }

    /// The wire form of `coordinate`.
    public init(_ coordinate: Coordinate) { self.init(lat: coordinate.latitude, lon: coordinate.longitude) }

    /// The point as the engine's coordinate (the rules already hold the degrees in range).
    public var coordinate: Coordinate {
        get throws(WireError) {
            do { return try Coordinate(latitude: lat, longitude: lon) } catch { throw WireError("lat", error.description) }
        }
    }

    enum CodingKeys: String, WireKey {
        case lat, lon
        var rule: FieldRule { self == .lat ? .number(-90...90) : .number(-180...180) }
    }
}

/// `degrees` rounded to 7 decimals (about 1 cm): how the API writes computed coordinates
/// (`Coordinate.sevenDecimals`).
func degreesE7(_ degrees: Double) -> Double { Coordinate.sevenDecimals(degrees) }

/// A GeoJSON LineString: `{"type": "LineString", "coordinates": [[lon, lat], …]}`, each
/// coordinate to 7 decimals (about 1 cm).
public struct LineString: Codable, Sendable, Equatable {
    /// The points, in order.
    public var points: [Coordinate]

    /// The line through `points`.
    public init(_ points: [Coordinate]) { self.points = points }

    enum CodingKeys: String, CodingKey { case type, coordinates }
    /// The one geometry type a line has.
    enum Kind: String, WireChoice { case lineString = "LineString" }

    /// Reads the GeoJSON form; a position must be two numbers in range.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        _ = try c.decode(Kind.self, forKey: .type)
        points = try c.decode([Position].self, forKey: .coordinates).map(\.coordinate)
    }

    /// A GeoJSON position, `[lon, lat]` (an altitude after them is allowed and ignored, as
    /// RFC 7946 says).
    struct Position: Decodable {
        let coordinate: Coordinate
        init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            let lon = try pair.decode(Double.self), lat = try pair.decode(Double.self)
            do { coordinate = try Coordinate(latitude: lat, longitude: lon) } catch { throw WireError("coordinates", error.description) }
        }
    }

    /// Writes the GeoJSON form, coordinates rounded to 7 decimals (the same text the wire
    /// encoder writes directly).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("LineString", forKey: .type)
        try c.encode(points.map { [degreesE7($0.longitude), degreesE7($0.latitude)] }, forKey: .coordinates)
    }

    /// The GeoJSON form, written straight into `out`.
    func write(to out: inout JSONWriter) {
        out.raw(#"{"type":"LineString","coordinates":["#)
        for (i, p) in points.enumerated() {
            out.raw(i == 0 ? "[" : ",[")
            out.fixed(p.longitude, decimals: 7)
            out.byte(UInt8(ascii: ","))
            out.fixed(p.latitude, decimals: 7)
            out.byte(UInt8(ascii: "]"))
        }
        out.raw("]}")
    }
}

/// An error answer: `{"error": {"code", "message", "field"}}`.
public struct ErrorAnswer: Codable, Sendable, Equatable {
    /// The error.
    public var error: Detail

    /// What went wrong.
    public struct Detail: Codable, Sendable, Equatable {
        /// The stable code clients switch on (`invalid`, `unauthorized`, `not_found`, …).
        public var code: String
        /// One line for people.
        public var message: String
        /// The request field at fault, for `invalid`.
        public var field: String?

        /// An error's parts.
        public init(code: String, message: String, field: String?) {
            self.code = code
            self.message = message
            self.field = field
        }
    }

    /// An error answer.
    public init(code: String, message: String, field: String? = nil) { error = Detail(code: code, message: message, field: field) }
}

/// The limits of fields shared by several requests, each stated once.
public enum Limits {
    /// A mobile number as typed (ten digits, with spaces or dashes).
    public static let mobile = FieldRule.text(maximum: 32, minimum: 1)
    /// An e-mail address (RFC 5321's 254).
    public static let email = FieldRule.text(maximum: 254, minimum: 1)
    /// A password, new or old.
    public static let password = FieldRule.text(maximum: PasswordPolicy.maximumLength, minimum: 1)
    /// A cab's id or type name.
    public static let cabName = FieldRule.text(maximum: 64, minimum: 1)
    /// Seats asked for, or a cab's seats.
    public static let seats = FieldRule.integer(1...50)
    /// A client's own id for a request it may replay.
    public static let clientID = FieldRule.text(maximum: 100, minimum: 1)
    /// An amount of money in minor units from a passenger (a fare offered, a refill).
    public static let amount = FieldRule.integer(1...10_000_000)
}

extension BookingState: WireChoice {}
extension PaymentMethod: WireChoice {}
extension Booking.Kind: WireChoice {}
extension Role: WireChoice {}
extension RideRequestStatus: WireChoice {}
