import Foundation

/// Distance formulas written here, apart from the library, as oracles for its tests. They
/// take plain degrees so they share no type or code with `Geodesy` or `Projection`. (The
/// ellipsoid has two implementations in the library that check each other: Vincenty's in
/// `Geodesy` and Karney's in PROJ, behind `Projection`.)
public enum IndependentGeodesy {
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
