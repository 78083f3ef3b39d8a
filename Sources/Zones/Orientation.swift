/// The exact sign of the orientation of (a, b, c): +1 counter-clockwise (c left of a→b),
/// -1 clockwise, 0 collinear.
///
/// Why exact: zone answers must equal GEOS's, whose orientation test is robust. A plain
/// floating determinant is wrong near an edge; this one takes the fast answer when an error
/// bound proves its sign (Shewchuk's filter) and otherwise sums the six products exactly.
@inline(__always)
func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                 _ cx: Double, _ cy: Double) -> Int {
    let left = (ax - cx) * (by - cy)
    let right = (ay - cy) * (bx - cx)
    let det = left - right
    // 3ε + 16ε² with ε = 2⁻⁵³, Shewchuk's ccwerrboundA.
    let bound = 3.3306690738754716e-16 * (abs(left) + abs(right))
    if det > bound { return 1 }
    if -det > bound { return -1 }
    return exactOrientation(ax, ay, bx, by, cx, cy)
}

/// The slow path: det = ax·by − ax·cy − cx·by − ay·bx + ay·cx + cy·bx, each product split
/// exactly into two doubles with FMA, summed as a non-overlapping expansion.
@inline(never)
func exactOrientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                      _ cx: Double, _ cy: Double) -> Int {
    var terms: [Double] = []
    terms.reserveCapacity(12)
    func product(_ a: Double, _ b: Double, _ sign: Double) {
        let p = a * b
        let err = (-p).addingProduct(a, b)    // exact: a·b − p
        terms.append(sign * p)
        terms.append(sign * err)
    }
    product(ax, by, 1); product(ax, cy, -1); product(cx, by, -1)
    product(ay, bx, -1); product(ay, cx, 1); product(cy, bx, 1)
    // Grow an expansion one term at a time (Two-Sum keeps every rounding error).
    var expansion: [Double] = []
    expansion.reserveCapacity(12)
    for t in terms {
        var q = t
        for k in expansion.indices {
            let e = expansion[k]
            let s = q + e
            let bv = s - q
            let err = (q - (s - bv)) + (e - bv)
            expansion[k] = err
            q = s
        }
        expansion.append(q)
    }
    // The most significant non-zero component carries the sign.
    for v in expansion.reversed() where v != 0 { return v > 0 ? 1 : -1 }
    return 0
}
