import CIntrinsics
import Essentials
import Geodesy

/// Reusable search buffers. Keep one per thread and pass it to every query, so that a query
/// allocates nothing in steady state. Not `Sendable`: it is scratch space for one thread.
public final class SearchWorkspace {
    /// Nodes waiting to be visited (a stack), and the best entries so far (a max-heap).
    var pending = RawArray<QueueItem>()
    /// The open nodes of a nearest-neighbour search (a stack).
    var frames = RawArray<NodeFrame>()
    var best = Heap<FarthestFirst>()
    /// The answers of a radius search, copied out in one go at the end.
    var found = RawArray<Neighbour>()
    /// Empty scratch space; it grows to what the searches need and keeps it.
    public init() {}
    deinit { pending.release(); frames.release(); found.release() }
}

/// The order of ``KBest``'s heap: the worst kept on top.
enum FarthestFirst: HeapOrder {
    @inline(__always)
    static func precedes(_ a: QueueItem, _ b: QueueItem) -> Bool { QueueItem.before(b, a) }
}

/// The incremental search's one queue of nodes and entries: nearer first; at equal distance
/// nodes before entries (so no entry is returned before an equally near one still inside a
/// node), then the lower id.
enum NearerFirst: HeapOrder {
    @inline(__always)
    static func precedes(_ a: QueueItem, _ b: QueueItem) -> Bool {
        if a.d2 != b.d2 { return a.d2 < b.d2 }
        if (a.level < 0) != (b.level < 0) { return a.level >= 0 }
        return a.id < b.id
    }
}

/// An inner node open in a nearest-neighbour search: the lower bounds of its children not
/// yet visited (+∞ for the others), the least of them, and its level (1: the children are
/// leaves).
///
/// Why the least is kept: a search comes back to each frame on its path after a leaf, and
/// most often only to find the nearest child left beyond the k-th best and leave. Computed
/// when a child is taken, it is off the search's path of dependent work (the descent into
/// that child goes on meanwhile); computed on coming back, it was on it.
struct NodeFrame {
    var remaining: SIMD8<Float>
    var least: Float
    var node: Int32
    var level: Int32
}

/// A search item: a squared chord, and a node (level ≥ 0; 0 = leaf) or an entry (level −1).
struct QueueItem {
    var d2: Double
    var id: Int32
    var level: Int32

    @inline(__always)
    static func before(_ a: QueueItem, _ b: QueueItem) -> Bool { a.d2 < b.d2 || (a.d2 == b.d2 && a.id < b.id) }
}

/// A growable array in a raw buffer, used as a stack and as an output buffer: no
/// uniqueness or capacity check of a Swift array on every push. Unsafe code behind a small
/// wall: every access is below `count`, which only `push`, `pop` and `append` move.
struct RawArray<Element: BitwiseCopyable> {
    private(set) var items: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        items = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    func release() { items.deallocate() }

    @inline(__always) mutating func removeAll() { count = 0 }

    @inline(__always)
    mutating func push(_ x: Element) {
        if count == capacity { grow(toHold: count + 1) }
        items[count] = x
        count += 1
    }

    /// Moves the items to a buffer of at least twice the capacity that holds `needed`.
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(capacity * 2, needed)
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        bigger.moveInitialize(from: items, count: count)
        items.deallocate()
        items = bigger
        capacity = newCapacity
    }

    @inline(__always)
    mutating func pop() -> Element {
        count -= 1
        return items[count]
    }

    /// Makes room for `extra` more items and lets `write` put them at `items + count`
    /// (it returns how many it wrote, at most `extra`): one capacity check for a whole
    /// leaf, and a count the loop keeps in a register rather than in this struct.
    @inline(__always)
    mutating func append(atMost extra: Int, _ write: (UnsafeMutablePointer<Element>) -> Int) {
        if count + extra > capacity { grow(toHold: count + extra) }
        let written = write(items + count)
        assert(written <= extra)
        count += written
    }

    /// The contents, valid until the next push.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: items, count: count) }
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

    /// True when every distance is within (no radius was given).
    var admitsAll: Bool { sure2 == .infinity }
}

