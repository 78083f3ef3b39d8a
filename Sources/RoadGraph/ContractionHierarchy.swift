import Foundation
import SpatialIndex

/// One arc of a contraction hierarchy: to `node`, at `weight`, along edge or shortcut `edge`.
struct HierarchyArc: BitwiseCopyable, Sendable {
    var node: UInt32
    var weight: UInt32
    var edge: UInt32
}

/// A contraction hierarchy for one metric.
///
/// Nodes are contracted one by one, least important first (edge difference, contracted
/// neighbours and depth). Contracting v adds a shortcut u → x for each pair of remaining
/// neighbours whose shortest connection ran through v, unless a witness search finds
/// another path at most as short. A query then searches only upwards from both ends.
///
/// Only the upward arcs are kept, as CSR arrays: `up` holds, at node u, the arcs u → x with
/// x contracted after u (forward search); `down` holds, at node u, the arcs x → u with x
/// contracted after u, stored as (x, weight, edge) (backward search). An arc's `edge` is an
/// original edge id below `originalEdgeCount`, or `originalEdgeCount + k` for shortcut k,
/// which stands for the two edges `shortcutFirst[k]` then `shortcutSecond[k]`.
///
/// The arrays are indexed by **rank**, a node's place in the contraction order, not by the
/// network's node id: `rank[v]` is node v's index here, and an arc's `node` is a rank. A
/// search converts its seeds once and never leaves rank space; its path comes out as edges,
/// which need no converting. Why: every query ends among the few thousand nodes contracted
/// last, and in rank order those sit together at the end of the arrays (and of a search's
/// labels) instead of spread over the whole city, so the top of the hierarchy stays in the
/// cache from one query to the next.
struct ContractionHierarchy: Sendable {
    /// Each network node's index in the arrays below: its place in the contraction order.
    var rank: [UInt32] = []
    var upFirst: [UInt32] = [0]
    var up: [HierarchyArc] = []
    var downFirst: [UInt32] = [0]
    var down: [HierarchyArc] = []
    var shortcutFirst: [UInt32] = []
    var shortcutSecond: [UInt32] = []
    var originalEdgeCount = 0
    /// Derived at load, not stored: the length (dm) of the original edges each shortcut
    /// stands for, so that many-to-one ETAs give metres without unpacking paths.
    var shortcutLengthDm: [UInt32] = []
    /// Each rank's costs from and to the landmarks, for the landmarks' bound
    /// (`LandmarkBound`); stored in the graph file, empty for the time metric.
    var landmarks = LandmarkTable()

    /// How many contractions and simulations ran their searches on two threads (not
    /// stored in the graph file).
    var splitContractions = 0
    /// How many times the remaining nodes were renumbered (not stored either).
    var compactions = 0

    var shortcutCount: Int { shortcutFirst.count }
    var memoryBytes: Int {
        (rank.count + upFirst.count + downFirst.count + shortcutFirst.count * 2 + shortcutLengthDm.count) * 4 + (up.count + down.count) * 12
            + landmarks.memoryBytes
    }

    init() {}

    init(rank: [UInt32], upFirst: [UInt32], up: [HierarchyArc], downFirst: [UInt32], down: [HierarchyArc],
         shortcutFirst: [UInt32], shortcutSecond: [UInt32], originalEdgeCount: Int) {
        self.rank = rank
        self.upFirst = upFirst; self.up = up; self.downFirst = downFirst; self.down = down
        self.shortcutFirst = shortcutFirst; self.shortcutSecond = shortcutSecond
        self.originalEdgeCount = originalEdgeCount
    }

