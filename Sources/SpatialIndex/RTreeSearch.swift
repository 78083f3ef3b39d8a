import Geodesy

/// Reusable search buffers. Keep one per thread and pass it to every query, so that a
/// query allocates nothing in steady state.
public struct SearchWorkspace: Sendable {
    /// Nodes waiting to be visited: a min-heap on distance.
    var queue: [QueueItem] = []
    /// The best entries so far: a max-heap on (distance, entry), at most k long.
    var best: [QueueItem] = []
    /// Depth-first stack for radius and box searches: (node, level).
    var stack: [(Int32, Int32)] = []
    public init() {}
}

/// A heap item: a squared chord, and a node (level ≥ 0; 0 = leaf) or an entry (level −1).
struct QueueItem {
    var d2: Double
    var id: Int32
    var level: Int32

    @inline(__always)
    static func before(_ a: QueueItem, _ b: QueueItem) -> Bool { a.d2 < b.d2 || (a.d2 == b.d2 && a.id < b.id) }
}

/// A binary heap on a plain array; `above(a, b)` puts a nearer the top.
enum Heap {
    @inline(__always)
    static func push(_ h: inout [QueueItem], _ item: QueueItem, above: (QueueItem, QueueItem) -> Bool) {
        h.append(item)
        var i = h.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            guard above(h[i], h[p]) else { break }
            h.swapAt(i, p); i = p
        }
    }

    @inline(__always)
    static func siftDown(_ h: inout [QueueItem], from i: Int, above: (QueueItem, QueueItem) -> Bool) {
        var i = i
        let n = h.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < n && above(h[l], h[m]) { m = l }
            if r < n && above(h[r], h[m]) { m = r }
            if m == i { return }
            h.swapAt(i, m); i = m
        }
    }

    @inline(__always)
    static func pop(_ h: inout [QueueItem], above: (QueueItem, QueueItem) -> Bool) -> QueueItem? {
        guard let top = h.first else { return nil }
        let last = h.removeLast()
        if !h.isEmpty { h[0] = last; siftDown(&h, from: 0, above: above) }
        return top
    }
}

/// The radius rule: an entry is within `r` metres when its reported distance (the exact
/// great-circle distance on the mean sphere, `ChordDistance.metres`) is ≤ r — points exactly
/// on the boundary are included. Pruning uses a bound a hair wider, and candidates near the
/// edge are decided by that same reported distance, so the rule and the output agree.
struct RadiusBound {
    let metres: Double
    let prune2: Double   // anything beyond this is out
    let sure2: Double    // anything within this is in

    init(_ metres: Double) {
        self.metres = metres
        let c2 = ChordDistance.chord2(metres: metres)
        prune2 = metres.isFinite ? c2 * (1 + 1e-9) : .infinity
        sure2 = metres.isFinite ? c2 * (1 - 1e-9) : .infinity
    }

    @inline(__always)
    func admits(_ d2: Double) -> Bool {
        d2 <= sure2 || (d2 <= prune2 && ChordDistance.metres(chord2: d2) <= metres)
    }
}

