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
struct ContractionHierarchy: Sendable {
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

    var shortcutCount: Int { shortcutFirst.count }
    var memoryBytes: Int { (upFirst.count + downFirst.count + shortcutFirst.count * 2 + shortcutLengthDm.count) * 4 + (up.count + down.count) * 12 }

    init() {}

    init(upFirst: [UInt32], up: [HierarchyArc], downFirst: [UInt32], down: [HierarchyArc],
         shortcutFirst: [UInt32], shortcutSecond: [UInt32], originalEdgeCount: Int) {
        self.upFirst = upFirst; self.up = up; self.downFirst = downFirst; self.down = down
        self.shortcutFirst = shortcutFirst; self.shortcutSecond = shortcutSecond
        self.originalEdgeCount = originalEdgeCount
    }

    /// Contracts the graph given by its edges (tail[e] → head[e] at weight[e]), telling
    /// `progress` the share of nodes contracted so far (about a hundred times).
    init(nodeCount n: Int, tail: [UInt32], head: [UInt32], weight: [UInt32], progress: ((Double) -> Void)? = nil) {
        originalEdgeCount = head.count
        var c = Contractor(nodeCount: n)
        for e in head.indices where tail[e] != head[e] {
            c.addArc(from: Int(tail[e]), to: Int(head[e]), weight: weight[e], edge: UInt32(e))
        }
        c.shortcutBase = UInt32(head.count)
        c.run(progress: progress)
        // Each list is released as soon as it is copied, so the arcs are never held twice.
        func flatten(_ lists: inout [[HierarchyArc]]) -> ([UInt32], [HierarchyArc]) {
            var first: [UInt32] = [0], arcs: [HierarchyArc] = []
            first.reserveCapacity(lists.count + 1)
            arcs.reserveCapacity(lists.reduce(0) { $0 + $1.count })
            for v in lists.indices {
                arcs += lists[v]; lists[v] = []
                first.append(UInt32(arcs.count))
            }
            lists = []
            return (first, arcs)
        }
        (upFirst, up) = flatten(&c.upward)
        (downFirst, down) = flatten(&c.downward)
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

    /// The length in dm of a hierarchy arc's edge (original or shortcut).
    @inline(__always) func lengthDm(of edge: UInt32, original lengthDm: [UInt32]) -> UInt32 {
        let e = Int(edge)
        return e < originalEdgeCount ? lengthDm[e] : shortcutLengthDm[e - originalEdgeCount]
    }

    /// Appends the original edges a hierarchy edge stands for, in driving order.
    func unpack(_ edge: UInt32, into out: inout [UInt32], stack: inout [UInt32]) {
        stack.append(edge)
        while let e = stack.popLast() {
            if Int(e) < originalEdgeCount { out.append(e); continue }
            let k = Int(e) - originalEdgeCount
            stack.append(shortcutSecond[k]); stack.append(shortcutFirst[k])
        }
    }
}

/// The working state of contraction: adjacency lists of the remaining graph, the witness
/// search, and the upward arcs collected as nodes are contracted.
private struct Contractor {
    let n: Int
    var out: [[HierarchyArc]]
    var into: [[HierarchyArc]]
    var contracted: [Bool]
    var deletedNeighbours: [Int32]
    var depth: [Int32]
    var upward: [[HierarchyArc]]
    var downward: [[HierarchyArc]]
    var shortcutFirst: [UInt32] = []
    var shortcutSecond: [UInt32] = []
    var shortcutBase: UInt32 = 0
    // Witness search state (stamped so it is never cleared).
    var dist: [UInt32]
    var stamp: [UInt32]
    var target: [UInt32]
    var generation: UInt32 = 0
    var heap = MinHeap()

    init(nodeCount n: Int) {
        self.n = n
        out = .init(repeating: [], count: n); into = out; upward = out; downward = out
        contracted = .init(repeating: false, count: n)
        deletedNeighbours = .init(repeating: 0, count: n); depth = deletedNeighbours
        dist = .init(repeating: 0, count: n); stamp = dist; target = dist
    }