    /// Contracts the graph given by its edges (tail[e] → head[e] at weight[e]), telling
    /// `progress` the share of nodes contracted so far (at each whole percent). With two
    /// `workers` (the default on two cores or more) the dense nodes' witness searches run on
    /// two threads; the hierarchy is the same with one. The remaining nodes are renumbered
    /// as they dwindle, down to `compactionFloor` ids (tests lower it, or set it past `n` to
    /// renumber nothing); the hierarchy is the same either way. `limits` bound the witness
    /// searches (the import takes `WitnessLimits.for(metric)`). `positions`, from
    /// `lowerBoundPositions`, let the searches skip nodes no target is within reach of
    /// (none: no skipping). `sharing` counts the import's jobs still running: once this is
    /// the last, lighter nodes split their searches too and the helper spins between them
    /// (none: as when other jobs run). The hierarchy is the same either way.
    init(nodeCount n: Int, tail: [UInt32], head: [UInt32], weight: [UInt32],
         workers: Int = ProcessInfo.processInfo.activeProcessorCount >= 2 ? 2 : 1, compactionFloor: Int = 1_024,
         limits: WitnessLimits = .thorough, positions: [SIMD2<Float>] = [], sharing: CoreSharing? = nil,
         progress: ((Double) -> Void)? = nil) {
        originalEdgeCount = head.count
        var c = Contractor(nodeCount: n, tail: tail, head: head, weight: weight, workers: workers,
                           compactionFloor: compactionFloor, limits: limits, positions: positions, sharing: sharing)
        c.run(progress: progress)
        c.helper?.stop()
        splitContractions = c.splitContractions
        compactions = c.compactions
        c.releaseWorkingState()
        rank = [UInt32](repeating: 0, count: n)
        for (r, v) in c.order.enumerated() { rank[Int(v)] = UInt32(r) }
        (upFirst, up) = c.upward.rankOrder(c.order, rank: rank)
        (downFirst, down) = c.downward.rankOrder(c.order, rank: rank)
        shortcutFirst = c.shortcutFirst
        shortcutSecond = c.shortcutSecond
    }

    /// Fills `shortcutLengthDm` from the original edges' lengths: one pass, since a shortcut
    /// refers only to edges made before it (checked on load; a part that breaks the rule
    /// counts as 0 rather than trapping).
    mutating func deriveShortcutLengths(_ lengthDm: [UInt32]) {
        let m = originalEdgeCount
        var lengths = [UInt32](repeating: 0, count: shortcutFirst.count)
        func length(_ e: UInt32, before k: Int) -> UInt32 {
            let e = Int(e)
            if e < m { return e < lengthDm.count ? lengthDm[e] : 0 }
            return e - m < k ? lengths[e - m] : 0
        }
        for k in shortcutFirst.indices {
            lengths[k] = plus(length(shortcutFirst[k], before: k), length(shortcutSecond[k], before: k))
        }
        shortcutLengthDm = lengths
    }

    /// Each node's place on a plane, scaled so that the straight line between two nodes
    /// costs no more than any path between them: a lower bound for the witness searches
    /// (`WitnessSearch.run`). Empty when no edge gives a scale (every edge free or of no
    /// length).
    ///
    /// The plane is equirectangular about the mean latitude, and the scale is the least
    /// cost per metre of any edge along its straight line, less a thousandth for the
    /// rounding of `Float`. So each edge costs at least its scaled line, and by the triangle
    /// inequality each path at least the line between its ends, whatever the projection's
    /// distortion. Why it need not be more careful: a bound too high only makes a search
    /// miss a witness and add a shortcut it could have spared, never a wrong route.
    static func lowerBoundPositions(latE7: [Int32], lonE7: [Int32], tail: [UInt32], head: [UInt32],
                                    weight: [UInt32]) -> [SIMD2<Float>] {
        guard !latE7.isEmpty, latE7.count == lonE7.count else { return [] }
        let meanLatitude = latE7.reduce(0.0) { $0 + Double($1) } / Double(latE7.count) * 1e-7
        let metresPerE7 = 6_371_008.8 * .pi / 180 * 1e-7, eastMetresPerE7 = metresPerE7 * cos(meanLatitude * .pi / 180)
        let plane = zip(latE7, lonE7).map { SIMD2<Double>(Double($1) * eastMetresPerE7, Double($0) * metresPerE7) }
        var scale = Double.infinity
        for e in head.indices {
            let d = plane[Int(tail[e])] - plane[Int(head[e])], metres = (d * d).sum().squareRoot()
            if metres > 0 { scale = min(scale, Double(weight[e]) / metres) }
        }
        guard scale.isFinite, scale > 0 else { return [] }
        scale *= 0.999
        // From the first node, so that Float keeps its precision over a city.
        let origin = plane[0]
        return plane.map { SIMD2<Float>(($0 - origin) * scale) }
    }

    /// The length in dm of a hierarchy arc's edge (original or shortcut).
    @inline(__always) func lengthDm(of edge: UInt32, original lengthDm: [UInt32]) -> UInt32 {
        let e = Int(edge)
        return e < originalEdgeCount ? lengthDm[e] : shortcutLengthDm[e - originalEdgeCount]
    }
}

