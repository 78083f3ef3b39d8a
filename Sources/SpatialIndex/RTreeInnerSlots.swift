// The inner nodes' slots of `RTreeCore`, laid out for the searches: each node's eight
// children as a structure of arrays, so that a query computes their eight box distances
// with a handful of vector instructions.

import CIntrinsics

/// The children of one inner node: each bound of their boxes in a vector of its own, and
/// their ids (lane i is slot i). The same 224 bytes as eight `InnerSlot`s.
///
/// Why: a query mostly computes box distances. Slot by slot, each took about 32
/// instructions (six `Float` bounds widened to `Double`, then the gaps); for eight lanes at
/// once, about 80 (`FloatQuery.lowerBounds(of:)`).
///
/// Why this order: what a search in a city reads (the x and y bounds and the children,
/// `FloatQuery.planarLowerBounds(of:)`) comes first, 160 bytes side by side, and the z
/// bounds, which it skips, last; so a node it opens costs three or four cache lines of
/// the five it spans.
struct InnerNodeSlots: Sendable {
    var minX, maxX, minY, maxY: SIMD8<Float>
    var child: SIMD8<Int32>
    var minZ, maxZ: SIMD8<Float>
    // `InnerSlotArray`'s subscript reads and writes the lanes as 56 words in this order
    // (`Word`).

    /// Where each vector starts among a node's 56 words.
    enum Word {
        static var minX: Int { 0 }
        static var maxX: Int { 8 }
        static var minY: Int { 16 }
        static var maxY: Int { 24 }
        static var child: Int { 32 }
        static var minZ: Int { 40 }
        static var maxZ: Int { 48 }
    }

    /// Every box empty, every child -1.
    static let empty: InnerNodeSlots = {
        let e = FloatBox.empty
        return InnerNodeSlots(minX: .init(repeating: e.minX), maxX: .init(repeating: e.maxX), minY: .init(repeating: e.minY),
                              maxY: .init(repeating: e.maxY), child: .init(repeating: -1), minZ: .init(repeating: e.minZ),
                              maxZ: .init(repeating: e.maxZ))
    }()
}

/// Every inner slot of a tree, by its index: slot `s` is lane `s % 8` of node `s / 8`, as
/// the index of an `InnerSlot` in an array of eight per node would be. Updates read and
/// write a slot at a time through the subscript; searches read a node's lanes at once.
///
/// `Sendable`: a value type over an array.
struct InnerSlotArray: Sendable {
    private(set) var nodes: [InnerNodeSlots] = []

    init() {
        precondition(RTreeCore.fanout == 8, "one lane per child: the fanout must be the vectors' width")
        typealias W = InnerNodeSlots.Word
        let words: [(PartialKeyPath<InnerNodeSlots>, Int)] = [(\.minX, W.minX), (\.maxX, W.maxX), (\.minY, W.minY), (\.maxY, W.maxY),
                                                              (\.child, W.child), (\.minZ, W.minZ), (\.maxZ, W.maxZ)]
        precondition(MemoryLayout<InnerNodeSlots>.stride == 224 && words.allSatisfy { MemoryLayout.offset(of: $0.0) == 4 * $0.1 },
                     "InnerNodeSlots is read as 56 words, in the order of InnerNodeSlots.Word")
    }

    /// Slot `s` as a box and a child.
    subscript(s: Int) -> InnerSlot {
        @inline(__always) get { InnerSlot(stored: box(at: s), child: child(at: s)) }
        @inline(__always) set { setBox(newValue.stored, at: s); setChild(newValue.child, at: s) }
    }

    // Why the slots are read and written a word at a time through a pointer: reading
    // `nodes[s / 8]` first copied the node's 224 bytes, and a write to each lane through the
    // array checked its uniqueness each time. A position report reads its leaf's slot, and
    // one that leaves its leaf's box writes boxes up the tree.

    /// The box of slot `s`.
    @inline(__always)
    func box(at s: Int) -> FloatBox {
        words(s) { w, i in
            typealias W = InnerNodeSlots.Word
            return FloatBox(minX: Float(bitPattern: w[W.minX + i]), minY: Float(bitPattern: w[W.minY + i]),
                            minZ: Float(bitPattern: w[W.minZ + i]), maxX: Float(bitPattern: w[W.maxX + i]),
                            maxY: Float(bitPattern: w[W.maxY + i]), maxZ: Float(bitPattern: w[W.maxZ + i]))
        }
    }

    /// The child (leaf or inner node) of slot `s`.
    @inline(__always)
    func child(at s: Int) -> Int32 { words(s) { w, i in Int32(bitPattern: w[InnerNodeSlots.Word.child + i]) } }