/// The entries a nearest-neighbour search keeps while it runs: for k = 1 the best alone
/// (``OneBest``), up to ``FewBest/limit`` the k best in order (``FewBest``), beyond that
/// the k best in a heap (``KBest``). The search is generic over it, so each form runs
/// specialised.
///
/// Why a form of its own for k = 1 (the nearest cab alone): a heap of one still paid for
/// the array under it (taken out of the workspace and put back, emptied, appended to, its
/// uniqueness checked on every change) and for sorting the answer; the best alone is two
/// registers.
protocol NearestKeeper {
    /// An entry farther than this cannot be kept (+∞ until the keeper is full); at exactly
    /// this distance the lower entry id still may.
    var reach: Double { get }
    /// Keeps `item` if it comes before the worst kept (nearer, or as near with a lower id),
    /// or if there is room.
    mutating func offer(_ item: QueueItem)
    /// True when `offer` decides without a branch, so that a leaf scan should offer every
    /// point in the radius rather than test each against ``reach`` first.
    static var offersWithoutBranching: Bool { get }
}

extension NearestKeeper {
    static var offersWithoutBranching: Bool { false }
}

/// The k best so far in a max-heap, the worst on top, so that a better one replaces it in
/// one sift.
struct KBest: NearestKeeper {
    var heap: Heap<FarthestFirst>
    let k: Int
    private(set) var reach = Double.infinity

    init(_ k: Int, heap: Heap<FarthestFirst>) { self.k = k; self.heap = heap }

    @inline(__always)
    mutating func offer(_ item: QueueItem) {
        if heap.count < k {
            heap.push(item)
        } else if let worst = heap.top, QueueItem.before(item, worst) {
            heap.replaceTop(with: item)
        } else {
            return
        }
        if heap.count == k, let worst = heap.top { reach = worst.d2 }
    }
}

/// The k best so far for a small k (up to ``limit``), kept nearest first in a buffer of k
/// slots: an entry that belongs is put in its place by moving the farther ones down one
/// slot, and the farthest falls off the end.
///
/// Why not the heap for a small k: a heap's sifts branch on every level, one way or the
/// other at random, and its answer must still be sorted at the end (for k = 10, the sort
/// alone was 750 instructions, a ninth of the query, and the heap's array was emptied and
/// checked for uniqueness on every push). Here an entry moves past the few farther ones,
/// mostly none, and the answer is ready in order. Past a few dozen the moves cost more than
/// the sifts, hence the limit.
struct FewBest: NearestKeeper {
    /// The largest k kept this way.
    static let limit = 32

    let items: UnsafeMutablePointer<Neighbour>
    let k: Int
    private(set) var count = 0
    private(set) var reach = Double.infinity

    /// Keeps up to `k` entries in `items`, which has room for them.
    init(_ k: Int, in items: UnsafeMutablePointer<Neighbour>) { self.k = k; self.items = items }

    @inline(__always)
    mutating func offer(_ item: QueueItem) {
        let new = Neighbour(entry: EntryID(rawValue: item.id), chord2: item.d2)
        var i = count
        if count == k {
            guard Neighbour.before(new, items[k - 1]) else { return }
            i = k - 1
        } else {
            count += 1
        }
        while i > 0, Neighbour.before(new, items[i - 1]) {
            items[i] = items[i - 1]
            i -= 1
        }
        items[i] = new
        if count == k { reach = items[k - 1].chord2 }
    }
}

/// The best entry so far, for k = 1. Until one is offered it holds a sentinel at +∞, which
/// every entry comes before (a squared chord between unit vectors is finite, about 4 at most).
struct OneBest: NearestKeeper {
    private(set) var best = QueueItem(d2: .infinity, id: .max, level: -1)

    var reach: Double { best.d2 }
    /// The best entry, if one was offered.
    var found: QueueItem? { best.d2 < .infinity ? best : nil }

    /// Why without a branch: in a leaf scan, whether a point is nearer than the best so far
    /// is a coin toss early on (about 4 of the 22 points a query scans are), and each wrong
    /// guess cost the CPU more than the comparison. The nearer of the two is taken with
    /// selects; only an exact tie, which the CPU always guesses right, takes a branch.
    static var offersWithoutBranching: Bool { true }