extension RTree {
    /// The k entries nearest to `point` (great-circle), within `radius` metres, that pass
    /// `filter`, nearest first; ties in distance go to the lower entry id. Written into
    /// `result`; nothing is allocated once the workspace and result have grown.
    public func nearest(_ k: Int, to point: Coordinate, within radius: Double = .infinity,
                        filter: EntryFilter = .all, into result: inout [Neighbour], using w: inout SearchWorkspace) {
        result.removeAll(keepingCapacity: true)
        guard k > 0, count > 0 else { return }
        let q = SpherePoint(point)
        let bound = RadiusBound(radius)
        let fanout = Self.fanout
        w.queue.removeAll(keepingCapacity: true)
        w.best.removeAll(keepingCapacity: true)
        let far: (QueueItem, QueueItem) -> Bool = { QueueItem.before($1, $0) }
        w.queue.append(QueueItem(d2: 0, id: root, level: innerLevel[Int(root)]))
        while let top = Heap.pop(&w.queue, above: QueueItem.before) {
            if w.best.count == k && top.d2 > w.best[0].d2 { break }
            let base = Int(top.id) * fanout
            if top.level == 0 {
                for s in base..<(base + Int(leafCount[Int(top.id)])) where filter.accepts(tag: slotTag[s], stamp: slotStamp[s]) {
                    let dx = px[s] - q.x, dy = py[s] - q.y, dz = pz[s] - q.z
                    let d2 = dx * dx + dy * dy + dz * dz
                    guard d2 <= bound.prune2 else { continue }
                    let item = QueueItem(d2: d2, id: slotEntry[s], level: -1)
                    if w.best.count < k {
                        guard bound.admits(d2) else { continue }
                        Heap.push(&w.best, item, above: far)
                    } else if QueueItem.before(item, w.best[0]) {
                        guard bound.admits(d2) else { continue }
                        w.best[0] = item
                        Heap.siftDown(&w.best, from: 0, above: far)
                    }
                }
            } else {
                let level = top.level - 1
                let limit = w.best.count == k ? min(w.best[0].d2, bound.prune2) : bound.prune2
                for s in base..<(base + Int(innerCount[Int(top.id)])) {
                    let dx = max(bMinX[s] - q.x, 0, q.x - bMaxX[s])
                    let dy = max(bMinY[s] - q.y, 0, q.y - bMaxY[s])
                    let dz = max(bMinZ[s] - q.z, 0, q.z - bMaxZ[s])
                    let d2 = dx * dx + dy * dy + dz * dz
                    if d2 <= limit { Heap.push(&w.queue, QueueItem(d2: d2, id: child[s], level: level), above: QueueItem.before) }
                }
            }
        }
        // The max-heap holds the answer; sort it nearest first.
        w.best.sort(by: QueueItem.before)
        for item in w.best {
            result.append(Neighbour(entry: EntryID(rawValue: item.id), distance: ChordDistance.metres(chord2: item.d2)))
        }
    }

    /// Convenience form of `nearest(_:to:within:filter:into:using:)` that allocates.
    public func nearest(_ k: Int, to point: Coordinate, within radius: Double = .infinity,
                        filter: EntryFilter = .all) -> [Neighbour] {
        var w = SearchWorkspace(), out: [Neighbour] = []
        nearest(k, to: point, within: radius, filter: filter, into: &out, using: &w)
        return out
    }

    /// Every entry within `radius` metres of `point` that passes `filter` (the boundary is
    /// included: see the radius rule). Unsorted unless `sorted`; sorting costs O(n log n).
    public func within(_ radius: Double, of point: Coordinate, filter: EntryFilter = .all, sorted: Bool = false,
                       into result: inout [Neighbour], using w: inout SearchWorkspace) {
        result.removeAll(keepingCapacity: true)
        guard count > 0, radius >= 0 else { return }
        let q = SpherePoint(point)
        let bound = RadiusBound(radius)
        let fanout = Self.fanout
        w.stack.removeAll(keepingCapacity: true)
        w.stack.append((root, innerLevel[Int(root)]))
        while let (node, level) = w.stack.popLast() {
            let base = Int(node) * fanout
            if level == 0 {
                for s in base..<(base + Int(leafCount[Int(node)])) where filter.accepts(tag: slotTag[s], stamp: slotStamp[s]) {
                    let dx = px[s] - q.x, dy = py[s] - q.y, dz = pz[s] - q.z
                    let d2 = dx * dx + dy * dy + dz * dz
                    if bound.admits(d2) {
                        result.append(Neighbour(entry: EntryID(rawValue: slotEntry[s]), distance: ChordDistance.metres(chord2: d2)))
                    }
                }
            } else {
                for s in base..<(base + Int(innerCount[Int(node)])) {
                    let dx = max(bMinX[s] - q.x, 0, q.x - bMaxX[s])
                    let dy = max(bMinY[s] - q.y, 0, q.y - bMaxY[s])
                    let dz = max(bMinZ[s] - q.z, 0, q.z - bMaxZ[s])
                    if dx * dx + dy * dy + dz * dz <= bound.prune2 { w.stack.append((child[s], level - 1)) }
                }
            }
        }
        if sorted { result.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.entry < $1.entry) } }
    }

    /// Convenience form of `within(_:of:filter:sorted:into:using:)`, sorted, that allocates.
    public func within(_ radius: Double, of point: Coordinate, filter: EntryFilter = .all) -> [Neighbour] {
        var w = SearchWorkspace(), out: [Neighbour] = []
        within(radius, of: point, filter: filter, sorted: true, into: &out, using: &w)
        return out
    }

    /// Every entry inside a latitude/longitude box (edges included) that passes `filter`.
    public func inside(_ area: BoundingBox, filter: EntryFilter = .all, into result: inout [EntryID],
                       using w: inout SearchWorkspace) {
        result.removeAll(keepingCapacity: true)
        guard count > 0 else { return }
        let b3 = Box3(area)
        let fanout = Self.fanout
        w.stack.removeAll(keepingCapacity: true)
        w.stack.append((root, innerLevel[Int(root)]))
        while let (node, level) = w.stack.popLast() {
            let base = Int(node) * fanout
            if level == 0 {
                for s in base..<(base + Int(leafCount[Int(node)])) where filter.accepts(tag: slotTag[s], stamp: slotStamp[s]) {
                    let e = Int(slotEntry[s])
                    if area.contains(Coordinate(unchecked: latitudes[e], longitudes[e])) {
                        result.append(EntryID(rawValue: Int32(e)))
                    }
                }
            } else {
                for s in base..<(base + Int(innerCount[Int(node)])) where b3.intersects(box(atInnerSlot: s)) {
                    w.stack.append((child[s], level - 1))
                }
            }
        }
    }

    /// Entries in order of distance from `point`, produced lazily: stop whenever you like.
    public func neighbours(of point: Coordinate, within radius: Double = .infinity,
                           filter: EntryFilter = .all) -> NeighbourSequence<Payload> {
        NeighbourSequence(tree: self, point: SpherePoint(point), bound: RadiusBound(radius), filter: filter)
    }
}

