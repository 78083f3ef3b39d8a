import Geodesy

/// What a position report cost, for counters and tests.
public enum MoveOutcome: Sendable, Equatable {
    /// The new position lies in the leaf's box: three stores, nothing else.
    case inPlace
    /// Slightly outside: the leaf's box (and its ancestors, as needed) was recomputed.
    case stretched
    /// Far away: removed and inserted again, with the same entry id.
    case reinserted
}

extension RTree {
    // MARK: Insert

    /// Inserts a point; returns its entry id.
    @discardableResult
    public mutating func insert(_ c: Coordinate, tag: UInt32, stamp: Int32, payload: Payload) -> EntryID {
        let e = newEntry(c, payload)
        place(e, SpherePoint(c), tag: tag, stamp: stamp)
        count += 1
        return EntryID(rawValue: e)
    }

    /// Descends by least enlargement of the margin and appends to a leaf, splitting if full.
    mutating func place(_ e: Int32, _ p: SpherePoint, tag: UInt32, stamp: Int32) {
        let slot = LeafSlot(x: p.x, y: p.y, z: p.z, entry: e, tag: tag, stamp: stamp)
        var node = root
        var leaf: Int32 = -1
        while leaf < 0 {
            let n = Int(node), base = n * Self.fanout, count = Int(inners[n].count)
            if count == 0 {
                // Only an empty root has no children: give it a first leaf.
                let l = newLeaf(parent: node, parentSlot: 0)
                innerSlots[base] = InnerSlot(box: Box3(minX: p.x, minY: p.y, minZ: p.z, maxX: p.x, maxY: p.y, maxZ: p.z), child: l)
                inners[n].count = 1
                leaf = l
                break
            }
            var best = base, bestGrowth = Double.infinity, bestMargin = Double.infinity
            for s in base..<(base + count) {
                let b = innerSlots[s].box
                var grown = b
                grown.include(p.x, p.y, p.z)
                let growth = grown.margin - b.margin, margin = b.margin
                if growth < bestGrowth || (growth == bestGrowth && margin < bestMargin) {
                    best = s; bestGrowth = growth; bestMargin = margin
                }
            }
            if inners[n].level == 1 { leaf = innerSlots[best].child } else { node = innerSlots[best].child }
        }
        let l = Int(leaf)
        if Int(leaves[l].count) < Self.fanout {
            let s = l * Self.fanout + Int(leaves[l].count)
            leafSlots[s] = slot
            entryLeaf[Int(e)] = leaf; entrySlot[Int(e)] = leaves[l].count
            leaves[l].count += 1
            refreshBoxes(fromLeaf: leaf)
        } else {
            splitLeaf(leaf, adding: slot)
        }
    }

    /// Splits a full leaf plus one new point in two along the axis of largest extent.
    mutating func splitLeaf(_ leaf: Int32, adding extra: LeafSlot) {
        let l = Int(leaf), base = l * Self.fanout
        var items = Array(leafSlots[base..<(base + Self.fanout)])
        items.append(extra)
        var b = Box3.empty
        for it in items { b.include(it.x, it.y, it.z) }
        let ex = b.maxX - b.minX, ey = b.maxY - b.minY, ez = b.maxZ - b.minZ
        if ex >= ey && ex >= ez { items.sort { $0.x < $1.x } } else if ey >= ez { items.sort { $0.y < $1.y } } else { items.sort { $0.z < $1.z } }
        let half = items.count / 2
        let sibling = newLeaf(parent: -1, parentSlot: -1)
        func write(_ slice: ArraySlice<LeafSlot>, to target: Int32) {
            let tb = Int(target) * Self.fanout
            for (k, it) in slice.enumerated() {
                leafSlots[tb + k] = it
                entryLeaf[Int(it.entry)] = target; entrySlot[Int(it.entry)] = Int32(k)
            }
            leaves[Int(target)].count = Int32(slice.count)
        }
        write(items[..<half], to: leaf)
        write(items[half...], to: sibling)
        innerSlots[parentSlotIndex(of: leaf, isLeaf: true)].box = leafBox(l)
        addChild(sibling, box: leafBox(Int(sibling)), to: leaves[l].parent)
    }

