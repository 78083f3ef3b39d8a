import Geodesy

// The node and entry records of `RTreeCore`, kept in its flat arrays.

/// One point in a leaf: its unit vector (in the tree's frame), entry, tag and stamp (40 bytes).
struct LeafSlot: Sendable {
    var x: Double, y: Double, z: Double
    var entry: Int32
    var tag: UInt32
    var stamp: Int64

    /// The squared chord to `q` (as `SpherePoint.chord2(to:)`, from the slot's side).
    @inline(__always)
    func chord2(to q: SpherePoint) -> Double {
        let dx = x - q.x, dy = y - q.y, dz = z - q.z
        return dx * dx + dy * dy + dz * dz
    }
}

/// One child of an inner node: its box and its id (a leaf or an inner node).
///
/// The box is stored in `Float`, rounded outward, so it always holds the exact box: pruning
/// stays a true lower bound while an inner node takes 224 bytes instead of 448, which is what
/// a query mostly pays for (memory traffic). The tree keeps its slots in vectors, a node's
/// eight at a time (`InnerSlotArray`); this is one slot as the updates read and write it.
struct InnerSlot: Sendable {
    var stored: FloatBox
    var child: Int32

    init(box: Box3, child: Int32) { stored = FloatBox(outward: box); self.child = child }

    init(stored: FloatBox, child: Int32) { self.stored = stored; self.child = child }
}

/// A `Box3` in single precision, each bound rounded away from the box's inside.
struct FloatBox: Equatable, Sendable {
    var minX, minY, minZ, maxX, maxY, maxZ: Float

    init(minX: Float, minY: Float, minZ: Float, maxX: Float, maxY: Float, maxZ: Float) {
        self.minX = minX; self.minY = minY; self.minZ = minZ
        self.maxX = maxX; self.maxY = maxY; self.maxZ = maxZ
    }

    init(outward b: Box3) {
        func down(_ v: Double) -> Float { let f = Float(v); return Double(f) > v ? f.nextDown : f }
        func up(_ v: Double) -> Float { let f = Float(v); return Double(f) < v ? f.nextUp : f }
        minX = down(b.minX); minY = down(b.minY); minZ = down(b.minZ)
        maxX = up(b.maxX); maxY = up(b.maxY); maxZ = up(b.maxZ)
    }

    @inline(__always)
    func contains(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        x >= Double(minX) && x <= Double(maxX) && y >= Double(minY) && y <= Double(maxY) && z >= Double(minZ) && z <= Double(maxZ)
    }

    /// Grows the box to hold a point (rounding outward).
    @inline(__always)
    mutating func include(_ x: Double, _ y: Double, _ z: Double) {
        let p = FloatBox(outward: Box3(minX: x, minY: y, minZ: z, maxX: x, maxY: y, maxZ: z))
        minX = Swift.min(minX, p.minX); minY = Swift.min(minY, p.minY); minZ = Swift.min(minZ, p.minZ)
        maxX = Swift.max(maxX, p.maxX); maxY = Swift.max(maxY, p.maxY); maxZ = Swift.max(maxZ, p.maxZ)
    }

    /// Grows the box to hold another.
    @inline(__always)
    mutating func include(_ b: FloatBox) {
        minX = Swift.min(minX, b.minX); minY = Swift.min(minY, b.minY); minZ = Swift.min(minZ, b.minZ)
        maxX = Swift.max(maxX, b.maxX); maxY = Swift.max(maxY, b.maxY); maxZ = Swift.max(maxZ, b.maxZ)
    }

    /// False only when the point is certainly not an extreme of the points the box was
    /// made from (so removing it cannot shrink the box).
    @inline(__always)
    func mayBeBoundedBy(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        x <= Double(minX.nextUp) || y <= Double(minY.nextUp) || z <= Double(minZ.nextUp)
            || x >= Double(maxX.nextDown) || y >= Double(maxY.nextDown) || z >= Double(maxZ.nextDown)
    }

