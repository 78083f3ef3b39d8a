import CPROJ
import Geodesy

/// The answer to the inverse geodesic problem between two points.
public struct GeodesicLine: Sendable, Hashable {
    /// Ellipsoidal distance in metres.
    public let distance: Double
    /// Forward azimuth at the start and at the end, degrees clockwise from north.
    public let initialAzimuth: Double
    /// The azimuth at the second point, in degrees clockwise from north.
    public let finalAzimuth: Double
}

/// Exact distances on an ellipsoid, through PROJ's geodesic routines (Karney's algorithms,
/// `geod_inverse`, accurate to nanometres).
///
/// `Sendable`: after `geod_init` the C struct is plain read-only numbers, and every call
/// passes a pointer to a private copy, so sharing one `Geodesic` across threads is safe.
/// Use it where metres are reported or a rule is decided on them; for ranking, haversine
/// (`Coordinate.distance(to:)`) is 20× cheaper and within 0.5 %.
public struct Geodesic: Sendable {
    private let g: geod_geodesic

    /// An ellipsoid from its equatorial radius (m) and flattening.
    public init(equatorialRadius a: Double, flattening f: Double) {
        var g = geod_geodesic()
        geod_init(&g, a, f)
        self.g = g
    }

    /// The WGS84 ellipsoid.
    public static let wgs84 = Geodesic(equatorialRadius: 6_378_137, flattening: 1 / 298.257223563)

    /// Solves the inverse problem from `a` to `b`.
    public func inverse(from a: Coordinate, to b: Coordinate) -> GeodesicLine {
        var s12 = 0.0, azi1 = 0.0, azi2 = 0.0
        withUnsafePointer(to: g) { p in
            geod_inverse(p, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
        }
        return GeodesicLine(distance: s12, initialAzimuth: azi1, finalAzimuth: azi2)
    }

    /// Ellipsoidal distance in metres.
    public func distance(from a: Coordinate, to b: Coordinate) -> Double {
        inverse(from: a, to: b).distance
    }
}
