import Foundation
import Geodesy

/// A `SegmentTree` with a sparse grid in front of it: every cell near a segment lists each
/// segment that can be the nearest to some point of the cell, so a query reads one short
/// list instead of walking the tree. Answers are the tree's, bit for bit (the same formula
/// on a superset of the winner); points in no listed cell ask the tree.
///
/// Why a grid: reverse geocoding asks for the nearest street at every map scroll, and the
/// tree's walk (about ten nodes, with a box test per child) cost twice the budget.
/// A cell list is a branch-light loop over about ten segments.
///
/// Why sparse: cells are numbered on a global grid and grouped in blocks of 32 × 32; only
/// blocks near a segment are stored, found through a small hash table. Memory follows the
/// length of the network, not its bounding box (a table of two cities 2,000 km apart holds
/// blocks around their streets only), and a query reads one dense block, not a hash slot
/// per cell.
///
/// `Sendable`: immutable arrays.
public struct SegmentGrid: Sendable {
    /// The tree the lists point into, and the fallback.
    public let tree: SegmentTree
    /// Cell size in degrees. Cell (row, col) spans latitudes from row·cellLat − 90 and
    /// longitudes from col·cellLon − 180.
    let cellLat, cellLon: Double
    /// An open-addressing hash table of blocks, two words per slot: the block's key
    /// (blockRow << 32 | blockCol, `empty` for none) and its number. Its size is a power of
    /// two and at least one slot is empty, so every probe ends.
    let blockSlots: [UInt64]
    /// Cell k of block b (k = 32·(row mod 32) + col mod 32) lists
    /// `lists[cellStart[1024·b + k] ..< cellStart[1024·b + k + 1]]`, segment ids in leaf
    /// order; an empty list means "ask the tree".
    let cellStart: [UInt32]
    let lists: [UInt32]

    static let empty = UInt64.max
    static let blockBits: UInt64 = 5, blockSide = 1 << 5, blockCells = 1 << 10

    /// The bytes its arrays and its tree hold.
    public var memoryBytes: Int { tree.memoryBytes + blockSlots.count * 8 + cellStart.count * 4 + lists.count * 4 }
    /// The number of cells with a list.
    public var cellCount: Int { zip(cellStart, cellStart.dropFirst()).count { $0 < $1 } }

    /// An empty grid.
    public init() { self.init(SegmentTree()) }

