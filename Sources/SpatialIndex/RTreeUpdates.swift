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
    // MARK: Bulk load

    /// Builds a tree from many points at once: sorted along a Hilbert curve and packed into
    /// full nodes. Entry ids are the input positions (entry i is `coordinates[i]`).
    public init(coordinates: [Coordinate], tags: [UInt32], stamps: [Int32], payloads: [Payload]) {
        precondition(coordinates.count == tags.count && tags.count == stamps.count && stamps.count == payloads.count,
                     "bulk load arrays differ in length")
        self.init()
        let n = coordinates.count
        guard n > 0 else { return }
        latitudes = coordinates.map(\.latitude)
        longitudes = coordinates.map(\.longitude)
        self.payloads = payloads.map { Optional($0) }
        entryLeaf = [Int32](repeating: -1, count: n)
        entrySlot = [Int32](repeating: -1, count: n)
        count = n

        let order = HilbertOrder.sort(latitudes: latitudes, longitudes: longitudes)
        let fanout = Self.fanout
        // Leaves: consecutive runs of the Hilbert order.
        leafCount.removeAll(); leafParent.removeAll()
        let leaves = (n + fanout - 1) / fanout
        leafCount = [Int32](repeating: 0, count: leaves)
        leafParent = [Int32](repeating: -1, count: leaves)
        px = [Double](repeating: 0, count: leaves * fanout); py = px; pz = px
        slotEntry = [Int32](repeating: -1, count: leaves * fanout)
        slotTag = [UInt32](repeating: 0, count: leaves * fanout)
        slotStamp = [Int32](repeating: 0, count: leaves * fanout)
        var boxes = [Box3](repeating: .empty, count: leaves)
        for (k, e) in order.enumerated() {
            let leaf = k / fanout, s = k
            let p = SpherePoint(coordinates[Int(e)])
            px[s] = p.x; py[s] = p.y; pz[s] = p.z
            slotEntry[s] = e; slotTag[s] = tags[Int(e)]; slotStamp[s] = stamps[Int(e)]
            entryLeaf[Int(e)] = Int32(leaf); entrySlot[Int(e)] = Int32(k % fanout)
            leafCount[leaf] += 1
            boxes[leaf].include(p.x, p.y, p.z)
        }
        // Inner levels: consecutive runs of 16 children, until one node is left.
        innerCount.removeAll(); innerParent.removeAll(); innerLevel.removeAll()
        bMinX.removeAll(); bMinY.removeAll(); bMinZ.removeAll(); bMaxX.removeAll(); bMaxY.removeAll(); bMaxZ.removeAll()
        child.removeAll()
        var level: Int32 = 1
        var children = (0..<leaves).map { Int32($0) }
        while true {
            var parents: [Int32] = [], parentBoxes: [Box3] = []
            // `boxes[i]` is the box of `children[i]`.
            for start in stride(from: 0, to: children.count, by: fanout) {
                let node = newInner(level: level, parent: -1)
                var b = Box3.empty
                for i in start..<min(children.count, start + fanout) {
                    let c = children[i], s = Int(node) * fanout + (i - start)
                    setBox(boxes[i], atInnerSlot: s)
                    child[s] = c
                    b.include(boxes[i])
                    if level == 1 { leafParent[Int(c)] = node } else { innerParent[Int(c)] = node }
                }
                innerCount[Int(node)] = Int32(min(fanout, children.count - start))
                parents.append(node); parentBoxes.append(b)
            }
            if parents.count == 1 { root = parents[0]; break }
            children = parents; boxes = parentBoxes; level += 1
        }
    }

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
        var node = root
        var leaf: Int32 = -1
        while leaf < 0 {
            let n = Int(node), base = n * Self.fanout, count = Int(innerCount[n])
            if count == 0 {
                // Only an empty root has no children: give it a first leaf.
                let l = newLeaf(parent: node)
                child[base] = l
                setBox(Box3(minX: p.x, minY: p.y, minZ: p.z, maxX: p.x, maxY: p.y, maxZ: p.z), atInnerSlot: base)
                innerCount[n] = 1
                leaf = l
                break
            }
            var best = base, bestGrowth = Double.infinity, bestMargin = Double.infinity
            for s in base..<(base + count) {
                let b = box(atInnerSlot: s)
                var grown = b
                grown.include(p.x, p.y, p.z)
                let growth = grown.margin - b.margin, margin = b.margin
                if growth < bestGrowth || (growth == bestGrowth && margin < bestMargin) {
                    best = s; bestGrowth = growth; bestMargin = margin
                }
            }
            if innerLevel[n] == 1 { leaf = child[best] } else { node = child[best] }
        }
        let l = Int(leaf)
        if Int(leafCount[l]) < Self.fanout {
            let s = l * Self.fanout + Int(leafCount[l])
            px[s] = p.x; py[s] = p.y; pz[s] = p.z
            slotEntry[s] = e; slotTag[s] = tag; slotStamp[s] = stamp
            entryLeaf[Int(e)] = leaf; entrySlot[Int(e)] = leafCount[l]
            leafCount[l] += 1
            refreshBoxes(fromLeaf: leaf)
        } else {
            splitLeaf(leaf, adding: e, p, tag: tag, stamp: stamp)
        }
    }

    /// Splits a full leaf plus one new point in two along the axis of largest extent.
    mutating func splitLeaf(_ leaf: Int32, adding e: Int32, _ p: SpherePoint, tag: UInt32, stamp: Int32) {
        let l = Int(leaf), base = l * Self.fanout
        var items: [(x: Double, y: Double, z: Double, e: Int32, tag: UInt32, stamp: Int32)] = []
        for s in base..<(base + Self.fanout) { items.append((px[s], py[s], pz[s], slotEntry[s], slotTag[s], slotStamp[s])) }
        items.append((p.x, p.y, p.z, e, tag, stamp))
        var b = Box3.empty
        for it in items { b.include(it.x, it.y, it.z) }
        let ex = b.maxX - b.minX, ey = b.maxY - b.minY, ez = b.maxZ - b.minZ
        if ex >= ey && ex >= ez { items.sort { $0.x < $1.x } } else if ey >= ez { items.sort { $0.y < $1.y } } else { items.sort { $0.z < $1.z } }
        let half = items.count / 2
        let parent = leafParent[l]
        let sibling = newLeaf(parent: parent)
        func write(_ slice: ArraySlice<(x: Double, y: Double, z: Double, e: Int32, tag: UInt32, stamp: Int32)>, to target: Int32) {
            let tb = Int(target) * Self.fanout
            for (k, it) in slice.enumerated() {
                px[tb + k] = it.x; py[tb + k] = it.y; pz[tb + k] = it.z
                slotEntry[tb + k] = it.e; slotTag[tb + k] = it.tag; slotStamp[tb + k] = it.stamp
                entryLeaf[Int(it.e)] = target; entrySlot[Int(it.e)] = Int32(k)
            }
            leafCount[Int(target)] = Int32(slice.count)
        }
        write(items[..<half], to: leaf)
        write(items[half...], to: sibling)
        setBox(leafBox(l), atInnerSlot: slot(of: leaf, in: parent))
        addChild(sibling, box: leafBox(Int(sibling)), to: parent)
    }

    /// Adds a child (leaf or inner node) with its box to an inner node, splitting upwards.
    mutating func addChild(_ c: Int32, box b: Box3, to node: Int32) {
        let n = Int(node), level = innerLevel[n]
        func setParent(_ c: Int32, _ p: Int32) { if level == 1 { leafParent[Int(c)] = p } else { innerParent[Int(c)] = p } }
        if Int(innerCount[n]) < Self.fanout {
            let s = n * Self.fanout + Int(innerCount[n])
            setBox(b, atInnerSlot: s); child[s] = c; innerCount[n] += 1
            setParent(c, node)
            refreshBoxes(fromInner: node)
            return
        }
        // Split: the 17 children by box centre along the axis of largest extent.
        let base = n * Self.fanout
        var items: [(box: Box3, c: Int32)] = (base..<(base + Self.fanout)).map { (box(atInnerSlot: $0), child[$0]) }
        items.append((b, c))
        var all = Box3.empty
        for it in items { all.include(it.box) }
        let ex = all.maxX - all.minX, ey = all.maxY - all.minY, ez = all.maxZ - all.minZ
        if ex >= ey && ex >= ez { items.sort { $0.box.minX + $0.box.maxX < $1.box.minX + $1.box.maxX } }
        else if ey >= ez { items.sort { $0.box.minY + $0.box.maxY < $1.box.minY + $1.box.maxY } }
        else { items.sort { $0.box.minZ + $0.box.maxZ < $1.box.minZ + $1.box.maxZ } }
        let half = items.count / 2
        var parent = innerParent[n]
        if parent < 0 {
            // The root splits: a new root one level up.
            parent = newInner(level: level + 1, parent: -1)
            innerParent[n] = parent
            let s = Int(parent) * Self.fanout
            child[s] = node; innerCount[Int(parent)] = 1
            root = parent
        }
        let sibling = newInner(level: level, parent: parent)
        func write(_ slice: ArraySlice<(box: Box3, c: Int32)>, to target: Int32) {
            let tb = Int(target) * Self.fanout
            for (k, it) in slice.enumerated() {
                setBox(it.box, atInnerSlot: tb + k); child[tb + k] = it.c
                setParent(it.c, target)
            }
            innerCount[Int(target)] = Int32(slice.count)
        }
        write(items[..<half], to: node)
        write(items[half...], to: sibling)
        setBox(innerBox(n), atInnerSlot: slot(of: node, in: parent))
        addChild(sibling, box: innerBox(Int(sibling)), to: parent)
    }

    /// Recomputes boxes from an inner node up to the root, stopping where nothing changes.
    mutating func refreshBoxes(fromInner node: Int32) {
        var node = node
        while true {
            let parent = innerParent[Int(node)]
            guard parent >= 0 else { return }
            let s = slot(of: node, in: parent)
            let b = innerBox(Int(node))
            if box(atInnerSlot: s) == b { return }
            setBox(b, atInnerSlot: s)
            node = parent
        }
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
        let s = base + Int(entrySlot[Int(e)]), last = base + Int(leafCount[l]) - 1
        if s != last {
            px[s] = px[last]; py[s] = py[last]; pz[s] = pz[last]
            slotEntry[s] = slotEntry[last]; slotTag[s] = slotTag[last]; slotStamp[s] = slotStamp[last]
            entrySlot[Int(slotEntry[s])] = Int32(s - base)
        }
        leafCount[l] -= 1
        entryLeaf[Int(e)] = -1; entrySlot[Int(e)] = -1
        if leafCount[l] == 0 {
            removeChild(leaf, from: leafParent[l])
            freeLeaves.append(leaf)
        } else {
            refreshBoxes(fromLeaf: leaf)
        }
    }

    /// Removes an empty child from an inner node, and the node itself when it empties.
    mutating func removeChild(_ c: Int32, from node: Int32) {
        let n = Int(node), base = n * Self.fanout
        let s = slot(of: c, in: node), last = base + Int(innerCount[n]) - 1
        if s != last { setBox(box(atInnerSlot: last), atInnerSlot: s); child[s] = child[last] }
        innerCount[n] -= 1
        if innerCount[n] == 0 && node != root {
            removeChild(node, from: innerParent[n])
            freeInner.append(node)
        } else {
            refreshBoxes(fromInner: node)
        }
        if node == root && innerCount[n] == 0 {
            innerLevel[n] = 1  // an empty tree starts again from a root over leaves
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
        slotStamp[s] = stamp
        let parent = leafParent[l]
        let b = box(atInnerSlot: slot(of: leaf, in: parent))
        if b.contains(p.x, p.y, p.z) {
            px[s] = p.x; py[s] = p.y; pz[s] = p.z
            return .inPlace
        }
        let reach = 0.5 * b.largestExtent
        if leafCount[l] > 1 && b.distance2(p.x, p.y, p.z) <= reach * reach {
            px[s] = p.x; py[s] = p.y; pz[s] = p.z
            refreshBoxes(fromLeaf: leaf)
            return .stretched
        }
        let tag = slotTag[s]
        detach(Int32(e))
        place(Int32(e), p, tag: tag, stamp: stamp)
        return .reinserted
    }

    /// Changes an entry's tag (for example a cab's status) in place.
    public mutating func setTag(_ entry: EntryID, to tag: UInt32) {
        precondition(contains(entry), "tagging an entry that is not in the tree")
        let e = Int(entry.rawValue)
        slotTag[Int(entryLeaf[e]) * Self.fanout + Int(entrySlot[e])] = tag
    }
}