    /// Sets the box of slot `s`.
    @inline(__always)
    mutating func setBox(_ b: FloatBox, at s: Int) {
        mutatingWords(s) { w, i in
            typealias W = InnerNodeSlots.Word
            w[W.minX + i] = b.minX.bitPattern; w[W.minY + i] = b.minY.bitPattern; w[W.minZ + i] = b.minZ.bitPattern
            w[W.maxX + i] = b.maxX.bitPattern; w[W.maxY + i] = b.maxY.bitPattern; w[W.maxZ + i] = b.maxZ.bitPattern
        }
    }

    /// Sets the child of slot `s`.
    @inline(__always)
    mutating func setChild(_ c: Int32, at s: Int) { mutatingWords(s) { w, i in w[InnerNodeSlots.Word.child + i] = UInt32(bitPattern: c) } }

    /// The box of all of node `n`'s children: the least and greatest lane of each bound
    /// (the slots past its count hold empty boxes, which change neither).
    @inline(__always)
    func box(ofNode n: Int) -> FloatBox {
        let node = nodes[n]
        return FloatBox(minX: FloatQuery.least(node.minX), minY: FloatQuery.least(node.minY), minZ: FloatQuery.least(node.minZ),
                        maxX: -FloatQuery.least(-node.maxX), maxY: -FloatQuery.least(-node.maxY), maxZ: -FloatQuery.least(-node.maxZ))
    }

    /// Calls `body` with the 56 words of slot `s`'s node and the slot's lane.
    @inline(__always)
    private func words<T>(_ s: Int, _ body: (UnsafePointer<UInt32>, Int) -> T) -> T {
        precondition(s >= 0 && s < nodes.count * 8, "inner slot out of range")
        return nodes.withUnsafeBufferPointer { buffer in
            UnsafeRawPointer(buffer.baseAddress! + s / 8).withMemoryRebound(to: UInt32.self, capacity: 56) { body($0, s % 8) }
        }
    }

    @inline(__always)
    private mutating func mutatingWords(_ s: Int, _ body: (UnsafeMutablePointer<UInt32>, Int) -> Void) {
        precondition(s >= 0 && s < nodes.count * 8, "inner slot out of range")
        nodes.withUnsafeMutableBufferPointer { buffer in
            UnsafeMutableRawPointer(buffer.baseAddress! + s / 8).withMemoryRebound(to: UInt32.self, capacity: 56) { body($0, s % 8) }
        }
    }

    /// Adds a node's eight slots, empty.
    mutating func appendNode() { nodes.append(.empty) }

    /// Removes every node.
    mutating func removeAll() { nodes.removeAll() }
}

/// A query point in `Float`, each coordinate rounded down and up, repeated in eight lanes:
/// what `lowerBounds(of:)` compares a node's boxes with.
struct FloatQuery {
    let xLo, xHi, yLo, yHi, zLo, zHi: SIMD8<Float>

    init(_ q: SpherePoint) {
        let (lo, hi) = Self.outward(SIMD4(q.x, q.y, q.z, 0))
        xLo = .init(repeating: lo[0]); xHi = .init(repeating: hi[0])
        yLo = .init(repeating: lo[1]); yHi = .init(repeating: hi[1])
        zLo = .init(repeating: lo[2]); zHi = .init(repeating: hi[2])
    }

    /// For each lane (finite), a `Float` below it and one above it, each one to five steps
    /// (units in the last place) from its nearest `Float` f: f ∓ (|f|·2⁻²² + 2⁻¹⁴⁹). Two to
    /// four steps above 2⁻¹⁰⁰; near the subnormals the 2⁻¹⁴⁹ counts.
    ///
    /// Why it holds the value: v is within half a step of f, |f|·2⁻²² is at least two of
    /// f's steps (exact: a power of two times f), and the subtraction rounds by at most half
    /// a step of its result; where f is subnormal or zero, 2⁻¹⁴⁹ is a whole step and the
    /// arithmetic is exact. Why not the greatest `Float` at or below and the least at or
    /// above (`above(_:)` for one value): whether `Float(v)` rounded up or down is a coin
    /// toss, mispredicted half the time as a branch. A step in the bit pattern (one
    /// `nextDown`, one `nextUp`) needed a fix for the zeros that compiled to a compare and a
    /// `cmov` lane by lane (87 instructions for a query point); this is four vector
    /// operations a side. It loosens a bound by at most 2.4e-7 of the query's coordinate
    /// (1.5 cm within 60 km of a frame's centre).
    @inline(__always)
    static func outward(_ v: SIMD4<Double>) -> (lo: SIMD4<Float>, hi: SIMD4<Float>) {
        let f = SIMD4<Float>(v)
        let magnitude = unsafeBitCast(unsafeBitCast(f, to: SIMD4<UInt32>.self) & 0x7fff_ffff, to: SIMD4<Float>.self)
        let step = magnitude * 0x1p-22 + .leastNonzeroMagnitude
        return (f - step, f + step)
    }