    /// Adds u → x, or lowers the weight of an existing u → x arc.
    mutating func addArc(from u: Int, to x: Int, weight: UInt32, edge: UInt32) {
        if let i = out[u].firstIndex(where: { Int($0.node) == x }) {
            guard weight < out[u][i].weight else { return }
            out[u][i].weight = weight; out[u][i].edge = edge
            let j = into[x].firstIndex(where: { Int($0.node) == u })!
            into[x][j].weight = weight; into[x][j].edge = edge
            return
        }
        out[u].append(HierarchyArc(node: UInt32(x), weight: weight, edge: edge))
        into[x].append(HierarchyArc(node: UInt32(u), weight: weight, edge: edge))
    }

    /// Dijkstra from `source` in the remaining graph without `skip`, stopped past `limit`,
    /// after `maxSettled` nodes, or once every target is settled. Afterwards `distance(x)`
    /// is an upper bound.
    mutating func witnessSearch(from source: Int, skipping skip: Int, targets: [HierarchyArc], limit: UInt32, maxSettled: Int) {
        generation &+= 1
        if generation == 0 { stamp = .init(repeating: 0, count: n); target = stamp; generation = 1 }
        heap.removeAll()
        var pending = 0
        for t in targets where target[Int(t.node)] != generation { target[Int(t.node)] = generation; pending += 1 }
        dist[source] = 0; stamp[source] = generation
        heap.push(0, source)
        var settled = 0
        while let (d, u) = heap.pop() {
            guard d == dist[u] else { continue }
            if d > limit || settled >= maxSettled { break }
            settled += 1
            if target[u] == generation {
                pending -= 1
                if pending == 0 { break }
            }
            for a in out[u] {
                let x = Int(a.node)
                guard x != skip else { continue }
                let nd = plus(d, a.weight)
                if stamp[x] != generation || nd < dist[x] {
                    stamp[x] = generation; dist[x] = nd
                    heap.push(nd, x)
                }
            }
        }
    }

    func distance(_ x: Int) -> UInt32 { stamp[x] == generation ? dist[x] : .max }

    /// Contracts v (when `apply`) or only counts the shortcuts contracting it would add.
    mutating func contract(_ v: Int, apply: Bool) -> Int {
        var added = 0
        let outs = out[v], ins = into[v]
        guard let maxOut = outs.map(\.weight).max() else { return 0 }
        for a in ins {
            let u = Int(a.node)
            witnessSearch(from: u, skipping: v, targets: outs, limit: plus(a.weight, maxOut), maxSettled: apply ? 400 : 60)
            for b in outs where Int(b.node) != u {
                let x = Int(b.node)
                let via = plus(a.weight, b.weight)
                guard distance(x) > via else { continue }
                added += 1
                if apply {
                    shortcutFirst.append(a.edge); shortcutSecond.append(b.edge)
                    addArc(from: u, to: x, weight: via, edge: shortcutBase + UInt32(shortcutFirst.count - 1))
                }
            }
        }
        return added
    }

    mutating func priority(_ v: Int) -> Int32 {
        let shortcuts = contract(v, apply: false)
        let removed = out[v].count + into[v].count
        return Int32(4 * (shortcuts - removed)) + 2 * deletedNeighbours[v] + depth[v]
    }

    mutating func run(progress: ((Double) -> Void)?) {
        var queue = MinHeap()
        let offset: Int32 = 1 << 30
        for v in 0..<n { queue.push(UInt32(priority(v) + offset), v) }
        var neighbours: [Int] = []
        var done = 0
        let step = max(1, n / 100)
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
            if done % step == 0 { progress?(Double(done) / Double(n)) }
            upward[v] = out[v]; downward[v] = into[v]
            neighbours.removeAll(keepingCapacity: true)
            for a in out[v] {
                let x = Int(a.node)
                into[x].removeAll { Int($0.node) == v }
                neighbours.append(x)
            }
            for a in into[v] {
                let u = Int(a.node)
                out[u].removeAll { Int($0.node) == v }
                neighbours.append(u)
            }
            out[v] = []; into[v] = []
            for x in neighbours {
                deletedNeighbours[x] += 1
                depth[x] = max(depth[x], depth[v] + 1)
            }
        }
    }
}