    @inline(__always)
    mutating func offer(_ item: QueueItem) {
        if item.d2 == best.d2 {
            if item.id < best.id { best = item }
            return
        }
        let nearer = item.d2 < best.d2
        best.d2 = nearer ? item.d2 : best.d2
        best.id = nearer ? item.id : best.id
    }
}

extension RTreeCore {
    /// The k entries nearest to `point` (great-circle), within `radius` metres, that pass
    /// `filter`, nearest first; ties in distance go to the lower entry id. Written into
    /// `result`; nothing is allocated once the workspace and result have grown.
    @usableFromInline func nearest(_ k: Int, to point: Coordinate, within radius: Double = .infinity,
                                   filter: EntryFilter = .all, into result: inout [Neighbour], using w: SearchWorkspace) {
        guard k > 0, count > 0 else { result.removeAll(keepingCapacity: true); return }
        let q = frame.point(point)
        let bound = RadiusBound(radius)
        if k == 1 {
            // The previous answer of one (a caller asking for k = 1 over and over) is dropped
            // with `removeLast`: `removeAll(keepingCapacity:)` goes through the standard
            // library's generic `replaceSubrange`, 85 instructions, 4 % of a k = 1 query.
            if result.count == 1 { result.removeLast() } else { result.removeAll(keepingCapacity: true) }
            var one = OneBest()
            search(&one, q: q, filter: filter, bound: bound, using: w)
            if let item = one.found { result.append(Neighbour(entry: EntryID(rawValue: item.id), chord2: item.d2)) }
            return
        }
        if k <= FewBest.limit {
            // The kept entries are written in the workspace's buffer, then replace the
            // result's contents in one call (not emptied, then appended to: two calls).
            var found = w.found
            defer { w.found = found }
            found.removeAll()
            found.append(atMost: k) { items in
                var few = FewBest(k, in: items)
                search(&few, q: q, filter: filter, bound: bound, using: w)
                return few.count
            }
            result.replaceSubrange(result.indices, with: found.elements)
            return
        }
        result.removeAll(keepingCapacity: true)
        // The heap is swapped out of the workspace and back (not copied), so its buffer
        // stays unique and is reused.
        var kept = KBest(k, heap: Heap())
        swap(&kept.heap, &w.best)
        defer { swap(&kept.heap, &w.best) }
        kept.heap.removeAll()
        search(&kept, q: q, filter: filter, bound: bound, using: w)
        // The max-heap holds the answer; sort it nearest first.
        for item in kept.heap.unordered {
            result.append(Neighbour(entry: EntryID(rawValue: item.id), chord2: item.d2))
        }
        if result.count > 1 { result.sort(by: Neighbour.before) }
    }