    /// A grid of square cells of about `cellMetres` over every point within about `coverage`
    /// metres of a segment (farther points ask the tree), listing at most `maxList`
    /// segments per cell (a cell that needs more asks the tree).
    public init(_ tree: SegmentTree, cellMetres: Double = 20, coverage: Double = 150, maxList: Int = 96) {
        precondition(cellMetres >= 1, "cells under a metre would overflow a key's 32-bit column")
        self.tree = tree
        guard let b = tree.bounds else {
            (cellLat, cellLon, blockSlots, cellStart, lists) = (1, 1, [Self.empty, 0], [0], [])
            return
        }
        let ky = SegmentTree.metresPerDegree
        // Square at the network's middle latitude; correctness does not depend on the shape.
        let cosMid = max(cos((b.minLat + b.maxLat) / 2 * .pi / 180), 0.01)
        let (cellLat, cellLon) = (cellMetres / ky, cellMetres / (ky * cosMid))
        (self.cellLat, self.cellLon) = (cellLat, cellLon)

        // The cells within `coverage` of a segment: around each bottom-level node's box
        // (eight segments) when it is compact, else around each of its segments, row by row
        // (a node or segment joining two cities would otherwise cover everything between).
        var keys: [UInt64] = []
        let level = tree.levelStart.count > 2 ? 1 : 0, dLat = coverage / ky
        func cover(_ lat0: Double, _ lat1: Double, _ lon0: Double, _ lon1: Double, rowLon: (Double, Double) -> (Double, Double)) {
            let cosNear = max(cos(min(89.9, max(abs(lat0), abs(lat1)) + dLat) * .pi / 180), 0.001)
            let dLon = coverage / (ky * cosNear)
            for r in Self.row(lat0 - dLat, cellLat)...Self.row(lat1 + dLat, cellLat) {
                let south = Double(r) * cellLat - 90
                let (w, e) = rowLon(south - dLat, south + cellLat + dLat)
                guard w <= e else { continue }
                for c in Self.col(max(w, lon0) - dLon, cellLon)...Self.col(min(e, lon1) + dLon, cellLon) {
                    keys.append(Self.blockKey(r, c) << 10 | Self.cellInBlock(r, c))
                }
            }
        }
        let x = tree.boxes
        for node in 0..<(tree.levelStart[level + 1] - tree.levelStart[level]) {
            let o = (tree.levelStart[level] + node) * 4
            let (lat0, lat1) = (min(x[o], x[o + 2]), max(x[o], x[o + 2])), (lon0, lon1) = (min(x[o + 1], x[o + 3]), max(x[o + 1], x[o + 3]))
            if level == 0 || ((lat1 - lat0) * ky < 2 * coverage && (lon1 - lon0) * ky * cosMid < 2 * coverage) {
                cover(lat0, lat1, lon0, lon1) { _, _ in (lon0, lon1) }
                continue
            }
            for s in (node * SegmentTree.fanout)..<min((node + 1) * SegmentTree.fanout, tree.segmentPoint.count) {
                let (ay, ax, by, bx) = (x[4 * s], x[4 * s + 1], x[4 * s + 2], x[4 * s + 3])
                // The segment's longitudes within a band of latitudes.
                cover(min(ay, by), max(ay, by), min(ax, bx), max(ax, bx)) { south, north in
                    guard ay != by else { return ay >= south && ay <= north ? (min(ax, bx), max(ax, bx)) : (1, 0) }
                    let t0 = max(0, min(1, (south - ay) / (by - ay))), t1 = max(0, min(1, (north - ay) / (by - ay)))
                    let (xa, xb) = (ax + t0 * (bx - ax), ax + t1 * (bx - ax))
                    return (min(xa, xb), max(xa, xb))
                }
            }
        }
        // Sorted by block, then cell: each block's cells come together.
        keys.sort()

        var blocks: [UInt64] = [], start: [UInt32] = [0], out: [UInt32] = []
        var i = 0
        while i < keys.count {
            let block = keys[i] >> 10
            var wanted = [Bool](repeating: false, count: Self.blockCells)
            while i < keys.count && keys[i] >> 10 == block { wanted[Int(keys[i] & 1023)] = true; i += 1 }
            blocks.append(block)
            let (blockRow, blockCol) = (block >> 32, block & 0xFFFF_FFFF)
            for k in 0..<Self.blockCells {
                if wanted[k] {
                    let r = blockRow << Self.blockBits | UInt64(k >> 5), c = blockCol << Self.blockBits | UInt64(k & 31)
                    let cell = Self.candidates(tree, south: Double(r) * cellLat - 90, west: Double(c) * cellLon - 180,
                                               cellLat: cellLat, cellLon: cellLon)
                    if cell.count <= maxList { out += cell.map { UInt32($0) } }
                }
                start.append(UInt32(out.count))
            }
        }
        var size = 2
        while size < 2 * blocks.count + 1 { size *= 2 }
        var table = [UInt64](repeating: Self.empty, count: 2 * size)
        for (n, key) in blocks.enumerated() {
            var j = Self.hash(key, size)
            while table[2 * j] != Self.empty { j = (j + 1) & (size - 1) }
            (table[2 * j], table[2 * j + 1]) = (key, UInt64(n))
        }
        (blockSlots, cellStart, lists) = (table, start, out)
    }

    @inline(__always) static func blockKey(_ row: UInt64, _ col: UInt64) -> UInt64 { (row >> blockBits) << 32 | col >> blockBits }
    @inline(__always) static func cellInBlock(_ row: UInt64, _ col: UInt64) -> UInt64 { (row & 31) << blockBits | col & 31 }