/// The arcs of every node of the graph being contracted, in one array: each node's in a
/// slot of its own, moved to the end at twice the size when it fills up, and the array
/// compacted when more than half of it is left behind. Why not an array per node: a search
/// then retained and released each node's array as it read it, from both workers at once,
/// and a million small arrays each carry a header and an allocation of their own.
struct ArcLists {
    /// Where a node's arcs are: `arcs[first ..< first + count]`, room for `capacity`.
    /// One struct per node, so that a search finds a node's place with one memory access.
    struct Slot { var first = 0, count: Int32 = 0, capacity: Int32 = 0 }
    var arcs: [HierarchyArc] = []
    var slots: [Slot]
    /// Arcs in slots still in use (their capacity).
    var used = 0

    /// Lays out a slot per node with room for exactly `degree[v]` arcs, so that building the
    /// graph moves no slot and leaves no gap.
    init(degrees: [Int32]) {
        slots = .init(repeating: Slot(), count: degrees.count)
        var next = 0
        for v in degrees.indices {
            slots[v] = Slot(first: next, count: 0, capacity: degrees[v])
            next += Int(degrees[v])
        }
        arcs = .init(repeating: HierarchyArc(node: 0, weight: 0, edge: 0), count: next)
        used = next
    }

    func count(_ v: Int) -> Int { Int(slots[v].count) }

    /// Runs `body` with a read-only view of the lists, for searches that must not retain
    /// and release the arrays as they read them.
    func withView<R>(_ body: (ArcView) throws -> R) rethrows -> R {
        try arcs.withUnsafeBufferPointer { arcs in try slots.withUnsafeBufferPointer { try body(ArcView(arcs: arcs, slots: $0)) } }
    }

    func range(_ v: Int) -> Range<Int> { slots[v].first..<(slots[v].first + Int(slots[v].count)) }

    /// The arcs of `v`, copied out.
    func list(_ v: Int) -> [HierarchyArc] { Array(arcs[range(v)]) }

    /// The index in `arcs` of v's arc to `x`, if any.
    func index(of x: Int, in v: Int) -> Int? {
        for k in range(v) where Int(arcs[k].node) == x { return k }
        return nil
    }

    mutating func append(_ arc: HierarchyArc, to v: Int) {
        if slots[v].count == slots[v].capacity {
            let old = slots[v], size = max(4, 2 * Int(old.capacity))
            // Room runs out: compact when a fifth of the array is left behind, else grow
            // by half. Why not let the array double: at a million nodes each list holds
            // tens of millions of arcs, and doubling left half of it unused.
            if arcs.count + size > arcs.capacity {
                if arcs.count - used >= arcs.count / 5 { compact(reserving: size) } else { arcs.reserveCapacity(arcs.count + arcs.count / 2 + size) }
            }
            let start = arcs.count
            // One by one: appending a slice of the array to itself would copy the whole array.
            for k in range(v) { arcs.append(arcs[k]) }
            arcs.append(contentsOf: repeatElement(HierarchyArc(node: 0, weight: 0, edge: 0), count: size - Int(old.count)))
            used += size - Int(old.capacity)
            slots[v] = Slot(first: start, count: old.count, capacity: Int32(size))
        }
        arcs[slots[v].first + Int(slots[v].count)] = arc
        slots[v].count += 1
    }

    /// Removes v's arc to `x` (the last arc takes its place).
    mutating func remove(_ x: Int, from v: Int) {
        guard let k = index(of: x, in: v) else { return }
        slots[v].count -= 1
        arcs[k] = arcs[slots[v].first + Int(slots[v].count)]
    }

    /// Empties v's slot for good.
    mutating func release(_ v: Int) {
        used -= Int(slots[v].capacity); slots[v] = Slot()
    }

    /// Moves every slot in use to the front, in node order, with room for `extra` more
    /// arcs and a quarter of those in use.
    mutating func compact(reserving extra: Int) {
        var packed: [HierarchyArc] = []
        packed.reserveCapacity(used + used / 4 + extra)
        for v in slots.indices where slots[v].capacity > 0 {
            let start = packed.count
            packed.append(contentsOf: arcs[range(v)])
            packed.append(contentsOf: repeatElement(HierarchyArc(node: 0, weight: 0, edge: 0), count: Int(slots[v].capacity - slots[v].count)))
            slots[v].first = start
        }
        arcs = packed
    }
}

