import BinaryFile

// The static indexes written into table files as they lie in memory, so a table loads
// without rebuilding them (the street grid alone takes a fifth of a second to build for
// Monaco). Reading checks every index a search follows: a corrupt file is an error, never
// an out-of-bounds read.

extension PointTree {
    package func write(to w: inout BinaryWriter) {
        w.array(xyz); w.array(ids); w.array(axes)
    }

    /// Reads a tree over `count` points, as `write(to:)` wrote it.
    package init(reading r: inout BinaryReader, count: Int) throws(BinaryReader.Failure) {
        xyz = try r.array(); ids = try r.array(); axes = try r.array()
        var seen = [Bool](repeating: false, count: count)
        for id in ids {
            guard Int(id) < count, !seen[Int(id)] else { throw .inconsistent }
            seen[Int(id)] = true
        }
        guard ids.count == count, xyz.count == 3 * count, axes.allSatisfy({ $0 < 3 }),
              axesCoverInnerNodes(0, count, node: 1) else { throw .inconsistent }
    }

    /// Whether every inner node a search can reach has an axis.
    private func axesCoverInnerNodes(_ lo: Int, _ hi: Int, node: Int) -> Bool {
        guard hi - lo > Self.leafSize else { return true }
        let mid = (lo + hi) / 2
        return node < axes.count && axesCoverInnerNodes(lo, mid, node: 2 * node) && axesCoverInnerNodes(mid + 1, hi, node: 2 * node + 1)
    }
}

extension SegmentTree {
    package func write(to w: inout BinaryWriter) {
        w.array(boxes); w.array(segmentPoint); w.array(segmentLine)
        w.array([smallestCosLatitude])
    }

    /// Reads a tree over polylines of `pointCount` points and `lineCount` lines.
    package init(reading r: inout BinaryReader, pointCount: Int, lineCount: Int) throws(BinaryReader.Failure) {
        boxes = try r.array()
        segmentPoint = try r.array(); segmentLine = try r.array()
        let cosine: [Double] = try r.array()
        guard cosine.count == 1, cosine[0] > 0, cosine[0] <= 1 else { throw .inconsistent }
        smallestCosLatitude = cosine[0]
        let n = segmentPoint.count
        guard segmentLine.count == n, segmentPoint.allSatisfy({ Int($0) + 1 < pointCount }),
              segmentLine.allSatisfy({ Int($0) < lineCount }) else { throw .inconsistent }
        levelStart = Self.levelStarts(segments: n)
        guard boxes.count == levelStart.last! * 4 else { throw .inconsistent }
    }
}

extension SegmentGrid {
    package func write(to w: inout BinaryWriter) {
        tree.write(to: &w)
        w.array([cellLat, cellLon]); w.array(blockSlots); w.array(cellStart); w.array(lists)
    }

    /// Reads a grid and its tree over polylines of `pointCount` points and `lineCount` lines.
    package init(reading r: inout BinaryReader, pointCount: Int, lineCount: Int) throws(BinaryReader.Failure) {
        tree = try SegmentTree(reading: &r, pointCount: pointCount, lineCount: lineCount)
        let size: [Double] = try r.array()
        guard size.count == 2, size.allSatisfy({ $0.isFinite && $0 > 0 }) else { throw .inconsistent }
        (cellLat, cellLon) = (size[0], size[1])
        blockSlots = try r.array(); cellStart = try r.array(); lists = try r.array()
        let n = blockSlots.count / 2, blocks = (cellStart.count - 1) / Self.blockCells, segments = UInt32(tree.segmentPoint.count)
        // A power of two with an empty slot (so probes end), blocks that exist, and lists in
        // bounds.
        guard blockSlots.count == 2 * n, n > 0, n & (n - 1) == 0,
              (0..<n).contains(where: { blockSlots[2 * $0] == Self.empty }),
              (0..<n).allSatisfy({ blockSlots[2 * $0] == Self.empty || blockSlots[2 * $0 + 1] < UInt64(blocks) }),
              Validate.offsets(cellStart, count: blocks * Self.blockCells, limit: lists.count),
              lists.allSatisfy({ $0 < segments })
        else { throw .inconsistent }
    }
}
