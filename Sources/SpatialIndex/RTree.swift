import Geodesy

/// A handle on one entry of an `RTree`, stable until the entry is removed.
public struct EntryID: Hashable, Sendable, Comparable {
    public let rawValue: Int32
    @inlinable public init(rawValue: Int32) { self.rawValue = rawValue }
    public static func < (a: EntryID, b: EntryID) -> Bool { a.rawValue < b.rawValue }
}

/// What an entry must match to be returned, checked inside the search so that "the 10
/// nearest available sedans" never scans the whole set.
///
/// Every entry carries a 32-bit tag and a 32-bit stamp. An entry passes when its tag shares
/// a bit with `anyOf` and a bit with `alsoAnyOf`, and its stamp is at least
/// `minimumStamp`. (The fleet puts a cab's type in one set of bits and its status in another,
/// and the report time in the stamp.) Tags must not be zero.
public struct EntryFilter: Hashable, Sendable {
    public var anyOf: UInt32
    public var alsoAnyOf: UInt32
    public var minimumStamp: Int32

    public init(anyOf: UInt32 = .max, alsoAnyOf: UInt32 = .max, minimumStamp: Int32 = .min) {
        self.anyOf = anyOf; self.alsoAnyOf = alsoAnyOf; self.minimumStamp = minimumStamp
    }

    /// Accepts every entry.
    public static let all = EntryFilter()

    @inline(__always)
    func accepts(tag: UInt32, stamp: Int32) -> Bool {
        tag & anyOf != 0 && tag & alsoAnyOf != 0 && stamp >= minimumStamp
    }
}

/// One answer of a search: the entry and its great-circle distance in metres.
public struct Neighbour: Hashable, Sendable {
    public let entry: EntryID
    public let distance: Double
}

/// Wayfare's R-tree over points on the Earth, generic over a payload.
///
/// Points are stored as 3-D unit vectors (`SpherePoint`), so every distance and every pruning
/// bound is an exact function of great-circle distance: results are right at 60° and 78°
/// north and across the antimeridian without special cases.
///
/// Layout (flatbush/RoutingKit style): plain arrays, no class per node or entry. Leaves and
/// inner nodes have separate id spaces; node n's slots are `n·16 ..< n·16 + count[n]`. A
/// child's box lives in its parent's slot, so a visit reads one contiguous run. Leaf slots
/// hold the points, their tags and stamps; an entry knows its leaf and slot, so a position
/// report is O(1) while the point stays inside its leaf's box.
///
/// `Sendable` when the payload is: a value type of arrays. Copies share storage until one
/// is written (copy-on-write), which the fleet uses to publish read-only snapshots.
public struct RTree<Payload: Sendable>: Sendable {
    @usableFromInline static var fanout: Int { 16 }
    /// Bulk loading fills nodes to this many slots, leaving room for inserts.
    static var fill: Int { 14 }

    // Leaves.
    var leafCount: [Int32] = []
    var leafParent: [Int32] = []
    var px: [Double] = [], py: [Double] = [], pz: [Double] = []
    var slotEntry: [Int32] = []
    var slotTag: [UInt32] = []
    var slotStamp: [Int32] = []
    var freeLeaves: [Int32] = []

    // Inner nodes; `innerLevel` 1 means the children are leaves.
    var innerCount: [Int32] = []
    var innerParent: [Int32] = []
    var innerLevel: [Int32] = []
    var bMinX: [Double] = [], bMinY: [Double] = [], bMinZ: [Double] = []
    var bMaxX: [Double] = [], bMaxY: [Double] = [], bMaxZ: [Double] = []
    var child: [Int32] = []
    var freeInner: [Int32] = []
    var root: Int32 = 0

    // Entries.
    var entryLeaf: [Int32] = []
    var entrySlot: [Int32] = []
    var latitudes: [Double] = []
    var longitudes: [Double] = []
    var payloads: [Payload?] = []
    var freeEntries: [Int32] = []
    public internal(set) var count = 0

    /// An empty tree.
    public init() {
        root = newInner(level: 1, parent: -1)
    }

    // MARK: Entries

    /// The payload of a live entry.
    public subscript(entry: EntryID) -> Payload {
        payloads[Int(entry.rawValue)]!
    }

    /// The position of a live entry.
    public func position(of entry: EntryID) -> Coordinate {
        Coordinate(unchecked: latitudes[Int(entry.rawValue)], longitudes[Int(entry.rawValue)])
    }

    /// The tag and stamp of a live entry.
    public func tagAndStamp(of entry: EntryID) -> (tag: UInt32, stamp: Int32) {
        let s = Int(entryLeaf[Int(entry.rawValue)]) * Self.fanout + Int(entrySlot[Int(entry.rawValue)])
        return (slotTag[s], slotStamp[s])
    }

    /// True when `entry` names a live entry of this tree.
    public func contains(_ entry: EntryID) -> Bool {
        let e = Int(entry.rawValue)
        return e >= 0 && e < entryLeaf.count && entryLeaf[e] >= 0
    }

    /// Every live entry, in no particular order.
    public var entries: [EntryID] {
        entryLeaf.indices.compactMap { entryLeaf[$0] >= 0 ? EntryID(rawValue: Int32($0)) : nil }
    }

    mutating func newEntry(_ c: Coordinate, _ payload: Payload) -> Int32 {
        if let e = freeEntries.popLast() {
            latitudes[Int(e)] = c.latitude; longitudes[Int(e)] = c.longitude; payloads[Int(e)] = payload
            return e
        }
        entryLeaf.append(-1); entrySlot.append(-1)
        latitudes.append(c.latitude); longitudes.append(c.longitude); payloads.append(payload)
        return Int32(entryLeaf.count - 1)
    }