/// Sorting points along a Hilbert curve over their latitude/longitude bounds, so that
/// neighbours in the order are neighbours on the ground.
enum HilbertOrder {
    static func sort(latitudes: [Double], longitudes: [Double]) -> [Int32] {
        let n = latitudes.count
        var minLat = Double.infinity, maxLat = -Double.infinity, minLon = Double.infinity, maxLon = -Double.infinity
        for k in 0..<n {
            minLat = min(minLat, latitudes[k]); maxLat = max(maxLat, latitudes[k])
            minLon = min(minLon, longitudes[k]); maxLon = max(maxLon, longitudes[k])
        }
        let sx = maxLon > minLon ? 65535 / (maxLon - minLon) : 0, sy = maxLat > minLat ? 65535 / (maxLat - minLat) : 0
        var keys = [UInt64](repeating: 0, count: n)
        for k in 0..<n {
            let x = UInt32((longitudes[k] - minLon) * sx), y = UInt32((latitudes[k] - minLat) * sy)
            keys[k] = UInt64(hilbert(x, y)) << 32 | UInt64(k)
        }
        radixSortHigh32(&keys)
        return keys.map { Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
    }

    /// The distance of (x, y) along a Hilbert curve over a 65536 × 65536 grid.
    static func hilbert(_ x: UInt32, _ y: UInt32) -> UInt32 {
        var x = x, y = y, d: UInt32 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0, ry: UInt32 = (y & s) > 0 ? 1 : 0
            d &+= s &* s &* ((3 &* rx) ^ ry)
            if ry == 0 {
                if rx == 1 { x = s &- 1 &- (x & (s &- 1)); y = s &- 1 &- (y & (s &- 1)) }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }

    /// Sorts by the upper 32 bits, stably: two counting passes of 16 bits.
    static func radixSortHigh32(_ a: inout [UInt64]) {
        var buffer = [UInt64](repeating: 0, count: a.count)
        for shift in [32, 48] {
            var counts = [Int](repeating: 0, count: 65537)
            for v in a { counts[Int((v >> UInt64(shift)) & 0xFFFF) + 1] += 1 }
            for k in 1..<counts.count { counts[k] += counts[k - 1] }
            for v in a {
                let b = Int((v >> UInt64(shift)) & 0xFFFF)
                buffer[counts[b]] = v
                counts[b] += 1
            }
            swap(&a, &buffer)
        }
    }
}
