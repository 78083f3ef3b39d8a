import CIntrinsics
import Geodesy

/// What a position report cost, for counters and tests.
public enum MoveOutcome: Sendable, Equatable {
    /// The new position lies in the leaf's box: three stores, nothing else.
    case inPlace
    /// Outside the leaf's box but inside its cell: the box grew.
    case widened
    /// Across a cell wall: moved to the leaf whose cell holds it, same entry id.
    case relocated
}

extension RTreeCore {
    // MARK: Insert

    /// Inserts a point; returns its entry id (a removed entry's id is reused).
    mutating func insert(_ c: Coordinate, tag: UInt32, stamp: Int64) -> EntryID {
        // A tree that has never held a point takes its frame from the first: a fleet grows
        // around where it starts (see `SphereFrame`).
        if places.isEmpty { frame = SphereFrame(centredOn: SpherePoint(c)) }
        let e = newEntry(c)
        place(e, frame.point(c), tag: tag, stamp: stamp)
        count += 1
        return EntryID(rawValue: e)
    }

    /// Descends from `start` (whose cell must hold the point; the root's holds everything)
    /// through the cells that hold it, and adds it to that leaf.
    mutating func place(_ e: Int32, _ p: SpherePoint, tag: UInt32, stamp: Int64, from start: Int32? = nil) {
        let slot = LeafSlot(x: p.x, y: p.y, z: p.z, entry: e, tag: tag, stamp: stamp)
        var node = start ?? root
        while true {
            let n = Int(node)
            if inners[n].count == 0 {
                // Only an empty root has no children: its first leaf takes all of space.
                let leaf = newLeaf(parent: node, parentSlot: 0)
                innerSlots[n * Self.fanout] = InnerSlot(box: .empty, child: leaf)
                slotCells[n * Self.fanout] = .everything
                inners[n].count = 1
                add(slot, to: leaf)
                return
            }
            let child = innerSlots.child(at: slotHolding(p, in: n))
            if inners[n].level == 1 { add(slot, to: child); return }
            node = child
        }
    }

    /// The first slot of inner node `n` whose cell holds `p`. The children's cells tile the
    /// node's, so one does whenever the node's cell holds `p`.
    ///
    /// Inlined, like `leafBox` and `innerFloatBox`: called out of line from a mutating
    /// method, a non-mutating one received a 160-byte copy of the core (a `memcpy` per call
    /// in the writer's profile).
    @inline(__always)
    func slotHolding(_ p: SpherePoint, in n: Int) -> Int {
        let base = n * Self.fanout
        let key = CellKey(p)
        for s in base..<(base + Int(inners[n].count)) where slotCells[s].contains(key) { return s }
        preconditionFailure("R-tree: the children's cells do not cover their parent's")
    }

    /// Appends a point to a leaf, splitting the leaf when it is full.
    mutating func add(_ slot: LeafSlot, to leaf: Int32) {
        let l = Int(leaf)
        guard Int(leaves[l].count) < Self.leafCapacity else { splitLeaf(leaf, adding: slot); return }
        let s = l * Self.leafCapacity + Int(leaves[l].count)
        leafSlots[s] = slot
        places[Int(slot.entry)] = EntryPlace(leaf: leaf, slot: leaves[l].count)
        leaves[l].count += 1
        grow(leaf: leaf, toHold: SpherePoint(x: slot.x, y: slot.y, z: slot.z))
    }