    /// The nearest-neighbour search proper: offers `keeper` every entry that may belong
    /// among the nearest to `q` within `bound` and passes `filter`.
    @inline(__always)
    func search<Keeper: NearestKeeper>(_ keeper: inout Keeper, q: SpherePoint, filter: EntryFilter, bound: RadiusBound,
                                       using w: SearchWorkspace) {
        let fq = FloatQuery(q)
        // Depth-first branch and bound (as a k-d tree search does it), not a global best-first
        // queue: the nearest child is visited first, so its leaf sets a tight bound at once,
        // and everything farther than the k-th best is then dropped. Measured against the
        // best-first heap this halved the cost of k = 1 (the heap paid for ~60 pushes per
        // query, nearly all of them never popped).
        //
        // The stack holds a frame per open node, not an item per child: the lower bounds of
        // the children not yet visited (+∞ for those visited, and for empty slots). Why: with
        // one item per child, the first descent (no bound yet) pushed all eight children of
        // every node on the way down, and popped most of them again only to drop them; a
        // frame gives its children nearest first and is dropped whole once the nearest left
        // is out of reach.
        //
        // The stack is taken out of the workspace for the search: a stored property of a
        // class would cost an exclusivity check and a retain on every push.
        var frames = w.frames
        defer { w.frames = frames }
        frames.removeAll()
        let flat = isFlat(around: q)
        frames.push(openFrame(Int(root), fq, flat: flat))
        // The farthest an entry may be to matter: the radius, then the k-th best once there
        // are k. It changes only when a leaf is scanned.
        var limit = bound.prune2
        while frames.count > 0 {
            let f = frames.count - 1
            // The children are taken nearest first, so the node is done once the nearest left
            // is beyond the limit (`>` and not `≥`: at an equal distance a lower entry id may
            // still be waiting).
            let nearest = frames.items[f].least
            guard nearest < .infinity, Double(nearest) <= limit else { _ = frames.pop(); continue }
            var open = frames.items[f].remaining
            let lane = FloatQuery.lane(of: nearest, in: open)
            open[lane] = .infinity
            let next = FloatQuery.least(open)
            frames.items[f].remaining = open
            frames.items[f].least = next
            let node = Int(frames.items[f].node), child = Int(innerSlots.nodes[node].child[lane])
            if frames.items[f].level == 1 {
                // The next nearest leaf, if near enough, is likely visited next: its slots can
                // be on their way from memory during this scan.
                if next < .infinity, Double(next) <= limit { prefetch(leaf: Int(innerSlots.nodes[node].child[FloatQuery.lane(of: next, in: open)])) }
                scan(leaf: child, q: q, filter: filter, bound: bound, into: &keeper)
                limit = min(keeper.reach, bound.prune2)
            } else {
                frames.push(openFrame(child, fq, flat: flat))
            }
        }
    }

    /// Offers every accepted point of a leaf to the keeper. A method with its state passed
    /// in, not a nested closure: a closure capturing the keeper would box it per query.
    @inline(__always)
    func scan<Keeper: NearestKeeper>(leaf: Int, q: SpherePoint, filter: EntryFilter, bound: RadiusBound,
                                     into keeper: inout Keeper) {
        let base = leaf * Self.leafCapacity
        let slots = base..<(base + Int(leaves[leaf].count))
        if filter.acceptsEveryTag && bound.admitsAll {
            // The bare search (no filter, no radius): the same loop without the filter's three
            // tests and the radius test, a quarter of the instructions a point takes (k = 1:
            // 29 → 22 a point, 22 points a query). The one test left is what `.all` still
            // turns away, a zero tag. Chosen once a leaf, so always guessed right.
            scan(slots, q: q, accepts: { $0.tag != 0 }, admits: { _ in true }, prune2: .infinity, into: &keeper)
        } else {
            scan(slots, q: q, accepts: { filter.accepts(tag: $0.tag, stamp: $0.stamp) }, admits: bound.admits,
                 prune2: bound.prune2, into: &keeper)
        }
    }

    /// The leaf loop of `scan(leaf:q:filter:bound:into:)`, for the two tests it is given
    /// (inlined with them, so each form compiles to its own loop).
    @inline(__always)
    private func scan<Keeper: NearestKeeper>(_ slots: Range<Int>, q: SpherePoint, accepts: (LeafSlot) -> Bool,
                                             admits: (Double) -> Bool, prune2: Double, into keeper: inout Keeper) {
        // The farthest a point may be to matter, kept in a local: most points fail this one
        // comparison (at an equal distance the entry id decides, in the keeper).
        var limit = min(keeper.reach, prune2)
        for s in slots {
            let slot = leafSlots[s]
            guard accepts(slot) else { continue }
            let d2 = slot.chord2(to: q)
            if Keeper.offersWithoutBranching {
                // Every point in the radius: a test against the reach first would be a branch
                // guessed wrong at random.
                guard admits(d2) else { continue }
                keeper.offer(QueueItem(d2: d2, id: slot.entry, level: -1))
                continue
            }
            guard d2 <= limit, admits(d2) else { continue }
            keeper.offer(QueueItem(d2: d2, id: slot.entry, level: -1))
            limit = min(keeper.reach, prune2)
        }
    }

