import Foundation

/// Distances on the WGS84 ellipsoid in pure Swift, for short distances where metres are
/// argued over (the 150 m favourite rule).
///
/// Vincenty's inverse formula (1975): it converges in a few iterations for any two points
/// that are not nearly antipodal, and is accurate to well under a millimetre there; the
/// tests compare it with PROJ's `geod_inverse` (Karney's algorithm) on thousands of pairs.
/// For nearly antipodal points, where the iteration may not converge, it answers nil and
/// the caller decides (PROJ's `Geodesic` in the Projection module is exact everywhere).
public enum WGS84 {
    /// The semi-major axis, metres.
    public static let a = 6_378_137.0
    /// The flattening.
    public static let f = 1 / 298.257_223_563
    /// The semi-minor axis, metres.
    public static let b = a * (1 - f)

    /// The ellipsoidal distance in metres from `p` to `q`, or nil when the iteration does
    /// not converge (nearly antipodal points).
    public static func distance(from p: Coordinate, to q: Coordinate) -> Double? {
        var L = (q.longitude - p.longitude) * degreesToRadians
        // The shorter way round.
        if L > .pi { L -= 2 * .pi } else if L < -.pi { L += 2 * .pi }
        let U1 = atan((1 - f) * tan(p.latitude * degreesToRadians))
        let U2 = atan((1 - f) * tan(q.latitude * degreesToRadians))
        let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
        var λ = L
        var sinσ = 0.0, cosσ = 0.0, σ = 0.0, cos2α = 0.0, cos2σm = 0.0
        var converged = false
        for _ in 0..<200 {
            let sinλ = sin(λ), cosλ = cos(λ)
            let t1 = cosU2 * sinλ, t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosλ
            sinσ = (t1 * t1 + t2 * t2).squareRoot()
            if sinσ == 0 { return 0 }  // the same point
            cosσ = sinU1 * sinU2 + cosU1 * cosU2 * cosλ
            σ = atan2(sinσ, cosσ)
            let sinα = cosU1 * cosU2 * sinλ / sinσ
            cos2α = 1 - sinα * sinα
            // On the equator cos²α is 0 and the term vanishes.
            cos2σm = cos2α != 0 ? cosσ - 2 * sinU1 * sinU2 / cos2α : 0
            let C = f / 16 * cos2α * (4 + f * (4 - 3 * cos2α))
            let previous = λ
            λ = L + (1 - C) * f * sinα * (σ + C * sinσ * (cos2σm + C * cosσ * (-1 + 2 * cos2σm * cos2σm)))
            if abs(λ - previous) < 1e-12 { converged = true; break }
        }
        guard converged else { return nil }
        let u2 = cos2α * (a * a - b * b) / (b * b)
        let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
        let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
        let Δσ = B * sinσ * (cos2σm + B / 4 * (cosσ * (-1 + 2 * cos2σm * cos2σm)
            - B / 6 * cos2σm * (-3 + 4 * sinσ * sinσ) * (-3 + 4 * cos2σm * cos2σm)))
        return b * A * (σ - Δσ)
    }
}
