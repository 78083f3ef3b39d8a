import Geodesy

/// What the bulk load moves around while it partitions: a point's key and its entry
/// (16 bytes; the 40-byte leaf slots are written once, at the leaves).
struct PackItem {
    var key: CellKey
    var entry: Int32
}

extension RTreeCore {
    // MARK: Bulk load

    /// Builds a tree from many points at once, packed top-down (OMT style): each node's points
    /// are split along the widest axis of its cell into as many groups as it has children,
    /// recursively. Entry ids are the input positions (entry i is `coordinates[i]`).
    ///
    /// Why not a Hilbert sort: runs of 16 along a curve make leaves with long, overlapping
    /// boxes; these splits make nearly cubic, disjoint ones. On the NYC-like fleet a 10-nearest
    /// query visits about half as many leaves.
    ///
    /// Why 16-byte records: the partitioning passes over every point once per binary split,
    /// and the time goes in memory traffic; with the 40-byte leaf slots a million points took
    /// 1.7× as long.
    init(coordinates: [Coordinate], tags: [UInt32], stamps: [Int64]) {
        self.init()
        let n = coordinates.count
        guard n > 0 else { return }
        positions = coordinates
        places = [EntryPlace](repeating: .nowhere, count: n)
        count = n

        // The frame is centred on the points' mean direction; each point's trigonometry is
        // done once, and the frame's motion applied in a second pass.
        var points = coordinates.map(SpherePoint.init)
        var sum = SpherePoint(x: 0, y: 0, z: 0)
        for p in points { sum.x += p.x; sum.y += p.y; sum.z += p.z }
        frame = SphereFrame(centredOn: sum)
        var items = [PackItem]()
        items.reserveCapacity(n)
        var keys = Cell.empty
        for e in 0..<n {
            let p = frame.move(points[e])
            let key = CellKey(p)
            points[e] = p
            items.append(PackItem(key: key, entry: Int32(e)))
            keys.include(key)
        }
        // Height: the fewest inner levels whose capacity holds every point.
        var level: Int32 = 1, capacity = Self.fanout * Self.packedLeaf
        while capacity < n { level += 1; capacity *= Self.fanout }

        // Three passes. Why: reading each point, tag and stamp where its leaf is written
        // costs three cache misses per point, in random order, which the CPU waits for. So the
        // partitioning only decides every entry's leaf and slot (random *stores*, which it
        // does not wait for); then the leaves are written in entry order, reading the inputs
        // front to back; then the boxes are made from the leaves up.
        inners.removeAll(); innerSlots.removeAll(); slotCells.removeAll()
        let leafEstimate = (n + Self.packedLeaf - 1) / Self.packedLeaf
        leaves.reserveCapacity(leafEstimate + leafEstimate / 4 + 1)   // the same room as `writeLeaves` leaves
        items.withUnsafeMutableBufferPointer { buffer in
            root = pack(buffer, 0, n, level: level, keys: keys, cell: .everything)
        }
        writeLeaves(points: points, tags: tags, stamps: stamps)
        writeBoxes()
    }

    /// Packs `items[lo..<hi]` into a subtree whose root is at `level` (0: a leaf) and returns
    /// its root. A leaf gets its count and each of its entries their leaf and slot; the
    /// slots themselves are written by `writeLeaves`. `keys` holds the items' keys (perhaps
    /// loosely), and `cell` is the subtree's cell: the splits cut both.
    private mutating func pack(_ items: UnsafeMutableBufferPointer<PackItem>, _ lo: Int, _ hi: Int,
                               level: Int32, keys: Cell, cell: Cell) -> Int32 {
        if level == 0 {
            let leaf = Int32(leaves.count)
            leaves.append(Header(count: Int32(hi - lo), parent: -1, parentSlot: -1, level: 0))
            for k in lo..<hi {
                let e = Int(items[k].entry)
                places[e] = EntryPlace(leaf: leaf, slot: Int32(k - lo))
            }
            return leaf
        }
        var childCapacity = Self.packedLeaf
        for _ in 1..<level { childCapacity *= Self.fanout }
        let groups = (hi - lo + childCapacity - 1) / childCapacity
        let node = newInner(level: level, parent: -1, parentSlot: -1)
        var runs: [Run] = []
        runs.reserveCapacity(groups)
        Self.split(items, lo, hi, into: groups, keys: keys, cell: cell, appending: &runs)
        for (i, run) in runs.enumerated() {
            let child = pack(items, run.lo, run.hi, level: level - 1, keys: run.keys, cell: run.cell)
            innerSlots.setChild(child, at: Int(node) * Self.fanout + i)
            slotCells[Int(node) * Self.fanout + i] = run.cell
            link(child, parentLevel: level, to: node, slot: i)
        }
        inners[Int(node)].count = Int32(runs.count)
        return node
    }

