import Testing
import Geodesy
@testable import SpatialIndex

/// The vector layout of the inner nodes: the `Float` lower bounds a search prunes with, the
/// lane helpers, and the slot-by-slot view the updates use.
@Suite struct InnerSlotTests {
    /// A box for the query `q`'s scale: around a point near `q`, sometimes a single point,
    /// sometimes holding `q` or touching it, sometimes a hair away.
    static func box(near q: SpherePoint, scale: Double, using rng: inout SeededRandom) -> Box3 {
        func offset() -> Double {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return 0
            case 1: return Double.random(in: -1e-12...1e-12, using: &rng)
            case 2: return Double.random(in: -1e-30...1e-30, using: &rng)
            default: return Double.random(in: -scale...scale, using: &rng)
            }
        }
        let c = (q.x + offset(), q.y + offset(), q.z + offset())
        let point = Int.random(in: 0..<5, using: &rng) == 0
        func half() -> Double { point ? 0 : abs(offset()) }
        let (hx, hy, hz) = (half(), half(), half())
        return Box3(minX: c.0 - hx, minY: c.1 - hy, minZ: c.2 - hz, maxX: c.0 + hx, maxY: c.1 + hy, maxZ: c.2 + hz)
    }

    /// Query points as the tree sees them: near its frame's centre (small coordinates, the
    /// centred frame) or anywhere on the unit sphere (the Earth-centred frame).
    static func query(using rng: inout SeededRandom) -> (SpherePoint, scale: Double) {
        if Bool.random(using: &rng) {
            let r = Double.random(in: 1e-6...2e-3, using: &rng)
            return (SpherePoint(x: Double.random(in: -r...r, using: &rng), y: Double.random(in: -r...r, using: &rng),
                                z: -Double.random(in: 0...r * r, using: &rng)), r)
        }
        let c = Coordinate(unchecked: Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
        return (SpherePoint(c), Double.random(in: 1e-7...1e-2, using: &rng))
    }

    @Test func lowerBoundsNeverExceedTheExactDistanceAndStayClose() {
        var rng = SeededRandom(seed: 33)
        var slots = InnerSlotArray()
        slots.appendNode()
        var checked = 0, positive = 0
        for _ in 0..<20_000 {
            let (q, scale) = Self.query(using: &rng)
            var boxes: [FloatBox] = []
            for lane in 0..<8 {
                let b = FloatBox(outward: Self.box(near: q, scale: scale, using: &rng))
                boxes.append(b)
                slots[lane] = InnerSlot(stored: b, child: Int32(lane))
            }
            let bounds = FloatQuery(q).lowerBounds(of: slots.nodes[0])
            let planar = FloatQuery(q).planarLowerBounds(of: slots.nodes[0])
            for lane in 0..<8 {
                // The distance a search compares the bound with: to the stored box, in `Double`.
                let b = boxes[lane].exact
                func gap(_ lo: Double, _ v: Double, _ hi: Double) -> Double { max(0, lo - v, v - hi) }
                let (ex, ey, ez) = (gap(b.minX, q.x, b.maxX), gap(b.minY, q.y, b.maxY), gap(b.minZ, q.z, b.maxZ))
                let exact = ex * ex + ey * ey + ez * ez
                let bound = Double(bounds[lane])
                #expect(bound <= exact, "lane \(lane): bound \(bound) above the distance \(exact)")
                // Close enough to prune (a bound of 0 would be right and useless): each gap
                // short by at most the query's rounding to `Float`, a few units in the last
                // place of the larger coordinate.
                func shortGap(_ lo: Double, _ v: Double, _ hi: Double) -> Double {
                    let slack = 4 * Double(Float.ulpOfOne) * max(abs(v), abs(lo), abs(hi))
                    return max(0, max(lo - v, v - hi) - slack)
                }
                let gx = shortGap(b.minX, q.x, b.maxX), gy = shortGap(b.minY, q.y, b.maxY), gz = shortGap(b.minZ, q.z, b.maxZ)
                let loose = gx * gx + gy * gy + gz * gz
                #expect(bound >= loose * (1 - 0x1p-18) - 0x1p-125, "lane \(lane): bound \(bound) far below \(exact)")
                // Without the z gaps: below the full bound, and as close to the x and y
                // gaps alone as the full bound is to all three.
                let planarBound = Double(planar[lane])
                #expect(planarBound <= bound, "lane \(lane): the planar bound \(planarBound) above the full \(bound)")
                #expect(planarBound >= (gx * gx + gy * gy) * (1 - 0x1p-18) - 0x1p-125, "lane \(lane): planar bound far below")
                if loose > 1e-30 { positive += 1 }
                checked += 1
            }
        }
        #expect(checked == 160_000)
        #expect(positive > 50_000, "too few boxes clearly away from their query: \(positive)")
    }

    @Test func emptySlotsAreOutOfReach() {
        var slots = InnerSlotArray()
        slots.appendNode()
        slots[3] = InnerSlot(box: Box3(minX: 0, minY: 0, minZ: 0, maxX: 1e-3, maxY: 1e-3, maxZ: 0), child: 9)
        let bounds = FloatQuery(SpherePoint(x: 0, y: 0, z: 0)).lowerBounds(of: slots.nodes[0])
        // The box holding the query is at distance 0, less the bound's offset of 2⁻¹²⁶.
        let planar = FloatQuery(SpherePoint(x: 0, y: 0, z: 0)).planarLowerBounds(of: slots.nodes[0])
        for lane in 0..<8 {
            #expect(lane == 3 ? bounds[lane] <= 0 && bounds[lane] >= -0x1p-126 : bounds[lane] == .infinity)
            #expect(lane == 3 ? planar[lane] <= 0 && planar[lane] >= -0x1p-126 : planar[lane] == .infinity)
        }
        #expect(slots.box(ofNode: 0) == FloatBox(outward: Box3(minX: 0, minY: 0, minZ: 0, maxX: 1e-3, maxY: 1e-3, maxZ: 0)))
        #expect(InnerSlotArray().nodes.isEmpty)
    }

    @Test func slotsReadBackAsWrittenAndANodesBoxHoldsThemAll() {
        var rng = SeededRandom(seed: 5)
        var slots = InnerSlotArray()
        for _ in 0..<4 { slots.appendNode() }
        var written: [InnerSlot] = []
        for s in 0..<32 {
            let lo = (Double.random(in: -1...1, using: &rng), Double.random(in: -1...1, using: &rng), Double.random(in: -1...1, using: &rng))
            let slot = InnerSlot(box: Box3(minX: lo.0, minY: lo.1, minZ: lo.2, maxX: lo.0 + 0.1, maxY: lo.1 + 0.2, maxZ: lo.2 + 0.3),
                                 child: Int32.random(in: -1...Int32.max, using: &rng))
            slots[s] = slot
            written.append(slot)
        }
        for s in 0..<32 {
            #expect(slots[s].stored == written[s].stored)
            #expect(slots.child(at: s) == written[s].child)
            #expect(slots.nodes[s / 8].child[s % 8] == written[s].child)
        }
        for n in 0..<4 {
            var union = FloatBox.empty
            for s in (n * 8)..<(n * 8 + 8) { union.include(written[s].stored) }
            #expect(slots.box(ofNode: n) == union)
        }
        slots.setChild(7, at: 13)
        #expect(slots[13].child == 7 && slots[13].stored == written[13].stored)
    }

    @Test func queryCoordinatesRoundOutwardByAFewSteps() {
        // The oracles: Float(v), then the standard library's nextDown and nextUp.
        func up(_ v: Double) -> Float { let f = Float(v); return Double(f) < v ? f.nextUp : f }
        var values: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 1e-50, -1e-50, 0x1p-149, -0x1p-149, 0x1p-150, -0x1p-150,
                                0x1.8p-150, -0x1.8p-150, 0x1p-126, -0x1p-126, Double(Float.leastNormalMagnitude).nextDown,
                                1 - 0x1p-60, -(1 - 0x1p-60), Double(Float(0.1)), Double(Float(0.1)).nextUp, Double(Float(0.1)).nextDown]
        var rng = SeededRandom(seed: 9)
        for _ in 0..<20_000 { values.append(Double.random(in: -1...1, using: &rng)) }
        for _ in 0..<2_000 { values.append(Double(sign: .plus, exponent: Int.random(in: -160 ... -100, using: &rng), significand: Double.random(in: 1..<2, using: &rng)) * (Bool.random(using: &rng) ? 1 : -1)) }
        for v in values {
            let hi = FloatQuery.above(v)
            #expect(hi.bitPattern == up(v).bitPattern && Double(hi) >= v, "above(\(v)) = \(hi), expected \(up(v))")
        }
        // Four lanes at a time, each in its own place: below and above the value, one to
        // five steps from its nearest `Float` (the steps by `nextDown` and `nextUp`).
        values += [Double(Float.greatestFiniteMagnitude) / 4, 0x1p-100, 1.0.nextDown, 0.5.nextUp, -(0.5.nextUp)]
        func steps(_ n: Int, from f: Float, up: Bool) -> Float { (0..<n).reduce(f) { x, _ in up ? x.nextUp : x.nextDown } }
        for i in stride(from: 0, to: values.count - 3, by: 1) {
            let v = SIMD4(values[i], values[i + 1], values[i + 2], values[i + 3])
            let (lo, hi) = FloatQuery.outward(v)
            for lane in 0..<4 {
                let f = Float(v[lane])
                #expect(Double(lo[lane]) < v[lane] && lo[lane] <= steps(1, from: f, up: false) && lo[lane] >= steps(5, from: f, up: false),
                        "outward(\(v[lane])).lo = \(lo[lane])")
                #expect(Double(hi[lane]) > v[lane] && hi[lane] >= steps(1, from: f, up: true) && hi[lane] <= steps(5, from: f, up: true),
                        "outward(\(v[lane])).hi = \(hi[lane])")
            }
        }
    }

    @Test func laneHelpersAgreeWithAScalarScan() {
        var rng = SeededRandom(seed: 8)
        for _ in 0..<5_000 {
            // Few distinct values, so that ties and infinities are common.
            let values = (0..<8).map { _ in [Float.infinity, 0, 1, 2, 3, 0x1p-126][Int.random(in: 0..<6, using: &rng)] }
            let v = SIMD8<Float>(values)
            let least = values.min()!
            #expect(FloatQuery.least(v) == least)
            if least < .infinity { #expect(FloatQuery.lane(of: least, in: v) == values.firstIndex(of: least)!) }
            let limit = [Float(0), 1, 2.5, .infinity][Int.random(in: 0..<4, using: &rng)]
            var expected: UInt32 = 0
            for (i, x) in values.enumerated() where x <= limit { expected |= 1 << UInt32(i) }
            #expect(FloatQuery.lanes(of: v, atMost: limit) == expected)
        }
        for limit in [0.0, 1e-300, 1.0 / 3, 4, .infinity] {
            let c = FloatQuery.above(limit)
            #expect(Double(c) >= limit && (c == 0 || Double(c.nextDown) < limit))
        }
    }
}