/// The arcs kept for the hierarchy, each node's appended in one block when it is contracted:
/// one array, not one per node. Why: a million small arrays each carry a header and an
/// allocation of their own (a tenth of the import's peak at a million nodes), and freeing
/// them does not give the memory back to the system for the arrays that follow.
private struct KeptArcs {
    var arcs: [HierarchyArc] = []
    /// Where each node's block starts in `arcs`, and its length.
    var start: [UInt32], count: [UInt32]

    init(nodeCount n: Int) { start = .init(repeating: 0, count: n); count = start }

    /// Keeps node `v`'s arcs `list[range]`, whose nodes are working ids: `node[id]` is the
    /// network node each stands for.
    mutating func keep(_ v: Int, _ list: [HierarchyArc], _ range: Range<Int>, naming node: [UInt32]) {
        start[v] = UInt32(arcs.count); count[v] = UInt32(range.count)
        for k in range {
            var arc = list[k]
            arc.node = node[Int(arc.node)]
            arcs.append(arc)
        }
    }

    /// The arcs as CSR arrays in rank order, each arc's node given as its rank; the array is
    /// taken, not copied. `order` lists the nodes in the order they were kept, so the blocks
    /// already lie in rank order: only the offsets are new and the nodes renamed.
    mutating func rankOrder(_ order: [UInt32], rank: [UInt32]) -> ([UInt32], [HierarchyArc]) {
        var first = [UInt32](repeating: 0, count: order.count + 1)
        for (r, v) in order.enumerated() {
            assert(start[Int(v)] == first[r], "blocks kept out of order")
            first[r + 1] = first[r] + count[Int(v)]
        }
        var taken: [HierarchyArc] = []
        swap(&taken, &arcs)
        for k in taken.indices { taken[k].node = rank[Int(taken[k].node)] }
        start = []; count = []
        return (first, taken)
    }
}

/// The working state of contraction: adjacency lists of the remaining graph, the witness
/// searches, and the upward arcs collected as nodes are contracted.
///
/// A node's witness searches (one per in-neighbour) all read the graph as it was before the
/// node: their shortcuts are added only once every search is done. So the searches of a
/// node with many neighbours can run on two cores, and the hierarchy is the same whether
/// they did or not. Why only then: at the start of a contraction each node's searches take
/// a microsecond or two, less than waking another thread; the dense core left at the end,
/// where degrees reach the tens and the time goes, is where the second core pays. Once the
/// import's other jobs are done, the helper spins between tasks instead of sleeping, and
/// nodes of an eighth of that work split too (`splitWorkAlone`).
///
/// The remaining nodes are renumbered as the graph shrinks (`compact()`): every time they
/// fall to a quarter of the ids in use, they take the ids 0, 1, 2, … in their old order.
/// Why: the dense core, where the time goes, is a few thousand nodes scattered over the
/// whole city, and a witness search there touched a cache line of labels per arc it relaxed;
/// renumbered, their labels and arc slots fit in the cache. Nothing else changes: the
/// renumbering keeps the nodes' order (every tie is broken by id, in the queue and in the
/// searches) and each list's order, so the hierarchy is the same, arc for arc.
private struct Contractor {
    let n: Int
    /// The network node each working id stands for.
    var node: [UInt32]
    /// Renumber no further once the ids in use are fewer than this.
    let compactionFloor: Int
    var out: ArcLists
    var into: ArcLists
    var contracted: [Bool]
    var deletedNeighbours: [Int32]
    var depth: [Int32]
    var upward: KeptArcs
    var downward: KeptArcs
    var shortcutFirst: [UInt32] = []
    var shortcutSecond: [UInt32] = []
    var shortcutBase: UInt32 = 0
    /// The nodes in the order they were contracted.
    var order: [UInt32] = []
    /// The node `needed` holds the simulated verdicts of, while the graph is as it was
    /// then (-1: none).
    var simulated = -1
    /// One search per worker.
    var searches: [WitnessSearch]
    /// How many calls of `contract` split their searches.
    var splitContractions = 0
    /// How many times `compact()` ran.
    var compactions = 0
    /// The next in-neighbour a worker of the node being contracted takes.
    let nextInNeighbour = AtomicCounter()
    /// The second worker's thread, when there are two cores.
    let helper: HelperThread?
    /// The last contraction's verdicts: whether in-neighbour i needs a shortcut to
    /// out-neighbour j, at `i * outs + j`.
    var needed: [Bool] = []
    /// A node's searches are split over the workers when in-degree × out-degree × the
    /// settled limit reaches this (roughly the arcs they relax). Why 8,000: on the 100k
    /// grid the distance metric contracted in 18.4 s at 20,000, 15.2 s at 8,000 and 15.9 s
    /// at 3,000 (one worker: 21 s); below it, waking the helper costs more than it saves.
    /// Measured again with the distance metric's shorter searches (`WitnessLimits.quick`):
    /// 1,500, 3,000, 20,000 and 40,000 were no better.
    static let splitWork = 8_000
    /// The same, once this contraction has the cores to itself (`CoreSharing`), when the
    /// helper spins between tasks (`spinsAlone`) rather than sleeping. Why: the band where
    /// the distance metric's degrees are in the twenties and thirties then runs on both
    /// cores instead of one. The 1M grid's import, alternating with the helper that always
    /// sleeps: 75.2–75.7 s against 92.7–96.8 s on a slow evening, 71.1–71.3 s against
    /// 82.6–84.0 s on a quicker one (the same files). Splitting at 500 and 2,000 was no
    /// better than 1,000; spinning 2,000 times was less steady.
    static let splitWorkAlone = 1_000
    /// How many times the helper and its owner check for each other before they sleep,
    /// once the contraction has the cores to itself: about 0.6 ms.
    static let spinsAlone = 20_000
    /// The import's other jobs, to know when this contraction has the cores to itself
    /// (nil: never assumed).
    let sharing: CoreSharing?
    /// How far the witness searches go.
    let limits: WitnessLimits
    /// Each working id's place from `ContractionHierarchy.lowerBoundPositions` (empty: the
    /// searches skip no node).
    var positions: [SIMD2<Float>]