    /// Splits a full leaf plus one new point in two at the median of the points' widest
    /// axis; the cut also splits the leaf's cell, the upper half going to a new sibling.
    mutating func splitLeaf(_ leaf: Int32, adding extra: LeafSlot) {
        let l = Int(leaf), base = l * Self.leafCapacity, total = Self.leafCapacity + 1
        let (sibling, axis, cut) = withUnsafeTemporaryAllocation(of: LeafSlot.self, capacity: total) { items in
            var keys = Cell.empty
            for k in 0..<Self.leafCapacity { items[k] = leafSlots[base + k] }
            items[Self.leafCapacity] = extra
            for it in items { keys.include(CellKey(x: it.x, y: it.y, z: it.z)) }
            let axis = keys.widestAxis
            @inline(__always) func key(_ s: LeafSlot) -> Float { CellKey(x: s.x, y: s.y, z: s.z)[axis] }
            // Insertion sort: a leaf's worth of items, and no allocation.
            for i in 1..<total {
                let it = items[i]
                var j = i
                while j > 0 && key(items[j - 1]) > key(it) { items[j] = items[j - 1]; j -= 1 }
                items[j] = it
            }
            let half = total / 2, cut = key(items[half])
            let sibling = newLeaf(parent: -1, parentSlot: -1)
            func write(_ range: Range<Int>, to target: Int32) {
                let tb = Int(target) * Self.leafCapacity
                for (k, i) in range.enumerated() {
                    leafSlots[tb + k] = items[i]
                    places[Int(items[i].entry)] = EntryPlace(leaf: target, slot: Int32(k))
                }
                leaves[Int(target)].count = Int32(range.count)
            }
            write(0..<half, to: leaf)
            write(half..<total, to: sibling)
            return (sibling, axis, cut)
        }
        let ps = parentSlotIndex(of: leaf, isLeaf: true)
        var upper = slotCells[ps]
        slotCells[ps][high: axis] = cut; upper[low: axis] = cut
        innerSlots.setBox(FloatBox(outward: leafBox(l)), at: ps)
        addChild(sibling, box: leafBox(Int(sibling)), cell: upper, to: leaves[l].parent)
    }

    /// Adds a child (leaf or inner node) with its box to an inner node; a full node is split
    /// in two along a wall between its children's cells, upwards as needed.
    mutating func addChild(_ c: Int32, box b: Box3, cell: Cell, to node: Int32) {
        let n = Int(node), level = inners[n].level, base = n * Self.fanout
        if Int(inners[n].count) < Self.fanout {
            let k = Int(inners[n].count)
            innerSlots[base + k] = InnerSlot(box: b, child: c)
            slotCells[base + k] = cell
            inners[n].count += 1
            link(c, parentLevel: level, to: node, slot: k)
            refreshBoxes(fromInner: node)
            return
        }
        if inners[n].parent < 0 {
            // The root splits: a new root one level up, over all of space.
            let newRoot = newInner(level: level + 1, parent: -1, parentSlot: -1)
            innerSlots[Int(newRoot) * Self.fanout] = InnerSlot(box: .empty, child: node)
            slotCells[Int(newRoot) * Self.fanout] = .everything
            inners[Int(newRoot)].count = 1
            inners[n].parent = newRoot; inners[n].parentSlot = 0
            root = newRoot
        }
        let total = Self.fanout + 1
        let sibling = newInner(level: level, parent: -1, parentSlot: -1)
        let sb = Int(sibling) * Self.fanout
        let ps = parentSlotIndex(of: node, isLeaf: false)
        var upper = slotCells[ps]
        withUnsafeTemporaryAllocation(of: (slot: InnerSlot, cell: Cell).self, capacity: total) { items in
            for k in 0..<Self.fanout { items[k] = (innerSlots[base + k], slotCells[base + k]) }
            items[Self.fanout] = (InnerSlot(box: b, child: c), cell)
            let (axis, wall, flatBelow) = Self.wall(between: items)
            slotCells[ps][high: axis] = wall; upper[low: axis] = wall
            // Children below the wall stay; the rest move to the sibling.
            var kept = 0, moved = 0, flat = 0
            for it in items {
                var below = it.cell[high: axis] <= wall && it.cell[low: axis] < wall
                if it.cell[low: axis] == wall && it.cell[high: axis] == wall { below = flat < flatBelow; flat += 1 }
                if below {
                    innerSlots[base + kept] = it.slot; slotCells[base + kept] = it.cell
                    link(it.slot.child, parentLevel: level, to: node, slot: kept); kept += 1
                } else {
                    innerSlots[sb + moved] = it.slot; slotCells[sb + moved] = it.cell
                    link(it.slot.child, parentLevel: level, to: sibling, slot: moved); moved += 1
                }
            }
            inners[n].count = Int32(kept); inners[Int(sibling)].count = Int32(moved)
            // The slots left behind hold empty boxes, which searches never enter.
            for k in kept..<Self.fanout { innerSlots[base + k] = InnerSlot(box: .empty, child: -1) }
        }
        innerSlots.setBox(innerFloatBox(n), at: ps)
        addChild(sibling, box: innerBox(Int(sibling)), cell: upper, to: inners[n].parent)
    }

