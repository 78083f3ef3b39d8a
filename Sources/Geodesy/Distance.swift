import Foundation

/// The spherical Earth used for fast distances: the IUGG mean radius.
///
/// Which distance to use: `haversine` (this file) is within 0.5 % of the true ellipsoidal
/// distance everywhere and costs a few nanoseconds; rank and filter with it. Where metres
/// matter to a person (a fare's distance, a reported snap distance, the 150 m favourite
/// rule in a dispute), use ``WGS84/distance(from:to:)`` here (Vincenty, pure Swift, for
/// points not nearly antipodal) or `Geodesic.wgs84.distance` in the Projection module
/// (PROJ, exact everywhere).
public enum Earth {
    /// Mean Earth radius R1 = (2a + b) / 3, in metres.
    public static let meanRadius: Double = 6_371_008.8
}

@usableFromInline let degreesToRadians = Double.pi / 180

extension Coordinate {
    /// Great-circle distance in metres on the mean sphere (haversine formula).
    @inlinable
    public func distance(to other: Coordinate) -> Double {
        let φ1 = latitude * degreesToRadians, φ2 = other.latitude * degreesToRadians
        let dφ = φ2 - φ1
        let dλ = (other.longitude - longitude) * degreesToRadians
        let s = sin(dφ / 2), t = sin(dλ / 2)
        let h = s * s + cos(φ1) * cos(φ2) * t * t
        return 2 * Earth.meanRadius * asin(min(1, h.squareRoot()))
    }

    /// Initial bearing from this point towards `other`, in degrees clockwise from north, in [0, 360).
    public func initialBearing(to other: Coordinate) -> Double {
        let φ1 = latitude * degreesToRadians, φ2 = other.latitude * degreesToRadians
        let dλ = (other.longitude - longitude) * degreesToRadians
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let θ = atan2(y, x) / degreesToRadians
        let b = (θ + 360).truncatingRemainder(dividingBy: 360)
        return b == 360 ? 0 : b
    }

    /// The point reached by travelling `distance` metres along a great circle from here
    /// with the given initial bearing (degrees). The longitude is wrapped to [-180, 180].
    public func destination(bearing: Double, distance: Double) -> Coordinate {
        let δ = distance / Earth.meanRadius
        let θ = bearing * degreesToRadians
        let φ1 = latitude * degreesToRadians, λ1 = longitude * degreesToRadians
        let sinφ2 = sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ)
        let φ2 = asin(max(-1, min(1, sinφ2)))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sinφ2)
        var lon = λ2 / degreesToRadians
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        if lon < -180 { lon += 360 }
        return Coordinate(unchecked: max(-90, min(90, φ2 / degreesToRadians)), lon)
    }
}