    /// The least `Float` at or above `v` (a finite number, or +∞): a radius search's reach,
    /// since a bound above it is above the limit it was made from. One step in the bit
    /// pattern when `Float(v)` rounded down (toward zero above zero, away below), with no
    /// branch but the one for a zero.
    @inline(__always)
    static func above(_ v: Double) -> Float {
        let f = Float(v), under = Double(f) < v
        if f == 0 { return under ? .leastNonzeroMagnitude : f }
        let step: UInt32 = under ? 1 : 0
        return Float(bitPattern: f > 0 ? f.bitPattern &+ step : f.bitPattern &- step)
    }

    /// For each child of a node, a number at most the squared chord from the query point
    /// (exact, in `Double`) to the nearest point of the child's box: the squared distance to
    /// the box computed in `Float`, lowered by a relative 2⁻²⁰ and by 2⁻¹²⁶. An empty slot's
    /// bound is +∞.
    ///
    /// Why it is never above the exact distance: with the point rounded outward (`xHi` ≥ x),
    /// each gap such as `minX - xHi` is at most the exact one before rounding, and each of
    /// the six `Float` operations after it (the subtraction, the square, two additions, the
    /// scaling, the offset) rounds up by at most a relative 2⁻²⁴, or an absolute 2⁻¹⁴⁹ where
    /// the result is subnormal. (1 + 2⁻²⁴)⁶ × (1 − 2⁻²⁰) < 1, and the offset covers the
    /// absolute errors. Taking the larger of an axis's two gaps, and 0, does not round.
    /// `InnerSlotTests` checks it against the exact distance on random and degenerate boxes
    /// (without the lowering it fails thousands of times), and that it stays within `Float`
    /// rounding of it.
    @inline(__always)
    func lowerBounds(of n: InnerNodeSlots) -> SIMD8<Float> {
        let gx = Self.gaps(n.minX, n.maxX, xLo, xHi), gy = Self.gaps(n.minY, n.maxY, yLo, yHi)
        let gz = Self.gaps(n.minZ, n.maxZ, zLo, zHi)
        return (gx * gx + gy * gy + gz * gz) * (1 - 0x1p-20) - 0x1p-126
    }

    /// `lowerBounds(of:)` without the z gaps: lower still, so still a bound (five `Float`
    /// operations round it up, not six).
    @inline(__always)
    func planarLowerBounds(of n: InnerNodeSlots) -> SIMD8<Float> {
        let gx = Self.gaps(n.minX, n.maxX, xLo, xHi), gy = Self.gaps(n.minY, n.maxY, yLo, yHi)
        return (gx * gx + gy * gy) * (1 - 0x1p-20) - 0x1p-126
    }

    /// Each lane's gap along one axis between the boxes [`lo`, `hi`] and the query's
    /// interval [`qLo`, `qHi`], or 0 where they overlap: max(lo − qHi, qLo − hi, 0), exact
    /// (each difference rounds once; the maxima do not round).
    ///
    /// In C (`wayfare_gaps`) for its vector `?:`, a `maxps`: Swift's `pointwiseMax` is an
    /// out-of-line call, and clearing each difference's negative lanes through its sign bit
    /// and adding them took about four instructions more a half (a k = 1 query opens four
    /// nodes: 1,956 instructions became 1,888).
    @inline(__always)
    static func gaps(_ lo: SIMD8<Float>, _ hi: SIMD8<Float>, _ qLo: SIMD8<Float>, _ qHi: SIMD8<Float>) -> SIMD8<Float> {
        wayfare_gaps(lo, hi, qLo, qHi)
    }

    /// The least of eight lanes.
    ///
    /// Why lane by lane: written so, the compiler pairs the lanes into three `minps` and a
    /// `minss` (13 instructions). `SIMD.min()` is an out-of-line call, and halves compared
    /// with `replacing(with:where:)` compiled to masks and blends, three times as many.
    @inline(__always)
    static func least(_ v: SIMD8<Float>) -> Float {
        @inline(__always) func less(_ a: Float, _ b: Float) -> Float { b < a ? b : a }
        let (a, b) = (v.lowHalf, v.highHalf)
        let x = less(less(a[0], b[0]), less(a[1], b[1])), y = less(less(a[2], b[2]), less(a[3], b[3]))
        return less(x, y)
    }

    /// The first lane of `v` equal to `value`, which must be one of them.
    @inline(__always)
    static func lane(of value: Float, in v: SIMD8<Float>) -> Int {
        Int(wayfare_lanes_equal(v, value).trailingZeroBitCount)
    }

    /// The lanes of `v` at or below `limit`, as bits (lane i is bit i).
    @inline(__always)
    static func lanes(of v: SIMD8<Float>, atMost limit: Float) -> UInt32 {
        wayfare_lanes_at_most(v, limit)
    }
}