/// The incremental nearest-neighbour search (best-first over one queue of nodes and
/// entries): each `next()` does only the work needed for the next answer.
public struct NeighbourSequence<Payload: Sendable>: Sequence, IteratorProtocol {
    let tree: RTree<Payload>
    let point: SpherePoint
    let bound: RadiusBound
    let filter: EntryFilter
    var queue: [QueueItem]

    init(tree: RTree<Payload>, point: SpherePoint, bound: RadiusBound, filter: EntryFilter) {
        self.tree = tree; self.point = point; self.bound = bound; self.filter = filter
        queue = tree.count > 0 ? [QueueItem(d2: 0, id: tree.root, level: tree.innerLevel[Int(tree.root)])] : []
    }

    public mutating func next() -> Neighbour? {
        let fanout = RTree<Payload>.fanout
        while let top = Heap.pop(&queue, above: Self.nearer) {
            if top.level < 0 { return Neighbour(entry: EntryID(rawValue: top.id), distance: ChordDistance.metres(chord2: top.d2)) }
            let base = Int(top.id) * fanout
            if top.level == 0 {
                for s in base..<(base + Int(tree.leafCount[Int(top.id)])) where filter.accepts(tag: tree.slotTag[s], stamp: tree.slotStamp[s]) {
                    let d2 = SpherePoint(x: tree.px[s], y: tree.py[s], z: tree.pz[s]).chord2(to: point)
                    if bound.admits(d2) { Heap.push(&queue, QueueItem(d2: d2, id: tree.slotEntry[s], level: -1), above: Self.nearer) }
                }
            } else {
                for s in base..<(base + Int(tree.innerCount[Int(top.id)])) {
                    let d2 = tree.box(atInnerSlot: s).distance2(point.x, point.y, point.z)
                    if d2 <= bound.prune2 { Heap.push(&queue, QueueItem(d2: d2, id: tree.child[s], level: top.level - 1), above: Self.nearer) }
                }
            }
        }
        return nil
    }

    /// Nearer first; at equal distance nodes before entries (so no entry is returned before
    /// an equally near one still inside a node), then the lower id.
    static func nearer(_ a: QueueItem, _ b: QueueItem) -> Bool {
        if a.d2 != b.d2 { return a.d2 < b.d2 }
        if (a.level < 0) != (b.level < 0) { return a.level >= 0 }
        return a.id < b.id
    }
}