    // Clamped so that no coordinate, however wild, traps: a key outside the grid is a miss.
    static func row(_ latitude: Double, _ cellLat: Double) -> UInt64 { UInt64(min(max(0, (latitude + 90) / cellLat), 4e9)) }
    static func col(_ longitude: Double, _ cellLon: Double) -> UInt64 { UInt64(min(max(0, (longitude + 180) / cellLon), 4e9)) }
    /// Fibonacci hashing into a table of `size` (a power of two) slots.
    @inline(__always) static func hash(_ key: UInt64, _ size: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - size.trailingZeroBitCount)) & (size - 1)
    }

    /// Every segment that can be nearest to a point of the cell, in leaf order.
    ///
    /// With m the cell's centre and D_m the planar metric at m's latitude: s0, the nearest to
    /// m, is within U = max over the corners of D_m(corner, s0) of every point of the cell
    /// (distance to a segment is convex, so its maximum over a box is at a corner). A query
    /// at latitude φ measures longitude with cos φ instead of cos φ_m, which stretches
    /// distances by a factor between lo = min(1, cos φ / cos φ_m) and hi = max(1, …). So the
    /// winner w for a query q has D_m(cell, w) ≤ D_q(q, w) / lo ≤ D_q(q, s0) / lo ≤ U·hi/lo.
    static func candidates(_ tree: SegmentTree, south: Double, west: Double, cellLat: Double, cellLon: Double) -> [Int] {
        // A hair wider than the cell, so a query rounded into it from the edge is covered.
        let eps = 1e-9
        let lat = (south - eps)...(south + cellLat + eps), lon = (west - eps)...(west + cellLon + eps)
        let mid = Coordinate(unchecked: (lat.lowerBound + lat.upperBound) / 2, (lon.lowerBound + lon.upperBound) / 2)
        let cosMid = cos(mid.latitude * .pi / 180)
        guard let s0 = tree.nearest(to: mid, within: .infinity) else { return [] }
        var u = 0.0
        for y in [lat.lowerBound, lat.upperBound] {
            for x in [lon.lowerBound, lon.upperBound] {
                u = max(u, tree.project(Coordinate(unchecked: y, x), onSegment: s0.segment, cosφ: cosMid).metres)
            }
        }
        let cosA = cos(lat.lowerBound * .pi / 180), cosB = cos(lat.upperBound * .pi / 180)
        let cosLow = min(cosA, cosB), cosHigh = lat.contains(0) ? 1 : max(cosA, cosB)
        let reach = u * max(1, cosHigh / cosMid) / min(1, cosLow / cosMid) * (1 + 1e-9) + 1e-6
        // Box distances with the smaller cosine are lower bounds of D_m: a superset.
        return tree.segments(nearLatitudes: lat, longitudes: lon, within: reach,
                             kx: min(cosLow, cosMid) * SegmentTree.metresPerDegree)
    }

    /// The nearest segment to `c` within `limit` metres: the same answer as
    /// `tree.nearest(to:within:)`.
    public func nearest(to c: Coordinate, within limit: Double) -> SegmentHit? {
        let (row, col) = (Self.row(c.latitude, cellLat), Self.col(c.longitude, cellLon))
        let key = Self.blockKey(row, col), size = blockSlots.count / 2
        var i = Self.hash(key, size), block = -1
        blockSlots.withUnsafeBufferPointer { slot in
            // The wall: `size` is a power of two and the build left a slot empty.
            while slot[2 * i] != Self.empty {
                if slot[2 * i] == key { block = Int(slot[2 * i + 1]); break }
                i = (i + 1) & (size - 1)
            }
        }
        guard block >= 0 else { return tree.nearest(to: c, within: limit) }
        let cell = block * Self.blockCells + Int(Self.cellInBlock(row, col))
        let lo = Int(cellStart[cell]), hi = Int(cellStart[cell + 1])
        guard lo < hi else { return tree.nearest(to: c, within: limit) }
        let ky = SegmentTree.metresPerDegree, kx = cos(c.latitude * .pi / 180) * ky
        let (qy, qx) = (c.latitude, c.longitude)
        var best = (segment: -1, t: 0.0, metres2: limit * limit)
        tree.boxes.withUnsafeBufferPointer { b in
            lists.withUnsafeBufferPointer { list in
                // The wall: every listed id is a segment of `tree` (the build wrote them, and
                // a read checks them).
                for i in lo..<hi {
                    let s = Int(list[i])
                    let (t, d) = SegmentTree.closest(b, s, qy, qx, kx: kx, ky: ky)
                    // Lists are in leaf order, so the first of equals is the tree's tie winner.
                    if d < best.metres2 || (d == best.metres2 && best.segment < 0) { best = (s, t, d) }
                }
            }
        }
        guard best.segment >= 0 else { return nil }
        return SegmentHit(segment: best.segment, fraction: best.t, metres: best.metres2.squareRoot())
    }
}