    /// True when the boxes share a bound on some side (so shrinking one may shrink the other).
    @inline(__always)
    func touches(_ b: FloatBox) -> Bool {
        minX == b.minX || minY == b.minY || minZ == b.minZ || maxX == b.maxX || maxY == b.maxY || maxZ == b.maxZ
    }

    static let empty = FloatBox(outward: .empty)

    var exact: Box3 {
        Box3(minX: Double(minX), minY: Double(minY), minZ: Double(minZ), maxX: Double(maxX), maxY: Double(maxY), maxZ: Double(maxZ))
    }
}

/// Where an entry sits: its leaf and its slot there, side by side so that a position
/// report finds both in one cache line.
struct EntryPlace: Sendable {
    var leaf: Int32
    var slot: Int32
    static let nowhere = EntryPlace(leaf: -1, slot: -1)
}

/// A node's bookkeeping: its slot count, its parent and its slot there, and (inner
/// nodes) its level, 1 meaning the children are leaves.
struct Header: Sendable {
    var count: Int32
    var parent: Int32
    var parentSlot: Int32
    var level: Int32
}

/// The R-tree itself, without payloads: nodes, entries, updates and searches (see `RTree`
/// for the design).
///
/// Why a separate, non-generic type: a generic method called from another module runs
/// unspecialised (the type's metadata looked up per call, helpers not inlined, the loop's
/// state spilled around calls). Nothing here depends on the payload, so the whole engine is
/// compiled once, fully optimised, and `RTree<Payload>` only forwards to it.
///
/// `Sendable`: a value type of arrays.
@usableFromInline struct RTreeCore: Sendable {
    /// Children per inner node. Why 8 and not 16: a query computes the box distance of
    /// every child of every node it opens, and with 8 it opens more levels but computes
    /// fewer distances (k = 1 at 100k cabs measured 7–10 % faster, the 1 km radius 2–3 %
    /// slower, k = 10 the same). It is also the width of the vectors a node's boxes are
    /// kept in (`InnerSlotArray`).
    static var fanout: Int { 8 }
    /// Points a leaf can hold. More than the bulk load puts in one (`packedLeaf`), so that a
    /// leaf takes in the cabs that drive into its cell for a while before it splits.
    static var leafCapacity: Int { 24 }
    /// Points per leaf after a bulk load.
    static var packedLeaf: Int { 16 }

    var leaves: [Header] = []
    var leafSlots: [LeafSlot] = []
    var inners: [Header] = []
    /// The cell of the child in each inner slot (searches never read it).
    var slotCells: [Cell] = []
    /// Each inner slot's box and child, eight lanes a node (see `InnerSlotArray`).
    var innerSlots = InnerSlotArray()
    var root: Int32 = 0
    /// The motion every stored point and every query goes through (see `SphereFrame`):
    /// centred on the points of a bulk load, or on the first point a new tree is given.
    var frame = SphereFrame.identity

    // Entries.
    /// Where each entry sits (`nowhere` once removed).
    var places: [EntryPlace] = []
    /// Each entry's coordinate as given (after a bulk load, the caller's array itself until
    /// the first report writes to it).
    var positions: [Coordinate] = []
    var freeEntries: [Int32] = []
    @usableFromInline var count = 0

    /// An empty tree.
    init() {
        root = newInner(level: 1, parent: -1, parentSlot: -1)
    }

    // MARK: Entries

    /// The position of a live entry.
    func position(of entry: EntryID) -> Coordinate {
        positions[Int(entry.rawValue)]
    }

    /// The tag and stamp of a live entry.
    func tagAndStamp(of entry: EntryID) -> (tag: UInt32, stamp: Int64) {
        let slot = leafSlots[slotIndex(of: entry.rawValue)]
        return (slot.tag, slot.stamp)
    }

    /// The number of leaves, empty ones included (for statistics and tests).
    var leafCount: Int { leaves.count }

    /// True when `entry` names a live entry of this tree.
    @usableFromInline func contains(_ entry: EntryID) -> Bool {
        let e = Int(entry.rawValue)
        return e >= 0 && e < places.count && places[e].leaf >= 0
    }

