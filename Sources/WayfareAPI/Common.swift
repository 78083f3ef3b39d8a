import Foundation
import Geodesy
import Services
import TaxiDispatch

/// A point on the wire: `{"lat": degrees, "lon": degrees}`.
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

/// A GeoJSON LineString: `coordinates` are `[lon, lat]` pairs.
public struct LineString: Codable, Sendable, Equatable {
    /// Always `LineString`.
    public var type: String
    /// The points, longitude first.
    public var coordinates: [[Double]]

    /// The line through `points`.
    public init(_ points: [Coordinate]) {
        type = "LineString"
        coordinates = points.map { [$0.longitude, $0.latitude] }
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