    /// The graph of `n` nodes whose edges run `tail[e]` → `head[e]` at `weight[e]`, ready
    /// to contract (loops left out, parallel edges kept at their lowest weight).
    init(nodeCount n: Int, tail: [UInt32], head: [UInt32], weight: [UInt32], workers: Int, compactionFloor: Int,
         limits: WitnessLimits, positions: [SIMD2<Float>], sharing: CoreSharing?) {
        self.n = n
        self.sharing = sharing
        self.positions = positions
        self.limits = limits
        node = Array(0..<UInt32(n))
        self.compactionFloor = compactionFloor
        // Parallel edges give a node fewer arcs than this, which is room to spare.
        var outDegree = [Int32](repeating: 0, count: n), inDegree = outDegree
        for e in head.indices where tail[e] != head[e] { outDegree[Int(tail[e])] += 1; inDegree[Int(head[e])] += 1 }
        out = ArcLists(degrees: outDegree); into = ArcLists(degrees: inDegree)
        shortcutBase = UInt32(head.count)
        upward = KeptArcs(nodeCount: n); downward = upward
        contracted = .init(repeating: false, count: n)
        deletedNeighbours = .init(repeating: 0, count: n); depth = deletedNeighbours
        helper = workers > 1 ? HelperThread() : nil  // two at most: the searches are split in two
        searches = (0..<(helper == nil ? 1 : 2)).map { _ in WitnessSearch(nodeCount: n) }
        for e in head.indices where tail[e] != head[e] {
            addArc(from: Int(tail[e]), to: Int(head[e]), weight: weight[e], edge: UInt32(e))
        }
    }

    /// Frees what only contraction needs, before the kept arcs are laid out.
    mutating func releaseWorkingState() {
        out = ArcLists(degrees: []); into = out
        searches = []; needed = []; contracted = []; positions = []; deletedNeighbours = []; depth = []; node = []
    }

    /// Adds u → x, or lowers the weight of an existing u → x arc.
    mutating func addArc(from u: Int, to x: Int, weight: UInt32, edge: UInt32) {
        if let i = out.index(of: x, in: u) {
            guard weight < out.arcs[i].weight else { return }
            out.arcs[i].weight = weight; out.arcs[i].edge = edge
            if let j = into.index(of: u, in: x) { into.arcs[j].weight = weight; into.arcs[j].edge = edge }
            return
        }
        out.append(HierarchyArc(node: UInt32(x), weight: weight, edge: edge), to: u)
        into.append(HierarchyArc(node: UInt32(u), weight: weight, edge: edge), to: x)
    }