    /// The most even wall between cells that tile a box: an axis and a value such that every
    /// cell lies wholly on one side, with both sides used. Cells flat on the wall (many
    /// cabs at one point make them) fit either side: the first `flatBelow` go below.
    ///
    /// Why one always exists: every cell came from cutting a cell in two with a plane (the
    /// packing's splits and every later split), so the first such cut still standing inside
    /// this node separates its children cleanly.
    static func wall(between items: UnsafeMutableBufferPointer<(slot: InnerSlot, cell: Cell)>)
        -> (axis: Int, value: Float, flatBelow: Int) {
        let total = items.count
        var best: (axis: Int, value: Float, flatBelow: Int, balance: Int)? = nil
        for axis in 0..<3 {
            for candidate in items {
                let v = candidate.cell[low: axis]
                guard v.isFinite else { continue }
                var below = 0, flat = 0, straddles = false
                for it in items {
                    let lo = it.cell[low: axis], hi = it.cell[high: axis]
                    if lo == v && hi == v { flat += 1 } else if hi <= v { below += 1 } else if lo < v { straddles = true; break }
                }
                guard !straddles else { continue }
                // As many flat cells below as brings the sides closest to even, both used.
                let flatBelow = min(flat, max(0, total / 2 - below))
                let left = below + flatBelow
                guard left > 0, left < total else { continue }
                let balance = min(left, total - left)
                if best == nil || balance > best!.balance { best = (axis, v, flatBelow, balance) }
            }
        }
        guard let best else { preconditionFailure("R-tree: no wall between the children's cells") }
        return (best.axis, best.value, best.flatBelow)
    }

    // MARK: Remove

    /// Removes a live entry; its id may be reused by the next insert.
    ///
    /// A leaf that empties stays, with its cell, so that the cells still tile space; its
    /// empty box is never visited by a search that has found anything.
    mutating func remove(_ entry: EntryID) {
        detach(entry.rawValue)
        freeEntries.append(entry.rawValue)
        count -= 1
    }

    /// Takes an entry out of its leaf (the entry record stays) and shrinks the boxes above.
    mutating func detach(_ e: Int32) {
        let at = places[Int(e)], leaf = at.leaf, l = Int(leaf)
        let base = l * Self.leafCapacity
        let s = base + Int(at.slot), last = base + Int(leaves[l].count) - 1
        let gone = leafSlots[s]
        if s != last {
            leafSlots[s] = leafSlots[last]
            places[Int(leafSlots[s].entry)].slot = Int32(s - base)
        }
        leaves[l].count -= 1
        places[Int(e)] = .nowhere
        shrink(leaf: leaf, losing: SpherePoint(x: gone.x, y: gone.y, z: gone.z))
    }

    // MARK: Move

