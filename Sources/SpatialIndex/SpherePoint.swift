import CIntrinsics
import Foundation
import Geodesy

/// A position as a unit vector in 3-D (Earth-centred, unit radius).
///
/// Why 3-D: the straight-line (chord) distance between two unit vectors grows strictly with
/// the great-circle distance, so ranking by chord is ranking by great-circle metres, exactly,
/// with no special case at the poles or across the antimeridian, and each comparison costs
/// three multiplications instead of a haversine.
public struct SpherePoint: Hashable, Sendable {
    /// Towards latitude 0, longitude 0.
    public var x: Double
    /// Towards latitude 0, longitude 90° E.
    public var y: Double
    /// Towards the North Pole.
    public var z: Double

    /// A point from its components (not normalised).
    @inlinable
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }

    /// The unit vector of a coordinate.
    public init(_ c: Coordinate) {
        // Both angles' sines and cosines at once, in two vector lanes (see `SineCosine`).
        let t = SineCosine.of(SIMD2(c.latitude, c.longitude) * .pi / 180)
        x = t.cos[0] * t.cos[1]; y = t.cos[0] * t.sin[1]; z = t.sin[0]
    }

    /// Squared chord distance on the unit sphere.
    @inlinable
    public func chord2(to o: SpherePoint) -> Double {
        let dx = x - o.x, dy = y - o.y, dz = z - o.z
        return dx * dx + dy * dy + dz * dz
    }
}

/// The sines and cosines of two angles at once, each within about an ulp of the correctly
/// rounded value.
///
/// Why not libm's `sincos`: a query's position is turned into a unit vector before the
/// search, and two `sincos` calls were a tenth of a k = 1 query's instructions and of a
/// position report's time. Here the two angles share two vector registers and no call: the
/// angle is reduced to r in [−π/4, π/4] around the nearest multiple k of π/2, then sin r and
/// cos r are their Taylor series, whose terms past r¹⁷ and r¹⁶ are below 3·10⁻¹⁸ there
/// (under a thirtieth of an ulp of a result of that size), and k
/// modulo 4 swaps them and sets their signs. π/2 is taken in three parts, the first with 33
/// significant bits: for |k| ≤ 2 each product k × part is exact (1 and 2 are powers of two),
/// and so is the first subtraction (Sterbenz's lemma), which keeps the relative error small
/// even next to a zero of the sine or cosine. So the fast path takes angles within ±3.5,
/// where |k| ≤ 2, which a coordinate's radians (within ±π) always are; others and NaN go to
/// libm.
enum SineCosine {
    /// The sines and cosines of both lanes' angles, in radians.
    @inline(__always)
    static func of(_ a: SIMD2<Double>) -> (sin: SIMD2<Double>, cos: SIMD2<Double>) {
        guard all((a .>= -3.5) .& (a .<= 3.5)) else { return library(a) }
        // k = a·2/π rounded to the nearest integer: added to 1.5·2⁵², a Double's rounding
        // leaves k in the low bits of the sum (negative k too, modulo 4), with no call.
        let shifter = SIMD2<Double>(repeating: 0x1.8p52)
        let t = a * 0x1.45f306dc9c883p-1 + shifter
        let k = t - shifter
        let r = ((a - k * 0x1.921fb54400000p+0) - k * 0x1.0b4611a626331p-34) - k * 0x1.1701b839a2520p-88
        let r2 = r * r
        // 1/n!, alternating in sign. All but the first two terms are summed in pairs
        // (Estrin's scheme): three pairs and a term, then two, then one, each level with no
        // wait on the others; then the large terms last, as Horner's rule takes them, so that
        // the pairs' rounding is scaled down by r². Why not Horner's rule throughout: its
        // eight steps each wait on the one before, and a query waits on this before its
        // search can start; this takes five. Summing every term in pairs was two ulps off
        // (`SineCosineTests`): the large terms' rounding then reaches the result unscaled.
        let r4 = r2 * r2, r8 = r4 * r4
        let s12 = 0x1.1111111111111p-7 - r2 * 0x1.a01a01a01a01ap-13
        let s34 = 0x1.71de3a556c734p-19 - r2 * 0x1.ae64567f544e4p-26
        let s56 = 0x1.6124613a86d09p-33 - r2 * 0x1.ae7f3e733b81fp-41
        let sTail = (s12 + r4 * s34) + r8 * (s56 + r4 * 0x1.952c77030ad4ap-49)
        let ps = r2 * sTail - 0x1.5555555555555p-3
        let s = r + r * r2 * ps
        let c12 = 0.041666666666666664 - r2 * 0.001388888888888889
        let c34 = 2.48015873015873e-05 - r2 * 2.755731922398589e-07
        let c56 = 2.08767569878681e-09 - r2 * 1.1470745597729725e-11
        let cTail = (c12 + r4 * c34) + r8 * (c56 + r4 * 4.779477332387385e-14)
        let pc = r2 * cTail - 0.5
        let c = 1 + r2 * pc
        // Quadrant k mod 4: 0 → (s, c), 1 → (c, −s), 2 → (−s, −c), 3 → (−c, s).
        let q = unsafeBitCast(t, to: SIMD2<UInt64>.self)
        let odd = (q & 1) .== 1
        let sinBits = unsafeBitCast(s.replacing(with: c, where: odd), to: SIMD2<UInt64>.self) ^ ((q & 2) &<< 62)
        let cosBits = unsafeBitCast(c.replacing(with: s, where: odd), to: SIMD2<UInt64>.self) ^ (((q &+ 1) & 2) &<< 62)
        return (unsafeBitCast(sinBits, to: SIMD2<Double>.self), unsafeBitCast(cosBits, to: SIMD2<Double>.self))
    }