    @inline(__always)
    func slotIndex(of e: Int32) -> Int { Int(places[Int(e)].leaf) * Self.leafCapacity + Int(places[Int(e)].slot) }

    mutating func newEntry(_ c: Coordinate) -> Int32 {
        if let e = freeEntries.popLast() {
            positions[Int(e)] = c
            return e
        }
        places.append(.nowhere)
        positions.append(c)
        return Int32(places.count - 1)
    }

    // MARK: Nodes

    static var emptyLeafSlot: LeafSlot { LeafSlot(x: 0, y: 0, z: 0, entry: -1, tag: 0, stamp: 0) }


    mutating func newLeaf(parent: Int32, parentSlot: Int32) -> Int32 {
        let header = Header(count: 0, parent: parent, parentSlot: parentSlot, level: 0)
        leaves.append(header)
        leafSlots += repeatElement(Self.emptyLeafSlot, count: Self.leafCapacity)
        return Int32(leaves.count - 1)
    }

    mutating func newInner(level: Int32, parent: Int32, parentSlot: Int32) -> Int32 {
        let header = Header(count: 0, parent: parent, parentSlot: parentSlot, level: level)
        inners.append(header)
        innerSlots.appendNode()
        slotCells += repeatElement(Cell.empty, count: Self.fanout)
        return Int32(inners.count - 1)
    }

    /// The exact box of a leaf's points.
    @inline(__always)
    func leafBox(_ l: Int) -> Box3 {
        var b = Box3.empty
        let base = l * Self.leafCapacity
        for s in base..<(base + Int(leaves[l].count)) { b.include(leafSlots[s].x, leafSlots[s].y, leafSlots[s].z) }
        return b
    }

    /// The box of an inner node's children, as stored.
    @inline(__always)
    func innerFloatBox(_ n: Int) -> FloatBox { innerSlots.box(ofNode: n) }

    /// Makes the boxes from a leaf up hold a point added to it (the point was not in the
    /// leaf before: boxes only grow, and the walk stops at the first box that holds it).
    mutating func grow(leaf: Int32, toHold p: SpherePoint) {
        var s = parentSlotIndex(of: leaf, isLeaf: true), node = leaves[Int(leaf)].parent
        var box = innerSlots.box(at: s)
        while !box.contains(p.x, p.y, p.z) {
            box.include(p.x, p.y, p.z)
            innerSlots.setBox(box, at: s)
            guard inners[Int(node)].parent >= 0 else { return }
            s = parentSlotIndex(of: node, isLeaf: false); node = inners[Int(node)].parent
            box = innerSlots.box(at: s)
        }
    }

    /// Shrinks the boxes from a leaf up after the point `p` left it. Nothing is recomputed
    /// unless `p` may have been on the leaf's box, and a parent only when the old box
    /// touched the parent's: most removals cost one check.
    mutating func shrink(leaf: Int32, losing p: SpherePoint) {
        var s = parentSlotIndex(of: leaf, isLeaf: true), node = leaves[Int(leaf)].parent
        var old = innerSlots.box(at: s)
        guard leaves[Int(leaf)].count == 0 || old.mayBeBoundedBy(p.x, p.y, p.z) else { return }
        var new = FloatBox(outward: leafBox(Int(leaf)))
        while new != old {
            innerSlots.setBox(new, at: s)
            guard inners[Int(node)].parent >= 0 else { return }
            s = parentSlotIndex(of: node, isLeaf: false)
            let above = innerSlots.box(at: s)
            guard above.touches(old) else { return }
            old = above
            new = innerFloatBox(Int(node))
            node = inners[Int(node)].parent
        }
    }

    /// The exact box of an inner node's children.
    func innerBox(_ n: Int) -> Box3 { innerFloatBox(n).exact }

    /// The slot in its parent of a leaf (`isLeaf`) or an inner node.
    @inline(__always)
    func parentSlotIndex(of node: Int32, isLeaf: Bool) -> Int {
        let h = isLeaf ? leaves[Int(node)] : inners[Int(node)]
        return Int(h.parent) * Self.fanout + Int(h.parentSlot)
    }