    /// Records a new position for an entry (a position report).
    ///
    /// - Inside its leaf's box: three stores (`inPlace`).
    /// - Outside the box but inside the leaf's cell: the box grows, and the boxes above it as
    ///   far as needed (`widened`). It stays inside the cell, so leaves still do not overlap.
    /// - Across a cell wall: the entry leaves its leaf (whose box shrinks) and is placed
    ///   again from the lowest ancestor whose cell holds the new position (`relocated`).
    ///   For a cab's few hundred metres that is the parent or grandparent.
    ///
    /// Why cells and not the classic "stretch the box" of lazy-update R-trees: on the
    /// NYC-like fleet half of all 250 m moves leave their leaf's box (in one round from a
    /// bulk load: 49 % in place, 9 % widened, 43 % relocated); stretched boxes overlap, and
    /// a 10-nearest query after one round of moves cost 1.7× the packed tree's.
    ///
    /// Nil, and nothing changed, when `entry` is not live. The check is made here, on the
    /// core in place: made by the caller on a tree stored in a class, it copied the core's
    /// 160 bytes first (a `memcpy` per report in the fleet's profile).
    @usableFromInline mutating func move(_ entry: EntryID, to c: Coordinate, stamp: Int64) -> MoveOutcome? {
        move(entry, to: c, unitVector: SpherePoint(c), stamp: stamp)
    }

    /// `move(_:to:stamp:)` with the coordinate's Earth-centred unit vector computed by the
    /// caller, who must pass `SpherePoint(c)`: the fleet computes it once per report for
    /// its two replicas (the sines and cosines were a tenth of the writer's time).
    @usableFromInline mutating func move(_ entry: EntryID, to c: Coordinate, unitVector v: SpherePoint, stamp: Int64) -> MoveOutcome? {
        guard contains(entry) else { return nil }
        let e = Int(entry.rawValue)
        positions[e] = c
        let p = frame.move(v)
        let at = places[e], leaf = at.leaf, l = Int(leaf)
        let s = l * Self.leafCapacity + Int(at.slot), ps = parentSlotIndex(of: leaf, isLeaf: true)
        if innerSlots.box(at: ps).contains(p.x, p.y, p.z) {
            leafSlots[s].x = p.x; leafSlots[s].y = p.y; leafSlots[s].z = p.z; leafSlots[s].stamp = stamp
            return .inPlace
        }
        let key = CellKey(p)
        if slotCells[ps].contains(key) {
            leafSlots[s].x = p.x; leafSlots[s].y = p.y; leafSlots[s].z = p.z; leafSlots[s].stamp = stamp
            grow(leaf: leaf, toHold: p)
            return .widened
        }
        var start = leaves[l].parent
        while start != root && !slotCells[parentSlotIndex(of: start, isLeaf: false)].contains(key) {
            start = inners[Int(start)].parent
        }
        let tag = leafSlots[s].tag
        detach(Int32(e))
        place(Int32(e), p, tag: tag, stamp: stamp, from: start)
        return .relocated
    }

    // MARK: Prefetching a run of moves

    /// The first of a move's two prefetch stages: the entry's place and position, which
    /// `move` reads and writes first. Only hints, so any id is safe (one out of range is
    /// skipped).
    @usableFromInline func prefetchPlace(of entry: EntryID) {
        let e = Int(entry.rawValue)
        guard e >= 0 && e < places.count else { return }
        places.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + e) }
        positions.withUnsafeBufferPointer { wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + e)) }
    }

    /// The second stage, once the first has arrived: the entry's leaf slot, which every move
    /// writes, and its leaf's header. Reads the entry's place, so call it a move or two
    /// after `prefetchPlace(of:)`, not at once.
    @usableFromInline func prefetchLeaf(of entry: EntryID) {
        guard contains(entry) else { return }
        let at = places[Int(entry.rawValue)], l = Int(at.leaf)
        leafSlots.withUnsafeBufferPointer {
            wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + l * Self.leafCapacity + Int(at.slot)))
        }
        leaves.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + l) }
    }

    /// Changes an entry's tag (for example a cab's status) in place.
    mutating func setTag(_ entry: EntryID, to tag: UInt32) {
        assert(contains(entry), "tagging an entry that is not in the tree")  // RTree.setTag checks
        leafSlots[slotIndex(of: entry.rawValue)].tag = tag
    }
}