    // MARK: Nodes

    mutating func newLeaf(parent: Int32) -> Int32 {
        if let l = freeLeaves.popLast() {
            leafCount[Int(l)] = 0; leafParent[Int(l)] = parent
            return l
        }
        leafCount.append(0); leafParent.append(parent)
        let n = Self.fanout
        px += repeatElement(0, count: n); py += repeatElement(0, count: n); pz += repeatElement(0, count: n)
        slotEntry += repeatElement(-1, count: n); slotTag += repeatElement(0, count: n); slotStamp += repeatElement(0, count: n)
        return Int32(leafCount.count - 1)
    }

    mutating func newInner(level: Int32, parent: Int32) -> Int32 {
        if let i = freeInner.popLast() {
            innerCount[Int(i)] = 0; innerParent[Int(i)] = parent; innerLevel[Int(i)] = level
            return i
        }
        innerCount.append(0); innerParent.append(parent); innerLevel.append(level)
        let n = Self.fanout
        bMinX += repeatElement(0, count: n); bMinY += repeatElement(0, count: n); bMinZ += repeatElement(0, count: n)
        bMaxX += repeatElement(0, count: n); bMaxY += repeatElement(0, count: n); bMaxZ += repeatElement(0, count: n)
        child += repeatElement(-1, count: n)
        return Int32(innerCount.count - 1)
    }

    func box(atInnerSlot s: Int) -> Box3 {
        Box3(minX: bMinX[s], minY: bMinY[s], minZ: bMinZ[s], maxX: bMaxX[s], maxY: bMaxY[s], maxZ: bMaxZ[s])
    }

    mutating func setBox(_ b: Box3, atInnerSlot s: Int) {
        bMinX[s] = b.minX; bMinY[s] = b.minY; bMinZ[s] = b.minZ
        bMaxX[s] = b.maxX; bMaxY[s] = b.maxY; bMaxZ[s] = b.maxZ
    }

    /// The exact box of a leaf's points.
    func leafBox(_ l: Int) -> Box3 {
        var b = Box3.empty
        let base = l * Self.fanout
        for s in base..<(base + Int(leafCount[l])) { b.include(px[s], py[s], pz[s]) }
        return b
    }

    /// The exact box of an inner node's children.
    func innerBox(_ n: Int) -> Box3 {
        var b = Box3.empty
        let base = n * Self.fanout
        for s in base..<(base + Int(innerCount[n])) { b.include(box(atInnerSlot: s)) }
        return b
    }

    /// The slot of `node` in `parent`.
    func slot(of node: Int32, in parent: Int32) -> Int {
        let base = Int(parent) * Self.fanout
        for s in base..<(base + Int(innerCount[Int(parent)])) where child[s] == node { return s }
        preconditionFailure("R-tree: a node is missing from its parent")
    }

    /// Recomputes the boxes on the path from a leaf to the root, stopping where nothing changes.
    mutating func refreshBoxes(fromLeaf l: Int32) {
        var parent = leafParent[Int(l)]
        guard parent >= 0 else { return }
        var s = slot(of: l, in: parent)
        var b = leafBox(Int(l))
        while true {
            if box(atInnerSlot: s) == b { return }
            setBox(b, atInnerSlot: s)
            let node = parent
            parent = innerParent[Int(node)]
            guard parent >= 0 else { return }
            s = slot(of: node, in: parent)
            b = innerBox(Int(node))
        }
    }
}

extension RTree {
    /// Checks the tree's invariants (for tests): every point inside its leaf's box, every
    /// box holding its children, entries and slots pointing at each other, counts adding up.
    /// Returns a description of the first violation, or nil.
    public func invariantViolation() -> String? {
        var seen = 0
        var stack: [(Int32, Int32)] = [(root, innerLevel[Int(root)])]
        while let (node, level) = stack.popLast() {
            let n = Int(node), base = n * Self.fanout
            for s in base..<(base + Int(innerCount[n])) {
                let b = box(atInnerSlot: s), c = child[s]
                if level == 1 {
                    guard leafParent[Int(c)] == node else { return "leaf \(c) has the wrong parent" }
                    guard leafCount[Int(c)] > 0 else { return "leaf \(c) is empty but linked" }
                    let lb = Int(c) * Self.fanout
                    for t in lb..<(lb + Int(leafCount[Int(c)])) {
                        guard b.contains(px[t], py[t], pz[t]) else { return "a point lies outside leaf \(c)'s box" }
                        let e = Int(slotEntry[t])
                        guard entryLeaf[e] == c, Int(entrySlot[e]) == t - lb else { return "entry \(e) does not point at its slot" }
                        let p = SpherePoint(Coordinate(unchecked: latitudes[e], longitudes[e]))
                        guard p == SpherePoint(x: px[t], y: py[t], z: pz[t]) else { return "entry \(e)'s stored point is stale" }
                        seen += 1
                    }
                } else {
                    guard innerParent[Int(c)] == node, innerLevel[Int(c)] == level - 1 else { return "inner \(c) is misplaced" }
                    let cb = innerBox(Int(c))
                    guard b.minX <= cb.minX, b.minY <= cb.minY, b.minZ <= cb.minZ,
                          b.maxX >= cb.maxX, b.maxY >= cb.maxY, b.maxZ >= cb.maxZ else { return "inner \(c)'s box is not held by its slot" }
                    stack.append((c, level - 1))
                }
            }
        }
        return seen == count ? nil : "found \(seen) entries, count says \(count)"
    }
}
