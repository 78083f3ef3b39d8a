/// A precomputed cover of a `PolygonLayer`: a two-level grid over the layer's bounds.
///
/// A coarse cell wholly inside one feature (or outside all) answers at once. A coarse cell
/// that any edge touches points to a block of `fineSide`² fine cells; a fine cell that no
/// edge touches answers at once too. Only a fine cell touched by an edge keeps a short
/// list of candidate features, tested exactly with `PolygonLayer.locate`. Most points
/// therefore cost two array reads and no polygon test.
///
/// Coarse values (UInt32): 0 = no feature; n = feature n − 1; `blockTag | b` = see fine
/// block b. Fine values (UInt16, so a block is 512 bytes) carry a 2-bit tag:
/// `00`: 0 = no feature, n = feature n − 1; `01`: test the one feature in the low bits;
/// `10`: test the candidate list `blockListBase[b] + low bits`. A set holds at most
/// `maxFeatures` features.
///
/// Correctness rests on one invariant: a cell not marked "touched" has no edge in it or on
/// its sides, so every point in it lies in the same features as its centre. Marking is
/// conservative (a margin of 1e-6 cell), so rounding can only add border cells, never miss
/// one. Every cell index is computed by the same function at build and at query time.
struct CellCover: Sendable, Equatable {
    static let blockTag: UInt32 = 0x8000_0000
    static let borderTag: UInt32 = 0x8000_0000
    static let wholeCellFlag: UInt32 = 0x8000_0000
    static let singleTag: UInt16 = 0x4000
    static let listTag: UInt16 = 0x8000
    static let lowBits: UInt16 = 0x3FFF
    /// The most features a cover can hold (14 bits in a fine cell).
    static let maxFeatures = 0x3FFE
    static let fineShift = 3
    static var fineSide: Int { 1 << fineShift }

    var minX = 0.0, minY = 0.0
    /// Fine cells per degree on each axis.
    var invFineWidth = 1.0, invFineHeight = 1.0
    /// Coarse grid size (columns, rows); the fine grid is `fineSide` times larger.
    var columns = 0, rows = 0
    var coarse: [UInt32] = []
    var fine: [UInt16] = []
    /// Per fine block, the index of its first candidate list.
    var blockListBase: [UInt32] = []
    var candidateStart: [Int32] = [0]
    /// Feature indices; `wholeCellFlag` set when the feature covers the whole cell.
    var candidates: [UInt32] = []

    /// The feature covering (x, y), lowest index first among several, or -1.
    @inline(__always)
    func feature(x: Double, y: Double, layer: PolygonLayer) -> Int {
        let u = (x - minX) * invFineWidth, v = (y - minY) * invFineHeight
        // Outside the grid (NaN fails both tests too).
        guard u >= 0, v >= 0, u < Double(columns << Self.fineShift), v < Double(rows << Self.fineShift) else { return -1 }
        let gx = Int(u), gy = Int(v)
        let c = coarse[(gy >> Self.fineShift) * columns + (gx >> Self.fineShift)]
        if c & Self.blockTag == 0 { return Int(c) - 1 }
        let mask = Self.fineSide - 1
        let block = Int(c & ~Self.blockTag)
        let f = fine[(block << (2 * Self.fineShift)) | ((gy & mask) << Self.fineShift) | (gx & mask)]
        let low = Int(f & Self.lowBits)
        switch f >> 14 {
        case 0: return low - 1
        case 1: return layer.covers(x: x, y: y, feature: low) ? low : -1
        default: return resolve(list: Int(blockListBase[block]) + low, x: x, y: y, layer: layer)
        }
    }

    /// The batch form of `feature(x:y:layer:)`: the same arithmetic, with the cover's arrays
    /// opened once for the whole batch instead of once per point.
    func features(xs: UnsafeBufferPointer<Double>, ys: UnsafeBufferPointer<Double>, layer: PolygonLayer,
                  into out: UnsafeMutableBufferPointer<Int32>) {
        let fineColumns = Double(columns << Self.fineShift), fineRows = Double(rows << Self.fineShift)
        let mask = Self.fineSide - 1, shift = Self.fineShift, columns = columns
        let minX = minX, minY = minY, invW = invFineWidth, invH = invFineHeight
        coarse.withUnsafeBufferPointer { coarse in
            fine.withUnsafeBufferPointer { fine in
                for k in 0..<xs.count {
                    let x = xs[k], y = ys[k]
                    let u = (x - minX) * invW, v = (y - minY) * invH
                    guard u >= 0, v >= 0, u < fineColumns, v < fineRows else { out[k] = -1; continue }
                    let gx = Int(u), gy = Int(v)
                    let c = coarse[(gy >> shift) * columns + (gx >> shift)]
                    if c & Self.blockTag == 0 { out[k] = Int32(bitPattern: c) - 1; continue }
                    let block = Int(c & ~Self.blockTag)
                    let f = fine[(block << (2 * shift)) | ((gy & mask) << shift) | (gx & mask)]
                    let low = Int(f & Self.lowBits)
                    switch f >> 14 {
                    case 0: out[k] = Int32(low) - 1
                    case 1: out[k] = layer.covers(x: x, y: y, feature: low) ? Int32(low) : -1
                    default: out[k] = Int32(resolve(list: Int(blockListBase[block]) + low, x: x, y: y, layer: layer))
                    }
                }
            }
        }
    }

