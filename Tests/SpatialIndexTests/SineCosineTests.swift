import Foundation
import Geodesy
import Testing
@testable import SpatialIndex

/// `SineCosine`, the query point's trigonometry, against libm's `sin` and `cos` (glibc's are
/// correctly rounded in nearly every case, so they are the reference here).
@Suite struct SineCosineTests {
    /// How many units in the last place `value` is from `reference` (0 when equal).
    static func ulps(_ value: Double, from reference: Double) -> Double {
        abs(value - reference) / max(reference.magnitude.ulp, Double.leastNormalMagnitude)
    }

    /// The largest error, in ulps, over `angles` taken two at a time (both lanes).
    static func worstError(_ angles: [Double]) -> Double {
        var worst = 0.0
        for i in stride(from: 0, to: angles.count - 1, by: 2) {
            let t = SineCosine.of(SIMD2(angles[i], angles[i + 1]))
            for lane in 0..<2 {
                let a = angles[i + lane]
                worst = max(worst, ulps(t.sin[lane], from: sin(a)), ulps(t.cos[lane], from: cos(a)))
            }
        }
        return worst
    }

    @Test func withinAnUlpOfLibmOverCoordinateAngles() {
        var rng = SeededRandom(seed: 33)
        var angles = (0..<400_000).map { _ in Double.random(in: -Double.pi...Double.pi, using: &rng) }
        // Every tenth of a degree, as a coordinate's radians are computed, and the quadrant
        // edges where the reduction changes k.
        for tenth in -1_800...1_800 { angles.append(Double(tenth) / 10 * .pi / 180) }
        for k in -4...4 {
            let edge = Double(k) * .pi / 4
            angles += [edge, edge.nextUp, edge.nextDown]
        }
        angles += [0, -0.0, 1e-300, -1e-300, .leastNonzeroMagnitude, 3.5, -3.5, 3.5.nextDown, -3.5.nextDown]
        if angles.count % 2 == 1 { angles.append(0.5) }
        let worst = Self.worstError(angles)
        #expect(worst <= 1.0, "worst error \(worst) ulp")
    }

    @Test func outsideTheReducedRangeItIsLibmExactly() {
        for pair in [SIMD2(3.5.nextUp, 1.0), SIMD2(-4.712_388_980_384_69, 2.0), SIMD2(1.0, -1e6), SIMD2(1e300, .pi), SIMD2(-.infinity, 0)] {
            let t = SineCosine.of(pair)
            for lane in 0..<2 {
                #expect(t.sin[lane].bitPattern == sin(pair[lane]).bitPattern || (t.sin[lane].isNaN && sin(pair[lane]).isNaN))
                #expect(t.cos[lane].bitPattern == cos(pair[lane]).bitPattern || (t.cos[lane].isNaN && cos(pair[lane]).isNaN))
            }
        }
        let t = SineCosine.of(SIMD2(.nan, 0.25))
        #expect(t.sin[0].isNaN && t.cos[0].isNaN)
        #expect(t.sin[1] == sin(0.25) && t.cos[1] == cos(0.25))
    }

    /// The unit vectors the trees keep: of length 1 within a few ulps, and at most a few
    /// ulps from the vector computed with libm.
    @Test func unitVectorsMatchLibms() {
        var rng = SeededRandom(seed: 34)
        for _ in 0..<50_000 {
            let c = Coordinate(unchecked: Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
            let p = SpherePoint(c)
            let φ = c.latitude * .pi / 180, λ = c.longitude * .pi / 180
            let reference = SpherePoint(x: cos(φ) * cos(λ), y: cos(φ) * sin(λ), z: sin(φ))
            #expect(p.chord2(to: reference) < 1e-30)
            #expect(abs(p.x * p.x + p.y * p.y + p.z * p.z - 1) < 1e-15)
        }
    }
}