    /// Sets a child's parent and slot (a leaf when `level` of the parent is 1).
    mutating func link(_ c: Int32, parentLevel: Int32, to parent: Int32, slot: Int) {
        if parentLevel == 1 {
            leaves[Int(c)].parent = parent; leaves[Int(c)].parentSlot = Int32(slot)
        } else {
            inners[Int(c)].parent = parent; inners[Int(c)].parentSlot = Int32(slot)
        }
    }

    /// Recomputes boxes from an inner node up to the root, stopping where nothing changes.
    mutating func refreshBoxes(fromInner node: Int32) {
        var node = node
        while inners[Int(node)].parent >= 0 {
            let s = parentSlotIndex(of: node, isLeaf: false)
            let b = innerFloatBox(Int(node))
            if innerSlots.box(at: s) == b { return }
            innerSlots.setBox(b, at: s)
            node = inners[Int(node)].parent
        }
    }
}

extension RTreeCore {
    /// Checks the tree's invariants (for tests): every point inside its leaf's box, every
    /// box holding its children, entries and slots pointing at each other, counts adding up.
    /// Returns a description of the first violation, or nil.
    func invariantViolation() -> String? {
        var seen = 0
        var stack: [Int32] = [root]
        while let node = stack.popLast() {
            let n = Int(node), base = n * Self.fanout, level = inners[n].level
            let nodeCell = node == root ? Cell.everything : slotCells[parentSlotIndex(of: node, isLeaf: false)]
            for s in (base + Int(inners[n].count))..<(base + Self.fanout) where innerSlots.box(at: s) != .empty {
                return "inner \(node) has a box in a slot past its count"
            }
            for s in base..<(base + Int(inners[n].count)) {
                guard nodeCell.holds(slotCells[s]) else { return "a child's cell leaves inner \(node)'s cell" }
                for t in base..<s where slotCells[s].overlapsInside(slotCells[t]) {
                    return "two children's cells of inner \(node) overlap"
                }
                let b = innerSlots.box(at: s).exact, c = innerSlots.child(at: s)
                if level == 1 {
                    let h = leaves[Int(c)]
                    guard h.parent == node, Int(h.parentSlot) == s - base else { return "leaf \(c) has the wrong parent" }
                    let lb = Int(c) * Self.leafCapacity
                    for t in lb..<(lb + Int(h.count)) {
                        let slot = leafSlots[t]
                        guard b.contains(slot.x, slot.y, slot.z) else { return "a point lies outside leaf \(c)'s box" }
                        // A report inside the leaf's box stays put, and the box is rounded
                        // outward, so a key may pass its cell's wall by one Float step.
                        var cell = slotCells[s]
                        cell.minX = cell.minX.nextDown; cell.minY = cell.minY.nextDown; cell.minZ = cell.minZ.nextDown
                        cell.maxX = cell.maxX.nextUp; cell.maxY = cell.maxY.nextUp; cell.maxZ = cell.maxZ.nextUp
                        guard cell.contains(CellKey(x: slot.x, y: slot.y, z: slot.z)) else { return "a point lies outside leaf \(c)'s cell" }
                        let e = Int(slot.entry)
                        guard places[e].leaf == c, Int(places[e].slot) == t - lb else { return "entry \(e) does not point at its slot" }
                        let p = frame.point(positions[e])
                        guard p == SpherePoint(x: slot.x, y: slot.y, z: slot.z) else { return "entry \(e)'s stored point is stale" }
                        seen += 1
                    }
                } else {
                    let h = inners[Int(c)]
                    guard h.parent == node, Int(h.parentSlot) == s - base, h.level == level - 1 else { return "inner \(c) is misplaced" }
                    let cb = innerBox(Int(c))
                    guard b.minX <= cb.minX, b.minY <= cb.minY, b.minZ <= cb.minZ,
                          b.maxX >= cb.maxX, b.maxY >= cb.maxY, b.maxZ >= cb.maxZ else { return "inner \(c)'s box is not held by its slot" }
                    stack.append(c)
                }
            }
        }
        return seen == count ? nil : "found \(seen) entries, count says \(count)"
    }
}
