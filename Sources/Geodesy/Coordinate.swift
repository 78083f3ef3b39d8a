/// Why a latitude/longitude pair was refused.
public enum CoordinateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A NaN or infinite number.
    case notFinite(latitude: Double, longitude: Double)
    /// A latitude outside [-90, 90].
    case latitudeOutOfRange(Double)
    /// A longitude outside [-180, 180].
    case longitudeOutOfRange(Double)

    /// The reason in one line.
    public var description: String {
        switch self {
        case let .notFinite(lat, lon): "coordinate is not finite (lat \(lat), lon \(lon))"
        case let .latitudeOutOfRange(lat): "latitude \(lat) is outside [-90, 90]"
        case let .longitudeOutOfRange(lon): "longitude \(lon) is outside [-180, 180]"
        }
    }
}

/// A validated WGS84 position in degrees: finite, latitude in [-90, 90], longitude in [-180, 180].
///
/// The stored order is latitude then longitude, the way people say it; every C library
/// boundary (PROJ, GEOS, GeoJSON) uses x = longitude, y = latitude, and converts there.
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
    /// Degrees north, in [-90, 90].
    public let latitude: Double
    /// Degrees east, in [-180, 180].
    public let longitude: Double

    /// Validates and stores a position; anything not on the globe is a typed error.
    @inlinable
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite, longitude.isFinite else {
            throw .notFinite(latitude: latitude, longitude: longitude)
        }
        guard (-90.0...90.0).contains(latitude) else { throw .latitudeOutOfRange(latitude) }
        guard (-180.0...180.0).contains(longitude) else { throw .longitudeOutOfRange(longitude) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already known to be valid (constants, data read back from Wayfare's own files).
    /// Checked in debug builds only.
    @inlinable
    public init(unchecked latitude: Double, _ longitude: Double) {
        assert(latitude.isFinite && abs(latitude) <= 90 && longitude.isFinite && abs(longitude) <= 180)
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Parses `"lat,lon"` as typed on a command line.
    public init(parsing text: some StringProtocol) throws(CoordinateError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lat = Double(Substring(parts[0]).trimmingSpaces), let lon = Double(Substring(parts[1]).trimmingSpaces)
        else { throw .notFinite(latitude: .nan, longitude: .nan) }
        try self.init(latitude: lat, longitude: lon)
    }

    /// "latitude,longitude".
    public var description: String { "\(latitude),\(longitude)" }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}

extension Coordinate {
    /// `degrees` rounded to 7 decimals (about 1 cm on the ground, OSM's own precision): how
    /// Wayfare writes the coordinates it computes (routes, tracks, snapped points). A value
    /// that is not finite comes back as it is. The one definition of that rounding.
    public static func sevenDecimals(_ degrees: Double) -> Double {
        let scaled = (degrees * 1e7).rounded()
        return scaled.isFinite ? scaled / 1e7 : degrees
    }
}
