import Foundation
import Geodesy
import Testing
@testable import SpatialIndex

/// `ChordDistance.metres`, whose arcsine is a series below 199 km, against the same formula
/// with libm's `asin` (written out here, apart from the code it checks).
@Suite struct ChordDistanceTests {
    static func libmMetres(_ chord2: Double) -> Double {
        2 * Earth.meanRadius * asin(min(1, chord2.squareRoot() / 2))
    }

    /// Squared chords from 0 to past the series' end (c/2 = 2⁻⁶), spread over every scale.
    static func chords() -> [Double] {
        var rng = SeededRandom(seed: 45)
        var c2: [Double] = [0, .leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 1e-30, 1e-18]
        for _ in 0..<200_000 {
            let halfChord = Double.random(in: 0...0x1p-5, using: &rng)   // up to twice the series' end
            c2.append(4 * halfChord * halfChord)
        }
        for _ in 0..<50_000 {
            // Log-uniform: a metre, a kilometre and a continent alike.
            c2.append(pow(10, Double.random(in: -20 ... -1, using: &rng)))
        }
        let edge = 0x1p-6
        for x in [edge.nextDown.nextDown, edge.nextDown, edge, edge.nextUp] { c2.append(4 * x * x) }
        return c2
    }

    /// How many units in the last place `value` is from `reference`.
    static func ulps(_ value: Double, from reference: Double) -> Double {
        abs(value - reference) / max(reference.ulp, Double.leastNonzeroMagnitude)
    }

    #if arch(x86_64)
    /// Against the formula in `Float80` (glibc's `asinl`, with 11 more bits): within an ulp,
    /// the rounding of the final product by 2R alone can cost that much.
    @Test func withinAnUlpOfTheExactValue() {
        var worst = 0.0, worstAt = 0.0
        for c2 in Self.chords() {
            let x = min(1, c2.squareRoot() / 2)
            let exact = Double(2 * Float80(Earth.meanRadius) * asin(Float80(x)))
            let error = Self.ulps(ChordDistance.metres(chord2: c2), from: exact)
            if error > worst { worst = error; worstAt = c2 }
        }
        #expect(worst <= 1, "worst \(worst) ulp at chord² \(worstAt)")
    }
    #endif

    /// Against libm: each is within an ulp of the exact value, so at most two apart.
    @Test func withinTwoUlpsOfLibm() {
        var worst = 0.0, worstAt = 0.0
        for c2 in Self.chords() {
            let error = Self.ulps(ChordDistance.metres(chord2: c2), from: Self.libmMetres(c2))
            if error > worst { worst = error; worstAt = c2 }
        }
        #expect(worst <= 2, "worst \(worst) ulp at chord² \(worstAt)")
    }

    /// A nearer chord never reads farther: answers sorted by chord stay sorted by metres.
    @Test func neverDecreasesAsTheChordGrows() {
        let c2 = Self.chords().sorted()
        var previous = -Double.infinity, inversions = 0
        for c in c2 {
            let m = ChordDistance.metres(chord2: c)
            if m < previous { inversions += 1 }
            previous = m
        }
        #expect(inversions == 0)
        // Step by step across the series' end, one chord ulp at a time.
        var c = 4 * 0x1p-6 * 0x1p-6
        for _ in 0..<64 { c = c.nextDown }
        previous = ChordDistance.metres(chord2: c)
        for _ in 0..<128 {
            c = c.nextUp
            let m = ChordDistance.metres(chord2: c)
            #expect(m >= previous, "at chord² \(c)")
            previous = m
        }
    }

    /// Outside the series, and for what is not a chord, it is libm's formula exactly.
    @Test func beyondTheSeriesItIsLibmExactly() {
        for c2 in [4 * 0x1p-6 * 0x1p-6, 0.01, 1, 2, 4, 5, .infinity] {
            #expect(ChordDistance.metres(chord2: c2).bitPattern == Self.libmMetres(c2).bitPattern, "chord² \(c2)")
        }
        #expect(ChordDistance.metres(chord2: 4) == Double.pi * Earth.meanRadius)
    }
}
