import TestSupport
import Testing
import Geodesy
import GeoJSON
import Geometry
@testable import Zones

@Suite struct OrientationTests {
    @Test func fastAndExactPathsAgree() {
        #expect(orientation(0, 0, 1, 0, 0.5, 1) == 1)
        #expect(orientation(0, 0, 1, 0, 0.5, -1) == -1)
        #expect(orientation(0, 0, 1, 1, 0.5, 0.5) == 0)
        // Nearly collinear: the plain determinant rounds to zero or the wrong sign here.
        let a = (0.5, 0.5), b = (12.0, 12.0), c = (24.0, 24.0)
        #expect(exactOrientation(a.0, a.1, b.0, b.1, c.0, c.1) == 0)
        let cPlus = (24.0.nextUp, 24.0)
        #expect(orientation(a.0, a.1, b.0, b.1, cPlus.0, cPlus.1) == -1)
        let cMinus = (24.0.nextDown, 24.0)
        #expect(orientation(a.0, a.1, b.0, b.1, cMinus.0, cMinus.1) == 1)
    }

    @Test func exactPathMatchesRationalArithmeticOnRandomNearDegenerateTriples() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            // Points on a line through two random points, nudged by one ulp: the hard cases.
            let ax = Double.random(in: -74.3 ... -73.7, using: &rng), ay = Double.random(in: 40.5...40.9, using: &rng)
            let bx = Double.random(in: -74.3 ... -73.7, using: &rng), by = Double.random(in: 40.5...40.9, using: &rng)
            let t = Double.random(in: -1...2, using: &rng)
            var cx = ax + t * (bx - ax), cy = ay + t * (by - ay)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: cx = cx.nextUp
            case 1: cy = cy.nextDown
            default: break
            }
            #expect(orientation(ax, ay, bx, by, cx, cy) == referenceOrientation(ax, ay, bx, by, cx, cy))
        }
    }
}

/// An independent orientation oracle: exact integer arithmetic on the doubles' scaled
/// mantissas (every double in the range is an integer multiple of 2⁻⁶⁰ here).
func referenceOrientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    func big(_ v: Double) -> BigInt { BigInt(v) }
    let d = (big(ax) - big(cx)) * (big(by) - big(cy)) - (big(ay) - big(cy)) * (big(bx) - big(cx))
    return d.sign
}

/// A tiny signed big integer for the oracle: 2⁶⁰·v as a sign and magnitude in 32-bit limbs.
struct BigInt {
    var negative = false
    var limbs: [UInt32] = []  // little-endian magnitude

    init(_ v: Double) {
        precondition(v.isFinite && abs(v) < 1e6)
        let scaled = abs(v) * 0x1p60      // exact: a power-of-two scale
        var m = scaled
        var out: [UInt32] = []
        // Peel 32-bit limbs from the top; the value is an integer below 2⁸⁰.
        var power = 0x1p96
        var digits: [UInt32] = []
        while power >= 1 {
            let q = (m / power).rounded(.down)
            digits.append(UInt32(q))
            m -= q * power
            power /= 0x1p32
        }
        out = digits.reversed()
        limbs = out
        negative = v < 0
        trim()
    }

    init(negative: Bool, limbs: [UInt32]) { self.negative = negative; self.limbs = limbs; trim() }

    mutating func trim() { while limbs.last == 0 { limbs.removeLast() }; if limbs.isEmpty { negative = false } }

    var sign: Int { limbs.isEmpty ? 0 : (negative ? -1 : 1) }

    static func compareMagnitude(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for k in stride(from: a.count - 1, through: 0, by: -1) where a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        return 0
    }