    /// Writes every entry into the slot `pack` gave it, in entry order, and fills the
    /// leaves' unused slots.
    private mutating func writeLeaves(points: [SpherePoint], tags: [UInt32], stamps: [Int64]) {
        let capacity = Self.leafCapacity, leaves = self.leaves, places = self.places
        // Room for a quarter more leaves: a live fleet splits leaves soon after a cold start,
        // and the first split would otherwise copy every slot into a new buffer (measured:
        // the first round of 100k reports took 2 ms longer). Untouched capacity costs
        // address space, not memory.
        let room = (leaves.count + leaves.count / 4 + 1) * capacity
        leafSlots = [LeafSlot](unsafeUninitializedCapacity: room) { slots, initialized in
            for e in points.indices {
                let p = points[e]
                slots[Int(places[e].leaf) * capacity + Int(places[e].slot)] =
                    LeafSlot(x: p.x, y: p.y, z: p.z, entry: Int32(e), tag: tags[e], stamp: stamps[e])
            }
            for (leaf, header) in leaves.enumerated() {
                for s in Int(header.count)..<capacity { slots[leaf * capacity + s] = Self.emptyLeafSlot }
            }
            initialized = leaves.count * capacity
        }
    }

    /// Sets every child's box in its parent's slot: the leaves' from their points, then the
    /// inner nodes' from their children's, deepest first (a node is made before its
    /// children, so reverse creation order visits children first). The union of outward
    /// rounded boxes is the outward rounding of the union, so inner boxes stay tight.
    private mutating func writeBoxes() {
        for leaf in leaves.indices {
            let header = leaves[leaf]
            var exact = Box3.empty
            let base = leaf * Self.leafCapacity
            for s in base..<(base + Int(header.count)) { exact.include(leafSlots[s].x, leafSlots[s].y, leafSlots[s].z) }
            innerSlots.setBox(FloatBox(outward: exact), at: Int(header.parent) * Self.fanout + Int(header.parentSlot))
        }
        for node in inners.indices.reversed() where inners[node].parent >= 0 {
            let header = inners[node]
            innerSlots.setBox(innerFloatBox(node), at: Int(header.parent) * Self.fanout + Int(header.parentSlot))
        }
    }

    /// A run of items for one child, with a box that holds their keys and the child's cell.
    private typealias Run = (lo: Int, hi: Int, keys: Cell, cell: Cell)

    /// Splits `items[lo..<hi]` into `groups` runs of nearly equal size by halving along the
    /// widest axis of their keys (a k-d split), appending each run with its keys' box and its
    /// part of `cell`.
    private static func split(_ items: UnsafeMutableBufferPointer<PackItem>, _ lo: Int, _ hi: Int, into groups: Int,
                              keys: Cell, cell: Cell, appending runs: inout [Run]) {
        if groups == 1 { runs.append((lo, hi, keys, cell)); return }
        let leftGroups = groups / 2
        let mid = lo + (hi - lo) * leftGroups / groups
        let axis = keys.widestAxis
        let cut = select(items, lo, hi, nth: mid, axis: axis)
        // The halves' key boxes and cells: the parent's, cut at the splitting value (no extra
        // pass). Items equal to the cut may lie on either side; both closed cells hold them.
        var left = keys, right = keys, leftCell = cell, rightCell = cell
        left[high: axis] = cut; right[low: axis] = cut
        leftCell[high: axis] = cut; rightCell[low: axis] = cut
        split(items, lo, mid, into: leftGroups, keys: left, cell: leftCell, appending: &runs)
        split(items, mid, hi, into: groups - leftGroups, keys: right, cell: rightCell, appending: &runs)
    }