    /// libm's values, lane by lane.
    @inline(never)
    static func library(_ a: SIMD2<Double>) -> (sin: SIMD2<Double>, cos: SIMD2<Double>) {
        var s0 = 0.0, c0 = 0.0, s1 = 0.0, c1 = 0.0
        wayfare_sincos(a[0], &s0, &c0)
        wayfare_sincos(a[1], &s1, &c1)
        return (SIMD2(s0, s1), SIMD2(c0, c1))
    }
}

/// A rigid motion of space that carries a chosen centre on the sphere to the origin, with
/// local east along x, local north along y and up along z. An R-tree keeps its points in
/// such a frame.
///
/// Why: chord distances do not change under a rotation and a shift, but boxes do. Around
/// the centre the Earth's surface becomes nearly the plane z = 0, so the axis-aligned boxes
/// of a city's leaves are flat east–north rectangles, as tight as a planar index's. In the
/// Earth-centred frame the same patch is tilted (at New York by 49° and 16°), and each box
/// holds a slab of empty space that pruning cannot see past: on the NYC-like fleet the
/// rotation made the 10-nearest query 8 % faster and the 1 km radius 13 %.
///
/// Why the shift: the boxes are stored in `Float`. Near z = 1 a `Float` step is 6e-8, about
/// the height of a whole city's curvature, so every point would lie on its box's top or
/// bottom, and every departure would make its leaf's box be recomputed (position reports
/// measured 12 % slower at 100k cabs, 18 % at 1M). Near 0 the steps are fine. Subtracting 1 from a z in [½, 2] is
/// exact, so the chords are the same.
struct SphereFrame: Equatable, Sendable {
    /// The rows of the rotation: the centre's east, north and up directions.
    var east: SpherePoint, north: SpherePoint, up: SpherePoint
    /// Subtracted from z after the rotation: 1 for a centred frame, 0 for the identity.
    var lift: Double

    /// No motion: the Earth-centred frame.
    static let identity = SphereFrame(east: SpherePoint(x: 1, y: 0, z: 0), north: SpherePoint(x: 0, y: 1, z: 0),
                                      up: SpherePoint(x: 0, y: 0, z: 1), lift: 0)

    init(east: SpherePoint, north: SpherePoint, up: SpherePoint, lift: Double) {
        self.east = east; self.north = north; self.up = up; self.lift = lift
    }

    /// The frame centred on the direction of `v` (any length); the identity when `v` has no
    /// clear direction (points spread evenly over the globe sum to about nothing).
    init(centredOn v: SpherePoint) {
        let length = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
        guard length > 1e-6 else { self = .identity; return }
        let u = SpherePoint(x: v.x / length, y: v.y / length, z: v.z / length)
        // East is the pole's axis crossed with the centre; at a pole any horizontal does.
        let h = (u.x * u.x + u.y * u.y).squareRoot()
        let e = h > 1e-12 ? SpherePoint(x: -u.y / h, y: u.x / h, z: 0) : SpherePoint(x: 1, y: 0, z: 0)
        let n = SpherePoint(x: u.y * e.z - u.z * e.y, y: u.z * e.x - u.x * e.z, z: u.x * e.y - u.y * e.x)
        self.init(east: e, north: n, up: u, lift: 1)
    }

    /// A coordinate's unit vector, in this frame.
    @inline(__always)
    func point(_ c: Coordinate) -> SpherePoint { move(SpherePoint(c)) }

    /// An Earth-centred point, in this frame.
    @inline(__always)
    func move(_ p: SpherePoint) -> SpherePoint {
        SpherePoint(x: east.x * p.x + east.y * p.y + east.z * p.z,
                    y: north.x * p.x + north.y * p.y + north.z * p.z,
                    z: (up.x * p.x + up.y * p.y + up.z * p.z) - lift)
    }

    /// A box in this frame that holds an Earth-centred box: the bounds of its moved corners
    /// (the moved box is their convex hull), widened for rounding.
    func move(_ b: Box3) -> Box3 {
        guard b.minX <= b.maxX, b.minY <= b.maxY, b.minZ <= b.maxZ else { return .empty }
        var out = Box3.empty
        for x in [b.minX, b.maxX] {
            for y in [b.minY, b.maxY] {
                for z in [b.minZ, b.maxZ] {
                    let p = move(SpherePoint(x: x, y: y, z: z))
                    out.include(p.x, p.y, p.z)
                }
            }
        }
        let e = 1e-12
        return Box3(minX: out.minX - e, minY: out.minY - e, minZ: out.minZ - e,
                    maxX: out.maxX + e, maxY: out.maxY + e, maxZ: out.maxZ + e)
    }
}