    /// Contracts v (when `apply`) or only counts the shortcuts contracting it would add.
    mutating func contract(_ v: Int, apply: Bool) -> Int {
        // Right after v's simulation (nothing changed since), a pair it found a witness for,
        // or an in-arc it found dominated, needs no shortcut now either: each verdict rests on
        // a path that exists. So the contraction searches only for the pairs left open, and
        // only as far as the longest of them still unsettled (`WitnessSearch.run`). (The 100k
        // grid's distance metric: 13.6–13.9 s against 15.0–15.1 s, the same hierarchy byte
        // for byte.)
        let reuse = apply && simulated == v
        simulated = apply ? -1 : v
        let outs = out.list(v), ins = into.list(v), m = outs.count
        guard m > 0 else { return 0 }
        let maxSettled = apply ? limits.contraction : limits.simulation
        if !reuse {
            needed.removeAll(keepingCapacity: true)
            needed.append(contentsOf: repeatElement(true, count: ins.count * m))
        }
        let heaviestFirst = outs.indices.sorted { outs[$0].weight > outs[$1].weight }
        let alone = sharing?.alone == true
        helper?.spins = alone ? Self.spinsAlone : 0
        let workers = helper != nil && ins.count * m * maxSettled >= (alone ? Self.splitWorkAlone : Self.splitWork) && ins.count > 1 ? 2 : 1
        if workers > 1 { splitContractions += 1 }
        // The searches follow the out-arcs; the verdicts also read the targets' in-arcs.
        self.positions.withUnsafeBufferPointer { positions in into.withView { incoming in out.withView { graph in
            searches.withUnsafeMutableBufferPointer { searches in
                needed.withUnsafeMutableBufferPointer { needed in
                    // Each worker takes the next in-neighbour not yet taken: its own search, its
                    // own verdict slots; the graph is only read until every worker is done.
                    let next = nextInNeighbour
                    next.reset()
                    nonisolated(unsafe) let (searches, needed, positions) = (searches, needed, positions)
                    let work: @Sendable (Int) -> Void = { w in
                        // The search is moved out to the worker's own stack while it runs:
                        // the two searches sit side by side, and writes to their fields from
                        // two cores would fight over one cache line.
                        var search = (searches.baseAddress! + w).move()
                        defer { (searches.baseAddress! + w).initialize(to: search) }
                        while true {
                            let i = next.take()
                            guard i < ins.count else { break }
                            let a = ins[i], u = Int(a.node), row = i * m
                            guard (0..<m).contains(where: { needed[row + $0] }) else { continue }
                            search.run(graph, from: u, skipping: v, targets: outs, heaviestFirst: heaviestFirst,
                                       wanted: { needed[row + $0] }, base: a.weight, maxSettled: maxSettled,
                                       incoming: incoming, positions: positions.isEmpty ? nil : positions)
                            // An in-arc u → v longer than a path from u through another
                            // in-neighbour (strictly, so no two arcs excuse each other) needs
                            // no shortcut: that neighbour's shortcuts or witnesses serve u too.
                            var dominated = false
                            for b in ins where Int(b.node) != u && plus(search.distance(Int(b.node)), b.weight) < a.weight {
                                dominated = true; break
                            }
                            for j in 0..<m where needed[row + j] {
                                let w = Int(outs[j].node)
                                needed[row + j] = w != u && !dominated
                                    && !search.witnesses(w, within: plus(a.weight, outs[j].weight), into: incoming, skipping: v)
                            }
                        }
                    }
                    if workers > 1, let helper { helper.run { work(1) }; work(0); helper.wait() } else { work(0) }
                }
            }
        } } }
        var added = 0
        for (i, a) in ins.enumerated() {
            for (j, b) in outs.enumerated() where needed[i * m + j] {
                added += 1
                if apply {
                    shortcutFirst.append(a.edge); shortcutSecond.append(b.edge)
                    addArc(from: Int(a.node), to: Int(b.node), weight: plus(a.weight, b.weight),
                           edge: shortcutBase + UInt32(shortcutFirst.count - 1))
                }
            }
        }
        return added
    }