    /// True when the boxes' z gaps can be left out of the bounds for a query at `q`
    /// (`FloatQuery.planarLowerBounds(of:)`).
    ///
    /// Why: near the centre of a centred frame (within about 900 km of it, where z is the
    /// height below the tangent plane and |Δz| ≤ 0.15·|Δxy| between points of the sphere),
    /// the z gaps add about 2 % at most to a bound, and computing them is a third of a node's
    /// bounds (k = 1 at 100k cabs: 6 % fewer instructions, the same answers). A bound
    /// without a square is still a bound, so this is only about speed: the query and every
    /// box must be that near, or the dropped gaps could be most of a bound (in the
    /// Earth-centred frame, or for a cab across the globe).
    @inline(__always)
    func isFlat(around q: SpherePoint) -> Bool {
        frame.lift == 1 && q.z >= -0.01 && FloatQuery.lanes(of: innerSlots.nodes[Int(root)].minZ, atMost: -0.01) == 0
    }

    /// A frame for inner node `n`: its children's lower bounds, +∞ past its count (the
    /// slots past a node's count hold empty boxes), and the least of them.
    @inline(__always)
    func openFrame(_ n: Int, _ fq: FloatQuery, flat: Bool) -> NodeFrame {
        let bounds = flat ? fq.planarLowerBounds(of: innerSlots.nodes[n]) : fq.lowerBounds(of: innerSlots.nodes[n])
        return NodeFrame(remaining: bounds, least: FloatQuery.least(bounds), node: Int32(n), level: inners[n].level)
    }

    /// Every entry within `radius` metres of `point` that passes `filter` (the boundary is
    /// included: see the radius rule). Unsorted unless `sorted`; sorting costs O(n log n).
    func within(_ radius: Double, of point: Coordinate, filter: EntryFilter = .all, sorted: Bool = false,
                into result: inout [Neighbour], using w: SearchWorkspace) {
        result.removeAll(keepingCapacity: true)
        guard count > 0, radius >= 0 else { return }
        let q = frame.point(point), fq = FloatQuery(q), flat = isFlat(around: q)
        let bound = RadiusBound(radius), reach = FloatQuery.above(bound.prune2)
        var pending = w.pending, found = w.found
        defer { w.pending = pending; w.found = found }
        pending.removeAll()
        found.removeAll()
        pending.push(QueueItem(d2: 0, id: root, level: inners[Int(root)].level))
        while pending.count > 0 {
            let top = pending.pop()
            if top.level == 0 {
                // Every pending node will be visited, so the next leaf's slots can be on their
                // way from memory while this one is scanned.
                if pending.count > 0, pending.items[pending.count - 1].level == 0 { prefetch(leaf: Int(pending.items[pending.count - 1].id)) }
                let base = Int(top.id) * Self.leafCapacity, end = base + Int(leaves[Int(top.id)].count)
                found.append(atMost: end - base) { out in
                    var n = 0
                    for s in base..<end {
                        let slot = leafSlots[s]
                        guard filter.accepts(tag: slot.tag, stamp: slot.stamp) else { continue }
                        let d2 = slot.chord2(to: q)
                        if bound.admits(d2) { out[n] = Neighbour(entry: EntryID(rawValue: slot.entry), chord2: d2); n += 1 }
                    }
                    return n
                }
            } else {
                let node = innerSlots.nodes[Int(top.id)]
                let bounds = flat ? fq.planarLowerBounds(of: node) : fq.lowerBounds(of: node)
                // The children in reach, found for all eight at once (empty slots never are).
                var inReach = FloatQuery.lanes(of: bounds, atMost: reach)
                while inReach != 0 {
                    let i = inReach.trailingZeroBitCount
                    inReach &= inReach - 1
                    pending.push(QueueItem(d2: Double(bounds[i]), id: node.child[i], level: top.level - 1))
                }
            }
        }
        result.append(contentsOf: found.elements)
        if sorted { result.sort(by: Neighbour.before) }
    }