    @inline(never)
    func resolve(list k: Int, x: Double, y: Double, layer: PolygonLayer) -> Int {
        for j in Int(candidateStart[k])..<Int(candidateStart[k + 1]) {
            let c = candidates[j]
            if c & Self.wholeCellFlag != 0 { return Int(c & ~Self.wholeCellFlag) }
            if layer.covers(x: x, y: y, feature: Int(c)) { return Int(c) }
        }
        return -1
    }
}

extension CellCover {
    /// Builds the cover of `layer` with about `targetCoarseCells` coarse cells.
    init(layer: PolygonLayer, targetCoarseCells: Int = 1 << 17) {
        self.init()
        let n = layer.featureCount
        guard n > 0 else { return }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for f in 0..<n {
            minX = min(minX, layer.bounds[4 * f]); minY = min(minY, layer.bounds[4 * f + 1])
            maxX = max(maxX, layer.bounds[4 * f + 2]); maxY = max(maxY, layer.bounds[4 * f + 3])
        }
        // Pad so that the maximum vertices fall strictly inside the grid.
        let padX = max(1e-9, (maxX - minX) * 1e-6), padY = max(1e-9, (maxY - minY) * 1e-6)
        minX -= padX; minY -= padY; maxX += padX; maxY += padY
        // Square cells on the ground: a degree of longitude is cos(lat) of a degree of latitude.
        let midLat = (minY + maxY) / 2
        let aspect = max(0.05, cos(midLat * .pi / 180))
        let width = (maxX - minX) * aspect, height = maxY - minY
        let side = (width * height / Double(targetCoarseCells)).squareRoot()
        columns = max(1, Int((width / side).rounded(.up)))
        rows = max(1, Int((height / side).rounded(.up)))
        self.minX = minX
        self.minY = minY
        invFineWidth = Double(columns << Self.fineShift) / (maxX - minX)
        invFineHeight = Double(rows << Self.fineShift) / (maxY - minY)
        build(layer: layer)
    }

    private func fineU(_ x: Double) -> Double { (x - minX) * invFineWidth }
    private func fineV(_ y: Double) -> Double { (y - minY) * invFineHeight }

    /// The fine cells each edge touches, as (cell, feature) pairs packed in a UInt64:
    /// cell index (gy · fineColumns + gx) in the high bits, feature in the low 20.
    private func touchedCells(layer: PolygonLayer) -> [UInt64] {
        let fineColumns = columns << Self.fineShift, fineRows = rows << Self.fineShift
        let margin = 1e-6
        var out: [UInt64] = []
        out.reserveCapacity(layer.xs.count * 3)
        for f in 0..<layer.featureCount {
            let tag = UInt64(f)
            layer.forEachEdge(of: f) { i in
                let u1 = fineU(layer.xs[i]), v1 = fineV(layer.ys[i])
                let u2 = fineU(layer.xs[i + 1]), v2 = fineV(layer.ys[i + 1])
                let c0 = max(0, Int((min(u1, u2) - margin).rounded(.down)))
                let c1 = min(fineColumns - 1, Int((max(u1, u2) + margin).rounded(.down)))
                guard c0 <= c1 else { return }
                for col in c0...c1 {
                    // The segment's v-range over this column, clipped to the segment.
                    let a = max(Double(col), min(u1, u2)), b = min(Double(col + 1), max(u1, u2))
                    var lo: Double, hi: Double
                    if u1 == u2 {
                        lo = min(v1, v2); hi = max(v1, v2)
                    } else {
                        let t = (v2 - v1) / (u2 - u1)
                        let va = v1 + (a - u1) * t, vb = v1 + (b - u1) * t
                        lo = min(va, vb); hi = max(va, vb)
                    }
                    // Never beyond the segment's own ends.
                    lo = max(lo, min(v1, v2)); hi = min(hi, max(v1, v2))
                    let r0 = max(0, Int((lo - margin).rounded(.down)))
                    let r1 = min(fineRows - 1, Int((hi + margin).rounded(.down)))
                    guard r0 <= r1 else { continue }
                    for row in r0...r1 {
                        out.append(UInt64(row * fineColumns + col) << 20 | tag)
                    }
                    // A segment ending exactly on a column line also touches the next column:
                    // covered because c1 includes the margin.
                }
            }
        }
        out.sort()
        // Drop duplicate pairs.
        var w = 0
        for k in out.indices where k == 0 || out[k] != out[w - 1] {
            out[w] = out[k]; w += 1
        }
        out.removeLast(out.count - w)
        return out
    }