    /// Adds a child (leaf or inner node) with its box to an inner node, splitting upwards.
    mutating func addChild(_ c: Int32, box b: Box3, to node: Int32) {
        let n = Int(node), level = inners[n].level, base = n * Self.fanout
        if Int(inners[n].count) < Self.fanout {
            let k = Int(inners[n].count)
            innerSlots[base + k] = InnerSlot(box: b, child: c)
            inners[n].count += 1
            link(c, parentLevel: level, to: node, slot: k)
            refreshBoxes(fromInner: node)
            return
        }
        // Split: the 17 children by box centre along the axis of largest extent.
        var items = Array(innerSlots[base..<(base + Self.fanout)])
        items.append(InnerSlot(box: b, child: c))
        var all = Box3.empty
        for it in items { all.include(it.box) }
        let ex = all.maxX - all.minX, ey = all.maxY - all.minY, ez = all.maxZ - all.minZ
        if ex >= ey && ex >= ez { items.sort { $0.box.minX + $0.box.maxX < $1.box.minX + $1.box.maxX } }
        else if ey >= ez { items.sort { $0.box.minY + $0.box.maxY < $1.box.minY + $1.box.maxY } }
        else { items.sort { $0.box.minZ + $0.box.maxZ < $1.box.minZ + $1.box.maxZ } }
        let half = items.count / 2
        if inners[n].parent < 0 {
            // The root splits: a new root one level up.
            let newRoot = newInner(level: level + 1, parent: -1, parentSlot: -1)
            innerSlots[Int(newRoot) * Self.fanout] = InnerSlot(box: .empty, child: node)
            inners[Int(newRoot)].count = 1
            inners[n].parent = newRoot; inners[n].parentSlot = 0
            root = newRoot
        }
        let sibling = newInner(level: level, parent: -1, parentSlot: -1)
        func write(_ slice: ArraySlice<InnerSlot>, to target: Int32) {
            let tb = Int(target) * Self.fanout
            for (k, it) in slice.enumerated() {
                innerSlots[tb + k] = it
                link(it.child, parentLevel: level, to: target, slot: k)
            }
            inners[Int(target)].count = Int32(slice.count)
        }
        write(items[..<half], to: node)
        write(items[half...], to: sibling)
        innerSlots[parentSlotIndex(of: node, isLeaf: false)].box = innerBox(n)
        addChild(sibling, box: innerBox(Int(sibling)), to: inners[n].parent)
    }

    // MARK: Remove

    /// Removes an entry; returns its payload, or nil when it was not live.
    @discardableResult
    public mutating func remove(_ entry: EntryID) -> Payload? {
        guard contains(entry) else { return nil }
        let e = Int(entry.rawValue)
        detach(entry.rawValue)
        let payload = payloads[e]
        payloads[e] = nil
        freeEntries.append(entry.rawValue)
        count -= 1
        return payload
    }

    /// Takes an entry out of its leaf (the entry record stays).
    mutating func detach(_ e: Int32) {
        let leaf = entryLeaf[Int(e)], l = Int(leaf)
        let base = l * Self.fanout
        let s = base + Int(entrySlot[Int(e)]), last = base + Int(leaves[l].count) - 1
        if s != last {
            leafSlots[s] = leafSlots[last]
            entrySlot[Int(leafSlots[s].entry)] = Int32(s - base)
        }
        leaves[l].count -= 1
        entryLeaf[Int(e)] = -1; entrySlot[Int(e)] = -1
        if leaves[l].count == 0 {
            removeChild(at: parentSlotIndex(of: leaf, isLeaf: true), from: leaves[l].parent)
            freeLeaves.append(leaf)
        } else {
            refreshBoxes(fromLeaf: leaf)
        }
    }

    /// Removes the child in slot `s` of an inner node, and the node itself when it empties.
    mutating func removeChild(at s: Int, from node: Int32) {
        let n = Int(node), base = n * Self.fanout, level = inners[n].level
        let last = base + Int(inners[n].count) - 1
        if s != last {
            innerSlots[s] = innerSlots[last]
            link(innerSlots[s].child, parentLevel: level, to: node, slot: s - base)
        }
        inners[n].count -= 1
        if inners[n].count == 0 && node != root {
            removeChild(at: parentSlotIndex(of: node, isLeaf: false), from: inners[n].parent)
            freeInner.append(node)
        } else if node == root && inners[n].count == 0 {
            inners[n].level = 1  // an empty tree starts again from a root over leaves
        } else {
            refreshBoxes(fromInner: node)
        }
    }

    // MARK: Move

    /// Records a new position for an entry (a position report). O(1) while the point stays
    /// inside its leaf's box; a small step outside recomputes the leaf's box upwards; a jump
    /// farther than half the leaf's size removes and reinserts it (same id).
    @discardableResult
    public mutating func move(_ entry: EntryID, to c: Coordinate, stamp: Int32) -> MoveOutcome {
        precondition(contains(entry), "moving an entry that is not in the tree")
        let e = Int(entry.rawValue)
        latitudes[e] = c.latitude; longitudes[e] = c.longitude
        let p = SpherePoint(c)
        let leaf = entryLeaf[e], l = Int(leaf)
        let s = l * Self.fanout + Int(entrySlot[e])
        let b = innerSlots[parentSlotIndex(of: leaf, isLeaf: true)].box
        if b.contains(p.x, p.y, p.z) {
            leafSlots[s].x = p.x; leafSlots[s].y = p.y; leafSlots[s].z = p.z; leafSlots[s].stamp = stamp
            return .inPlace
        }
        let reach = 0.5 * b.largestExtent
        if leaves[l].count > 1 && b.distance2(p.x, p.y, p.z) <= reach * reach {
            leafSlots[s].x = p.x; leafSlots[s].y = p.y; leafSlots[s].z = p.z; leafSlots[s].stamp = stamp
            refreshBoxes(fromLeaf: leaf)
            return .stretched
        }
        let tag = leafSlots[s].tag
        detach(Int32(e))
        place(Int32(e), p, tag: tag, stamp: stamp)
        return .reinserted
    }

    /// Changes an entry's tag (for example a cab's status) in place.
    public mutating func setTag(_ entry: EntryID, to tag: UInt32) {
        precondition(contains(entry), "tagging an entry that is not in the tree")
        leafSlots[slotIndex(of: entry.rawValue)].tag = tag
    }
}