    /// Hints the CPU to fetch a leaf's count and its first `packedLeaf` slots.
    @inline(__always)
    func prefetch(leaf: Int) {
        leaves.withUnsafeBytes { wayfare_prefetch($0.baseAddress! + leaf * MemoryLayout<Header>.stride) }
        leafSlots.withUnsafeBytes { raw in
            let start = leaf * Self.leafCapacity * MemoryLayout<LeafSlot>.stride
            for offset in stride(from: start, to: start + Self.packedLeaf * MemoryLayout<LeafSlot>.stride, by: 64) {
                wayfare_prefetch(raw.baseAddress! + offset)
            }
        }
    }

    /// Every entry inside a latitude/longitude box (edges included) that passes `filter`.
    func inside(_ area: BoundingBox, filter: EntryFilter = .all, into result: inout [EntryID],
                using w: SearchWorkspace) {
        result.removeAll(keepingCapacity: true)
        guard count > 0 else { return }
        let b3 = frame.move(Box3(area))
        let fanout = Self.fanout
        var pending = w.pending
        defer { w.pending = pending }
        pending.removeAll()
        pending.push(QueueItem(d2: 0, id: root, level: inners[Int(root)].level))
        while pending.count > 0 {
            let top = pending.pop()
            if top.level == 0 {
                let base = Int(top.id) * Self.leafCapacity
                for s in base..<(base + Int(leaves[Int(top.id)].count)) where filter.accepts(tag: leafSlots[s].tag, stamp: leafSlots[s].stamp) {
                    let e = Int(leafSlots[s].entry)
                    if area.contains(positions[e]) {
                        result.append(EntryID(rawValue: Int32(e)))
                    }
                }
            } else {
                let base = Int(top.id) * fanout
                for s in base..<(base + Int(inners[Int(top.id)].count)) where b3.intersects(innerSlots.box(at: s).exact) {
                    pending.push(QueueItem(d2: 0, id: innerSlots.child(at: s), level: top.level - 1))
                }
            }
        }
    }

    /// Entries in order of distance from `point`, produced lazily: stop whenever you like.
    func neighbours(of point: Coordinate, within radius: Double = .infinity,
                    filter: EntryFilter = .all) -> NeighbourSequence {
        NeighbourSequence(tree: self, point: frame.point(point), bound: RadiusBound(radius), filter: filter)
    }
}

/// The incremental nearest-neighbour search (best-first over one queue of nodes and
/// entries): each `next()` does only the work needed for the next answer.
public struct NeighbourSequence: Sequence, IteratorProtocol {
    let tree: RTreeCore
    let point: SpherePoint
    /// The point as node lower bounds take it.
    let fq: FloatQuery
    let bound: RadiusBound
    let filter: EntryFilter
    var queue = Heap<NearerFirst>()

    init(tree: RTreeCore, point: SpherePoint, bound: RadiusBound, filter: EntryFilter) {
        self.tree = tree; self.point = point; self.bound = bound; self.filter = filter
        fq = FloatQuery(point)
        if tree.count > 0 { queue.push(QueueItem(d2: 0, id: tree.root, level: tree.inners[Int(tree.root)].level)) }
    }

    /// The next nearest entry that passes the filter, or nil when none is left.
    public mutating func next() -> Neighbour? {
        while let top = queue.pop() {
            if top.level < 0 { return Neighbour(entry: EntryID(rawValue: top.id), chord2: top.d2) }
            if top.level == 0 {
                let base = Int(top.id) * RTreeCore.leafCapacity
                for s in base..<(base + Int(tree.leaves[Int(top.id)].count)) {
                    let slot = tree.leafSlots[s]
                    guard filter.accepts(tag: slot.tag, stamp: slot.stamp) else { continue }
                    let d2 = SpherePoint(x: slot.x, y: slot.y, z: slot.z).chord2(to: point)
                    if bound.admits(d2) { queue.push(QueueItem(d2: d2, id: slot.entry, level: -1)) }
                }
            } else {
                let node = tree.innerSlots.nodes[Int(top.id)]
                let bounds = fq.lowerBounds(of: node)
                for i in 0..<Int(tree.inners[Int(top.id)].count) where Double(bounds[i]) <= bound.prune2 {
                    queue.push(QueueItem(d2: Double(bounds[i]), id: node.child[i], level: top.level - 1))
                }
            }
        }
        return nil
    }
}