    /// The lowest-index feature whose interior contains (x, y), or -1.
    private static func featureAt(x: Double, y: Double, layer: PolygonLayer, skipping: [Int] = []) -> Int {
        for f in 0..<layer.featureCount where !skipping.contains(f) {
            if layer.locate(x: x, y: y, in: f) == .interior { return f }
        }
        return -1
    }

    private mutating func build(layer: PolygonLayer) {
        let fineColumns = columns << Self.fineShift
        let touched = touchedCells(layer: layer)
        let side = Self.fineSide

        // Touched features per coarse cell, and the touched fine cells grouped by cell.
        var coarseTouched = [Bool](repeating: false, count: columns * rows)
        for t in touched {
            let cell = Int(t >> 20)
            let gx = cell % fineColumns, gy = cell / fineColumns
            coarseTouched[(gy >> Self.fineShift) * columns + (gx >> Self.fineShift)] = true
        }

        // Coarse cells no edge touches: one point test per connected region (flood fill),
        // because cells in one region lie in the same features.
        coarse = [UInt32](repeating: UInt32.max, count: columns * rows)
        var blocks = 0
        for k in 0..<(columns * rows) where coarseTouched[k] {
            coarse[k] = Self.blockTag | UInt32(blocks)
            blocks += 1
        }
        var stack: [Int] = []
        for start in 0..<(columns * rows) where coarse[start] == UInt32.max {
            let cx = start % columns, cy = start / columns
            let x = minX + (Double(cx << Self.fineShift) + Double(side) / 2) / invFineWidth
            let y = minY + (Double(cy << Self.fineShift) + Double(side) / 2) / invFineHeight
            let value = UInt32(Self.featureAt(x: x, y: y, layer: layer) + 1)
            stack.append(start)
            coarse[start] = value
            while let k = stack.popLast() {
                let kx = k % columns, ky = k / columns
                for (nx, ny) in [(kx - 1, ky), (kx + 1, ky), (kx, ky - 1), (kx, ky + 1)]
                where nx >= 0 && ny >= 0 && nx < columns && ny < rows {
                    let nk = ny * columns + nx
                    if coarse[nk] == UInt32.max { coarse[nk] = value; stack.append(nk) }
                }
            }
        }

        // Fine blocks: touched fine cells get candidate lists; the rest, a flood fill each.
        var fine = [UInt32](repeating: UInt32.max, count: blocks * side * side)
        candidateStart = [0]
        candidates = []
        // Group touched pairs by fine cell.
        var k = 0
        // Features touching each coarse block, for the whole-cell test of the others.
        var blockFeatures = [[Int]](repeating: [], count: blocks)
        while k < touched.count {
            let cell = Int(touched[k] >> 20)
            var features: [Int] = []
            while k < touched.count, Int(touched[k] >> 20) == cell {
                features.append(Int(touched[k] & 0xFFFFF)); k += 1
            }
            let gx = cell % fineColumns, gy = cell / fineColumns
            let block = Int(coarse[(gy >> Self.fineShift) * columns + (gx >> Self.fineShift)] & ~Self.blockTag)
            let local = ((gy & (side - 1)) << Self.fineShift) | (gx & (side - 1))
            // Candidate lists are completed below, once whole-cell features are known; for
            // now store the touching features.
            fine[block * side * side + local] = Self.borderTag | UInt32(candidateStart.count - 1)
            for f in features { candidates.append(UInt32(f)) }
            candidateStart.append(Int32(candidates.count))
            for f in features where !blockFeatures[block].contains(f) { blockFeatures[block].append(f) }
        }

        // Per block: features that cover the block wholly without touching it; and a flood
        // fill of the untouched fine cells.
        var blockOrigin = [(Int, Int)](repeating: (0, 0), count: blocks)
        for c in 0..<(columns * rows) where coarse[c] & Self.blockTag != 0 {
            blockOrigin[Int(coarse[c] & ~Self.blockTag)] = ((c % columns) << Self.fineShift, (c / columns) << Self.fineShift)
        }
        var wholeBlock = [[Int]](repeating: [], count: blocks)
        for b in 0..<blocks {
            let (ox, oy) = blockOrigin[b]
            let x = minX + (Double(ox) + Double(side) / 2) / invFineWidth
            let y = minY + (Double(oy) + Double(side) / 2) / invFineHeight
            for f in 0..<layer.featureCount where !blockFeatures[b].contains(f) {
                if layer.locate(x: x, y: y, in: f) == .interior { wholeBlock[b].append(f) }
            }
        }

        var newStart: [Int32] = [0]
        var newCandidates: [UInt32] = []
        var compact = [UInt16](repeating: 0, count: fine.count)
        // The importer refuses more than `maxFeatures` before building a cover.
        assert(layer.featureCount <= Self.maxFeatures, "a zone set holds at most \(Self.maxFeatures) zones")
        var listBase = [UInt32](repeating: 0, count: blocks)
        for b in 0..<blocks {
            listBase[b] = UInt32(newStart.count - 1)
            let (ox, oy) = blockOrigin[b]
            let base = b * side * side
            // Flood-fill regions of untouched cells: one test per region, against the
            // features touching this block (the others are settled by wholeBlock).
            for start in 0..<(side * side) where fine[base + start] == UInt32.max {
                let lx = start & (side - 1), ly = start >> Self.fineShift
                let x = minX + (Double(ox + lx) + 0.5) / invFineWidth
                let y = minY + (Double(oy + ly) + 0.5) / invFineHeight
                var best = wholeBlock[b].min() ?? Int.max
                for f in blockFeatures[b] where f < best {
                    if layer.locate(x: x, y: y, in: f) == .interior { best = f }
                }
                let value = UInt32(best == Int.max ? 0 : best + 1)
                fine[base + start] = value
                stack.append(start)
                while let s = stack.popLast() {
                    let sx = s & (side - 1), sy = s >> Self.fineShift
                    for (nx, ny) in [(sx - 1, sy), (sx + 1, sy), (sx, sy - 1), (sx, sy + 1)]
                    where nx >= 0 && ny >= 0 && nx < side && ny < side {
                        let ns = (ny << Self.fineShift) | nx
                        if fine[base + ns] == UInt32.max { fine[base + ns] = value; stack.append(ns) }
                    }
                }
            }
            for local in 0..<(side * side) where fine[base + local] & Self.borderTag == 0 {
                compact[base + local] = UInt16(fine[base + local])
            }
            // Border cells: touching features, plus any feature that covers this cell
            // wholly without touching it, in index order; whole-cell ones need no test.
            for local in 0..<(side * side) where fine[base + local] & Self.borderTag != 0 && fine[base + local] != UInt32.max {
                let list = Int(fine[base + local] & ~Self.borderTag)
                let touching = (Int(candidateStart[list])..<Int(candidateStart[list + 1])).map { Int(candidates[$0]) }
                var entries: [(Int, Bool)] = touching.map { ($0, false) }
                for f in wholeBlock[b] { entries.append((f, true)) }
                let lx = local & (side - 1), ly = local >> Self.fineShift
                let x = minX + (Double(ox + lx) + 0.5) / invFineWidth
                let y = minY + (Double(oy + ly) + 0.5) / invFineHeight
                for f in blockFeatures[b] where !touching.contains(f) {
                    if layer.locate(x: x, y: y, in: f) == .interior { entries.append((f, true)) }
                }
                entries.sort { $0.0 < $1.0 }
                // Nothing after a whole-cell entry can win.
                var kept: [UInt32] = []
                for (f, whole) in entries {
                    kept.append(whole ? UInt32(f) | Self.wholeCellFlag : UInt32(f))
                    if whole { break }
                }
                if kept.count == 1 {
                    let f = kept[0] & ~Self.wholeCellFlag
                    compact[base + local] = kept[0] & Self.wholeCellFlag != 0 ? UInt16(f + 1) : Self.singleTag | UInt16(f)
                } else {
                    compact[base + local] = Self.listTag | UInt16(newStart.count - 1 - Int(listBase[b]))
                    newCandidates += kept
                    newStart.append(Int32(newCandidates.count))
                }
            }
        }
        candidateStart = newStart
        candidates = newCandidates
        blockListBase = listBase
        self.fine = compact
    }
}

import Foundation
