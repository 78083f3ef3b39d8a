import Geodesy

extension RTree {
    // MARK: Bulk load


    /// Builds a tree from many points at once, packed top-down (OMT style): each node's points
    /// are split along the widest axis of its box into as many groups as it has children,
    /// recursively. Entry ids are the input positions (entry i is `coordinates[i]`).
    ///
    /// Why not a Hilbert sort: runs of 16 along a curve make leaves with long, overlapping
    /// boxes; these splits make nearly cubic, disjoint ones. On the NYC-like fleet a 10-nearest
    /// query visits about half as many leaves.
    public init(coordinates: [Coordinate], tags: [UInt32], stamps: [Int32], payloads: [Payload]) {
        precondition(coordinates.count == tags.count && tags.count == stamps.count && stamps.count == payloads.count,
                     "bulk load arrays differ in length")
        self.init()
        let n = coordinates.count
        guard n > 0 else { return }
        latitudes = coordinates.map { $0.latitude }
        longitudes = coordinates.map { $0.longitude }
        self.payloads = payloads.map { Optional($0) }
        entryLeaf = [Int32](repeating: -1, count: n)
        entrySlot = [Int32](repeating: -1, count: n)
        count = n

        var points = [LeafSlot]()
        points.reserveCapacity(n)
        var box = Box3.empty
        for e in 0..<n {
            let c = coordinates[e]
            let p = SpherePoint(c)
            points.append(LeafSlot(x: p.x, y: p.y, z: p.z, entry: Int32(e), tag: tags[e], stamp: stamps[e]))
            box.include(p.x, p.y, p.z)
        }
        // Height: the fewest inner levels whose capacity holds every point.
        var level: Int32 = 1, capacity = Self.fanout * Self.packedLeaf
        while capacity < n { level += 1; capacity *= Self.fanout }

        inners.removeAll(); innerSlots.removeAll(); slotCells.removeAll()
        let leafEstimate = (n + Self.packedLeaf - 1) / Self.packedLeaf
        leaves.reserveCapacity(leafEstimate)
        leafSlots.reserveCapacity(leafEstimate * Self.leafCapacity)
        points.withUnsafeMutableBufferPointer { buffer in
            root = pack(buffer, 0, n, level: level, box: box, region: .everything).node
        }
    }

    /// Packs `points[lo..<hi]` into a subtree whose root is at `level` (0: a leaf);
    /// returns the root and its exact box. `box` holds the points (perhaps loosely), and
    /// `region` is the subtree's cell: the splits cut both.
    private mutating func pack(_ points: UnsafeMutableBufferPointer<LeafSlot>, _ lo: Int, _ hi: Int,
                               level: Int32, box: Box3, region: Box3) -> (node: Int32, box: Box3) {
        if level == 0 {
            let leaf = newLeaf(parent: -1, parentSlot: -1)
            let base = Int(leaf) * Self.leafCapacity
            var exact = Box3.empty
            for k in lo..<hi {
                let slot = points[k]
                leafSlots[base + k - lo] = slot
                entryLeaf[Int(slot.entry)] = leaf; entrySlot[Int(slot.entry)] = Int32(k - lo)
                exact.include(slot.x, slot.y, slot.z)
            }
            leaves[Int(leaf)].count = Int32(hi - lo)
            return (leaf, exact)
        }
        var childCapacity = Self.packedLeaf
        for _ in 1..<level { childCapacity *= Self.fanout }
        let groups = (hi - lo + childCapacity - 1) / childCapacity
        let node = newInner(level: level, parent: -1, parentSlot: -1)
        var bounds: [Run] = []
        bounds.reserveCapacity(groups)
        Self.split(points, lo, hi, into: groups, box: box, region: region, appending: &bounds)
        var exact = Box3.empty
        for (i, g) in bounds.enumerated() {
            let (child, childBox) = pack(points, g.lo, g.hi, level: level - 1, box: g.box, region: g.region)
            innerSlots[Int(node) * Self.fanout + i] = InnerSlot(box: childBox, child: child)
            slotCells[Int(node) * Self.fanout + i] = g.region
            link(child, parentLevel: level, to: node, slot: i)
            exact.include(childBox)
        }
        inners[Int(node)].count = Int32(bounds.count)
        return (node, exact)
    }

    /// A run of points for one child, with a box that holds them and the child's cell.
    private typealias Run = (lo: Int, hi: Int, box: Box3, region: Box3)

    /// Splits `points[lo..<hi]` into `groups` runs of nearly equal size by halving along the
    /// widest axis of the box (a k-d split), appending each run with a box that holds it and
    /// its cell of `region`.
    private static func split(_ points: UnsafeMutableBufferPointer<LeafSlot>, _ lo: Int, _ hi: Int, into groups: Int,
                              box: Box3, region: Box3, appending runs: inout [Run]) {
        if groups == 1 { runs.append((lo, hi, box, region)); return }
        let leftGroups = groups / 2
        let mid = lo + (hi - lo) * leftGroups / groups
        let ex = box.maxX - box.minX, ey = box.maxY - box.minY, ez = box.maxZ - box.minZ
        let axis = ex >= ey && ex >= ez ? 0 : (ey >= ez ? 1 : 2)
        let cut = select(points, lo, hi, nth: mid, axis: axis)
        // The halves' boxes and cells: the parent's, cut at the splitting value (no extra
        // pass). Points equal to the cut may lie on either side; both closed cells hold them.
        var left = box, right = box, leftRegion = region, rightRegion = region
        left[high: axis] = cut; right[low: axis] = cut
        leftRegion[high: axis] = cut; rightRegion[low: axis] = cut
        split(points, lo, mid, into: leftGroups, box: left, region: leftRegion, appending: &runs)
        split(points, mid, hi, into: groups - leftGroups, box: right, region: rightRegion, appending: &runs)
    }

    /// Reorders `points[lo..<hi]` so that the point of rank `nth` along `axis` is at `nth`,
    /// no point before it is greater and none after is smaller (Hoare quickselect with a
    /// median-of-three pivot). Returns that point's coordinate.
    private static func select(_ p: UnsafeMutableBufferPointer<LeafSlot>, _ lo: Int, _ hi: Int, nth: Int, axis: Int) -> Double {
        @inline(__always) func key(_ i: Int) -> Double { axis == 0 ? p[i].x : (axis == 1 ? p[i].y : p[i].z) }
        var lo = lo, hi = hi - 1
        while hi > lo {
            let m = lo + (hi - lo) / 2
            // Median of three at `m`.
            if key(m) < key(lo) { p.swapAt(m, lo) }
            if key(hi) < key(lo) { p.swapAt(hi, lo) }
            if key(hi) < key(m) { p.swapAt(hi, m) }
            let pivot = key(m)
            var i = lo, j = hi
            while i <= j {
                while key(i) < pivot { i += 1 }
                while key(j) > pivot { j -= 1 }
                if i <= j { p.swapAt(i, j); i += 1; j -= 1 }
            }
            if nth <= j { hi = j } else if nth >= i { lo = i } else { break }
        }
        return key(nth)
    }
}