    static func addMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out: [UInt32] = [], carry: UInt64 = 0
        for k in 0..<max(a.count, b.count) {
            let s = UInt64(k < a.count ? a[k] : 0) + UInt64(k < b.count ? b[k] : 0) + carry
            out.append(UInt32(truncatingIfNeeded: s)); carry = s >> 32
        }
        if carry > 0 { out.append(UInt32(carry)) }
        return out
    }

    static func subMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {  // |a| >= |b|
        var out: [UInt32] = [], borrow: Int64 = 0
        for k in 0..<a.count {
            var d = Int64(a[k]) - Int64(k < b.count ? b[k] : 0) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 1 << 32 }
            out.append(UInt32(d))
        }
        return out
    }

    static func + (a: BigInt, b: BigInt) -> BigInt {
        if a.negative == b.negative { return BigInt(negative: a.negative, limbs: addMagnitude(a.limbs, b.limbs)) }
        let c = compareMagnitude(a.limbs, b.limbs)
        if c == 0 { return BigInt(negative: false, limbs: []) }
        return c > 0 ? BigInt(negative: a.negative, limbs: subMagnitude(a.limbs, b.limbs))
                     : BigInt(negative: b.negative, limbs: subMagnitude(b.limbs, a.limbs))
    }

    static prefix func - (a: BigInt) -> BigInt { BigInt(negative: !a.negative, limbs: a.limbs) }
    static func - (a: BigInt, b: BigInt) -> BigInt { a + (-b) }

    static func * (a: BigInt, b: BigInt) -> BigInt {
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count + 1)
        for i in a.limbs.indices {
            var carry: UInt64 = 0
            for j in b.limbs.indices {
                let t = UInt64(a.limbs[i]) * UInt64(b.limbs[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t); carry = t >> 32
            }
            var k = i + b.limbs.count
            while carry > 0 {
                let t = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: t); carry = t >> 32; k += 1
            }
        }
        return BigInt(negative: a.negative != b.negative, limbs: out)
    }
}

@Suite struct PointInPolygonTests {
    /// A layer of two squares sharing the edge x = 1, the second with a hole.
    static func twoSquares() -> PolygonLayer {
        func ring(_ r: [(Double, Double)]) -> [Position] { r.map { Position(x: $0.0, y: $0.1) } }
        var layer = PolygonLayer()
        layer.append(polygons: [[ring(square(0, 0, 1))]])
        layer.append(polygons: [[ring(square(1, 0, 1)), ring([(1.25, 0.25), (1.75, 0.25), (1.75, 0.75), (1.25, 0.75), (1.25, 0.25)])]])
        return layer
    }

    @Test func locatesInteriorBoundaryAndExterior() {
        let layer = Self.twoSquares()
        #expect(layer.locate(x: 0.5, y: 0.5, in: 0) == .interior)
        #expect(layer.locate(x: 1, y: 0.5, in: 0) == .boundary)
        #expect(layer.locate(x: 1, y: 0.5, in: 1) == .boundary)
        #expect(layer.locate(x: 0, y: 0, in: 0) == .boundary)
        #expect(layer.locate(x: 1.5, y: 0.5, in: 1) == .exterior)  // in the hole
        #expect(layer.locate(x: 1.25, y: 0.5, in: 1) == .boundary) // on the hole's edge
        #expect(layer.locate(x: 1.1, y: 0.5, in: 1) == .interior)
        #expect(layer.locate(x: 2.5, y: 0.5, in: 1) == .exterior)
    }

    @Test func borderRuleGivesTheLowerIndex() {
        let layer = Self.twoSquares()
        let cover = CellCover(layer: layer)
        #expect(cover.feature(x: 1, y: 0.5, layer: layer) == 0)   // shared edge: the first zone
        #expect(cover.feature(x: 2, y: 0.5, layer: layer) == 1)   // outer edge: its only zone
        #expect(cover.feature(x: 1.5, y: 0.5, layer: layer) == -1)
        #expect(cover.feature(x: .nan, y: 0.5, layer: layer) == -1)
        #expect(cover.feature(x: 5, y: 5, layer: layer) == -1)
    }

    @Test func agreesWithGEOSCoversOnAGrid() throws {
        let layer = Self.twoSquares()
        let cover = CellCover(layer: layer, targetCoarseCells: 64)
        let context = GEOSContext()
        let geometries = try (0..<layer.featureCount).map { f in
            try Geometry(.polygon(layer.polygons(of: f)[0]), in: context)
        }
        // A grid that hits vertices, edges and the hole's boundary exactly.
        for i in -4...36 {
            for j in -4...20 {
                let x = Double(i) / 16, y = Double(j) / 16
                let point = try Geometry.point(x: x, y: y, in: context)
                let expected = geometries.firstIndex { $0.covers(point) } ?? -1
                #expect(cover.feature(x: x, y: y, layer: layer) == expected, "at \(x), \(y)")
            }
        }
    }
}