/// Conversions between squared chords and great-circle metres on the mean sphere.
public enum ChordDistance {
    /// Great-circle metres for a squared chord: 2R·asin(c/2).
    ///
    /// Below c/2 = 2⁻⁶ (199 km, so every search within a city) the arcsine is its series,
    /// x + x³/6 + 3x⁵/40 + 5x⁷/112 + 35x⁹/1152, inline: a fleet query converts each of its
    /// answers, and libm's `asin` was a call of 39 instructions apiece. The first term
    /// left out is under 2⁻⁶⁵ of the sum there, so the result is within an ulp of the exact
    /// value, as libm's is (`ChordDistanceTests` checks both against `Float80`); and every
    /// step (square root, products and sums of positive numbers) rounds monotonically, so a
    /// nearer chord never reads farther.
    @inlinable
    public static func metres(chord2: Double) -> Double {
        let x = min(1, chord2.squareRoot() / 2)
        guard x < 0x1p-6 else { return 2 * Earth.meanRadius * asin(x) }
        let t = x * x
        let series = 1.0 / 6 + t * (3.0 / 40 + t * (5.0 / 112 + t * (35.0 / 1152)))
        return 2 * Earth.meanRadius * (x + x * t * series)
    }

    /// The squared chord of a great-circle distance in metres (capped at the antipode).
    @inlinable
    public static func chord2(metres: Double) -> Double {
        guard metres.isFinite else { return metres > 0 ? 4 : 0 }
        let half = min(Double.pi / 2, max(0, metres / (2 * Earth.meanRadius)))
        let c = 2 * sin(half)
        return c * c
    }
}

/// An axis-aligned box in the 3-D unit-vector space.
struct Box3: Equatable, Sendable {
    var minX, minY, minZ, maxX, maxY, maxZ: Double

    static let empty = Box3(minX: .infinity, minY: .infinity, minZ: .infinity,
                            maxX: -.infinity, maxY: -.infinity, maxZ: -.infinity)

    @inline(__always)
    mutating func include(_ x: Double, _ y: Double, _ z: Double) {
        minX = min(minX, x); minY = min(minY, y); minZ = min(minZ, z)
        maxX = max(maxX, x); maxY = max(maxY, y); maxZ = max(maxZ, z)
    }

    @inline(__always)
    mutating func include(_ b: Box3) {
        minX = min(minX, b.minX); minY = min(minY, b.minY); minZ = min(minZ, b.minZ)
        maxX = max(maxX, b.maxX); maxY = max(maxY, b.maxY); maxZ = max(maxZ, b.maxZ)
    }

    @inline(__always)
    func contains(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY && z >= minZ && z <= maxZ
    }

    func intersects(_ b: Box3) -> Bool {
        minX <= b.maxX && b.minX <= maxX && minY <= b.maxY && b.minY <= maxY && minZ <= b.maxZ && b.minZ <= maxZ
    }

    /// A box that holds every unit vector of a latitude/longitude box (conservative).
    init(_ b: BoundingBox) {
        let φ0 = b.south * .pi / 180, φ1 = b.north * .pi / 180
        let λ0 = b.west * .pi / 180, λ1 = b.east * .pi / 180
        let c0 = cos(φ0), c1 = cos(φ1)
        let cMin = min(c0, c1), cMax = (φ0 <= 0 && 0 <= φ1) ? 1 : max(c0, c1)
        func range(_ f: (Double) -> Double, extremes: [(Double, Double)]) -> (Double, Double) {
            var lo = min(f(λ0), f(λ1)), hi = max(f(λ0), f(λ1))
            for (angle, value) in extremes where λ0 <= angle && angle <= λ1 { lo = min(lo, value); hi = max(hi, value) }
            return (lo, hi)
        }
        let (cosLo, cosHi) = range(cos, extremes: [(0, 1), (.pi, -1), (-.pi, -1)])
        let (sinLo, sinHi) = range(sin, extremes: [(.pi / 2, 1), (-.pi / 2, -1)])
        func product(_ a: (Double, Double), _ b: (Double, Double)) -> (Double, Double) {
            let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1]
            return (p.min()!, p.max()!)
        }
        let (xLo, xHi) = product((cMin, cMax), (cosLo, cosHi))
        let (yLo, yHi) = product((cMin, cMax), (sinLo, sinHi))
        // Widen by a few ulps: the trigonometry above may round inward.
        let e = 1e-12
        self.init(minX: xLo - e, minY: yLo - e, minZ: sin(φ0) - e, maxX: xHi + e, maxY: yHi + e, maxZ: sin(φ1) + e)
    }

    init(minX: Double, minY: Double, minZ: Double, maxX: Double, maxY: Double, maxZ: Double) {
        self.minX = minX; self.minY = minY; self.minZ = minZ; self.maxX = maxX; self.maxY = maxY; self.maxZ = maxZ
    }
}
