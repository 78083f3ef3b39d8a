import Foundation

/// Distance formulas written here, apart from the library, as oracles for its tests. They
/// take plain degrees so they share no type or code with `Geodesy` or `Projection`.
public enum IndependentGeodesy {
    /// Vincenty's inverse formula on the WGS84 ellipsoid (T. Vincenty, "Direct and inverse
    /// solutions of geodesics on the ellipsoid", Survey Review 1975), iterated to 1e-12 rad.
    /// Accurate to well under a millimetre for the distances tests use; nil when it does not
    /// converge (nearly antipodal points only).
    public static func vincentyMetres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double? {
        let a = 6_378_137.0, f = 1 / 298.257223563, b = a * (1 - f)
        let rad = Double.pi / 180
        let L = (lon2 - lon1) * rad
        let U1 = atan((1 - f) * tan(lat1 * rad)), U2 = atan((1 - f) * tan(lat2 * rad))
        let sinU1 = sin(U1), cosU1 = cos(U1), sinU2 = sin(U2), cosU2 = cos(U2)
        var lambda = L
        for _ in 0..<200 {
            let sinL = sin(lambda), cosL = cos(lambda)
            let sinSigma = ((cosU2 * sinL) * (cosU2 * sinL) + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) * (cosU1 * sinU2 - sinU1 * cosU2 * cosL)).squareRoot()
            if sinSigma == 0 { return 0 }
            let cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL
            let sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinL / sinSigma
            let cos2Alpha = 1 - sinAlpha * sinAlpha
            let cos2SigmaM = cos2Alpha != 0 ? cosSigma - 2 * sinU1 * sinU2 / cos2Alpha : 0
            let C = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let u2 = cos2Alpha * (a * a - b * b) / (b * b)
                let A = 1 + u2 / 16384 * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)))
                let B = u2 / 1024 * (256 + u2 * (-128 + u2 * (74 - 47 * u2)))
                let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                return b * A * (sigma - deltaSigma)
            }
        }
        return nil
    }

    /// The haversine distance on a sphere of `radius` metres (the IUGG mean radius by default).
    public static func haversineMetres(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double,
                                       radius: Double = 6_371_008.8) -> Double {
        let rad = Double.pi / 180
        let dLat = (lat2 - lat1) * rad, dLon = (lon2 - lon1) * rad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * rad) * cos(lat2 * rad) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * radius * asin(min(1, h.squareRoot()))
    }

    /// The least haversine distance from a point to a segment drawn straight in degrees
    /// (the way maps and the library draw it), by golden-section search along the segment.
    /// The distance along such a short segment is unimodal, so the search finds the minimum.
    public static func metresToSegment(_ lat: Double, _ lon: Double,
                                       from a: (lat: Double, lon: Double), to b: (lat: Double, lon: Double)) -> Double {
        func at(_ t: Double) -> Double { haversineMetres(lat, lon, a.lat + t * (b.lat - a.lat), a.lon + t * (b.lon - a.lon)) }
        let g = (5.0.squareRoot() - 1) / 2
        var lo = 0.0, hi = 1.0
        var x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = at(x1), f2 = at(x2)
        for _ in 0..<60 {
            if f1 < f2 { hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = at(x1) }
            else { lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = at(x2) }
        }
        return min(at(0), at(1), f1, f2)
    }
}
