/// How an edge's exact cost (metres or seconds, as a file or the profile gives it) becomes
/// the integer the algorithms add: decimetres and milliseconds.
///
/// Each cost is rounded to the *nearest* unit, so a route's rounding errors cancel instead
/// of piling up edge by edge (rounding up made a 21 km route on the 1M-node grid read
/// 24 m long). One exception keeps A* exact: its heuristic multiplies a straight line by
/// the cheapest cost per metre any edge has, and rounding a short edge down could make
/// that ratio, and so every estimate, much smaller. So an edge never costs less than
/// `ceil(r · 0.999 · m)`, where m is the length of its drawn line and r the cheapest
/// ratio among edges at least 1 m long. Why this bound moves nothing else: an edge whose
/// cost is 1,000 units or more has `ceil(r · 0.999 · m) ≤ ceil(cost − 1) ≤` its nearest
/// integer, so only short, cheap edges can ever be raised, and by less than one unit
/// plus 0.1 %.
enum EdgeCosts {
    /// Integer costs for `exact` values (in the source's unit, `perValue` integer units
    /// each), for edges whose drawn lines are `metres` long. Negative or NaN values cost 0,
    /// huge ones saturate below `UInt32.max`: costs come from file data and must never
    /// trap.
    static func units(_ exact: [Double], perValue: Double, metres: [Double]) -> [UInt32] {
        var cheapest = Double.infinity
        for (x, m) in zip(exact, metres) where m >= 1 {
            cheapest = min(cheapest, max(0, x * perValue) / m)
        }
        let floorRatio = cheapest.isFinite ? cheapest * 0.999 : 0
        return zip(exact, metres).map { x, m in
            max(nearest(x * perValue), up(floorRatio * m))
        }
    }

    /// `x` rounded to the nearest integer, a tie to the even one (so that values with one
    /// decimal, as files often give them, carry no bias from their halves), clamped to
    /// `0...UInt32.max`; NaN is 0.
    static func nearest(_ x: Double) -> UInt32 { clamped(x.rounded(.toNearestOrEven)) }

    /// `x` rounded up, clamped the same way.
    static func up(_ x: Double) -> UInt32 { clamped(x.rounded(.up)) }

    private static func clamped(_ r: Double) -> UInt32 {
        guard r > 0 else { return 0 }  // also NaN
        return r >= 4_294_967_295 ? .max : UInt32(r)
    }
}