    /// Reorders `items[lo..<hi]` so that the item of rank `nth` along `axis` is at `nth`,
    /// no item before it is greater and none after is smaller. Returns that item's key.
    ///
    /// Quickselect with branch-free partitions. Why branch-free: the keys are random, so a
    /// comparison branch is mispredicted half the time, which cost more than a second pass.
    /// (The axis test per item is a branch that is always predicted.)
    ///
    /// Large ranges are first narrowed Floyd–Rivest style: two pivots from a sorted sample,
    /// just below and above the wanted rank, cut out a small middle that holds it in about
    /// 1.5 passes, where halving around a median-of-three pivot takes about 3.
    private static func select(_ p: UnsafeMutableBufferPointer<PackItem>, _ lo: Int, _ hi: Int, nth: Int, axis: Int) -> Float {
        var lo = lo, hi = hi
        while hi - lo > sampledSelectMinimum {
            let (low, high) = pivots(p, lo, hi, nth: nth, axis: axis)
            // [lo, a): < low; [a, b): low ... high; [b, hi): > high.
            let a = partition(p, lo, hi) { $0.key[axis] < low }
            if nth < a { hi = a; continue }
            let b = partition(p, a, hi) { $0.key[axis] <= high }
            if nth >= b { lo = b; continue }
            if low == high { return low }        // the middle is all one key
            if a == lo && b == hi { break }      // no progress (a sample of few values): halve instead
            lo = a; hi = b
        }
        while hi - lo > 1 {
            let a = p[lo].key[axis], b = p[lo + (hi - lo) / 2].key[axis], c = p[hi - 1].key[axis]
            let pivot = max(min(a, b), min(max(a, b), c))
            // [lo, less): < pivot; [less, hi): ≥ pivot.
            let less = partition(p, lo, hi) { $0.key[axis] < pivot }
            if nth < less { hi = less; continue }
            if less > lo { lo = less; continue }
            // The pivot is the least key: peel off the items equal to it (this ends a range
            // of one repeated key, which halving alone would never shrink).
            let equal = partition(p, less, hi) { $0.key[axis] == pivot }
            if nth < equal { return pivot }
            lo = equal
        }
        return p[nth].key[axis]
    }

    /// Ranges longer than this are narrowed with sampled pivots first.
    private static var sampledSelectMinimum: Int { 1_024 }

    /// Two keys from a sorted sample of `p[lo..<hi]` that likely bracket the key of rank
    /// `nth`: the sample's ranks two standard deviations either side of where `nth` falls.
    private static func pivots(_ p: UnsafeMutableBufferPointer<PackItem>, _ lo: Int, _ hi: Int, nth: Int,
                               axis: Int) -> (Float, Float) {
        let n = hi - lo
        let m = 2 * Int(Double(n).squareRoot())
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: m) { buffer in
            // An evenly strided sample: a poor pair of pivots costs one more round, not a
            // wrong answer.
            var sample = buffer
            for i in 0..<m { sample[i] = p[lo + i * n / m].key[axis] }
            sample.sort()
            let rank = (nth - lo) * m / n
            let spread = Int(Double(m).squareRoot())
            return (sample[max(0, rank - spread)], sample[min(m - 1, rank + spread)])
        }
    }

    /// Moves the items of `p[lo..<hi]` that pass `isLow` to the front, branch-free; returns
    /// the end of that run.
    @inline(__always)
    private static func partition(_ p: UnsafeMutableBufferPointer<PackItem>, _ lo: Int, _ hi: Int,
                                  isLow: (PackItem) -> Bool) -> Int {
        var less = lo
        for j in lo..<hi {
            let x = p[j]
            p[j] = p[less]; p[less] = x
            less += isLow(x) ? 1 : 0
        }
        return less
    }
}