    /// A node's priority, lowest contracted first: four times its edge difference
    /// (shortcuts its contraction adds less the arcs it removes), plus its contracted
    /// neighbours, plus its depth (one more than its deepest contracted neighbour's). Why a
    /// contracted neighbour counts as a quarter of an arc, not half as it did: that term
    /// spreads the contraction evenly over the map, and heavier it held back nodes cheap to
    /// contract, for more shortcuts and longer searches. Measured by importing the grids
    /// with both weights in alternation: at 1M nodes the distance metric contracted in
    /// 321–328 s against 354–384 s, each metric made fewer shortcuts (distance 10.43 M
    /// against 10.61 M, time 4.27 M against 4.56 M), and a time-metric route settles 222
    /// nodes against 279 (median of 1,000 pairs), every route at the same cost. Monaco's
    /// routes settle as many nodes and take as long. See docs/benchmarks.md, "Priorities
    /// reweighed".
    mutating func priority(_ v: Int) -> Int32 {
        let shortcuts = contract(v, apply: false)
        let removed = out.count(v) + into.count(v)
        return Int32(4 * (shortcuts - removed)) + deletedNeighbours[v] + depth[v]
    }

    mutating func run(progress: ((Double) -> Void)?) {
        var queue = MinHeap()
        let offset: Int32 = 1 << 30
        for v in 0..<n { queue.push(UInt32(priority(v) + offset), v) }
        var neighbours: [Int] = []
        var done = 0
        // Told at each whole percent, as soon as it is reached. Why not every `n / 100`
        // nodes: that step falls just short of each percent (979,902 of 999,943 nodes is
        // 97.995 %), so a bar read one percent behind all the way.
        var told = 0
        while let (p, v) = queue.pop() {
            guard !contracted[v] else { continue }
            // Lazy updates: contracting others may have made v worse than the next node.
            // (Updating every neighbour eagerly was measured: 7x slower, no fewer shortcuts.)
            let now = UInt32(priority(v) + offset)
            if now > p, let next = queue.peekKey, now > next {
                queue.push(now, v); continue
            }
            _ = contract(v, apply: true)
            contracted[v] = true
            done += 1
            if case let percent = done * 100 / n, percent > told { told = percent; progress?(Double(done) / Double(n)) }
            order.append(node[v])
            upward.keep(Int(node[v]), out.arcs, out.range(v), naming: node)
            downward.keep(Int(node[v]), into.arcs, into.range(v), naming: node)
            neighbours.removeAll(keepingCapacity: true)
            for k in out.range(v) {
                let x = Int(out.arcs[k].node)
                into.remove(v, from: x)
                neighbours.append(x)
            }
            for k in into.range(v) {
                let u = Int(into.arcs[k].node)
                out.remove(v, from: u)
                neighbours.append(u)
            }
            out.release(v); into.release(v)
            for x in neighbours {
                deletedNeighbours[x] += 1
                depth[x] = max(depth[x], depth[v] + 1)
            }
            let ids = contracted.count
            if (n - done) * 4 <= ids && ids >= compactionFloor { compact(queue: &queue) }
        }
    }

    /// Gives the remaining nodes the ids 0, 1, 2, … in their old order, in every working
    /// array and in `queue`. Call between contractions.
    mutating func compact(queue: inout MinHeap) {
        precondition(simulated == -1, "compacting between a simulation and its contraction")
        compactions += 1
        var renamed = [Int32](repeating: -1, count: contracted.count)
        var kept: [Int] = []
        for v in contracted.indices where !contracted[v] {
            renamed[v] = Int32(kept.count)
            kept.append(v)
        }
        func renumbered(_ lists: ArcLists) -> ArcLists {
            var fresh = ArcLists(degrees: kept.map { Int32(lists.count($0)) })
            for (i, v) in kept.enumerated() {
                for k in lists.range(v) {
                    var arc = lists.arcs[k]
                    arc.node = UInt32(renamed[Int(arc.node)])
                    fresh.append(arc, to: i)
                }
            }
            return fresh
        }
        out = renumbered(out); into = renumbered(into)
        node = kept.map { node[$0] }
        deletedNeighbours = kept.map { deletedNeighbours[$0] }
        depth = kept.map { depth[$0] }
        if !positions.isEmpty { positions = kept.map { positions[$0] } }
        contracted = .init(repeating: false, count: kept.count)
        searches = searches.map { _ in WitnessSearch(nodeCount: kept.count) }
        var fresh = MinHeap()
        while let (key, v) = queue.pop() {
            if renamed[v] >= 0 { fresh.push(key, Int(renamed[v])) }
        }
        queue = fresh
    }
}
