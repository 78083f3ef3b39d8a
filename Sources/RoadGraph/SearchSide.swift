import CIntrinsics
import Essentials
import SpatialIndex

/// One direction of a search: per node its tentative cost and the edge and node it was
/// reached by, valid where its stamp equals the router's generation; and the queue.
///
/// Why one array of labels, not four arrays: a search reads and writes a node's four
/// fields together, so they share a cache line, and a write checks one array's uniqueness
/// instead of four (the checks were a twentieth of a map match's instructions).
struct SearchSide {
    /// A node's label: `dist` its cost, `edge` and `node` how it was reached (`edge` with
    /// `Router.seedBit` set for a seed: the seed's index), valid where `stamp` is current.
    struct Label: BitwiseCopyable {
        var dist: UInt32, edge: UInt32, node: UInt32, stamp: UInt32
    }

    var labels: [Label]
    var heap = MinHeap()

    /// Why on huge pages: a route on a metropolitan graph reads its labels at random
    /// (``HugePages``).
    init(nodeCount n: Int) {
        labels = .init(onHugePages: Label(dist: 0, edge: 0, node: 0, stamp: 0), count: n)
    }

    /// A side with no nodes: what a search leaves in the router while it holds the real one.
    static var empty: SearchSide { SearchSide(nodeCount: 0) }

    mutating func resetStamps() { for i in labels.indices { labels[i].stamp = 0 } }

    /// Whether cost d would be new or better for x: what `improve` checks before it records.
    @inline(__always) func improves(_ x: Int, to d: UInt32, gen: UInt32) -> Bool {
        let old = labels[x]
        return old.stamp != gen || d < old.dist
    }

    /// Records x at cost d (reached by `edge` from `u`) if that is new or better.
    @inline(__always) mutating func improve(_ x: Int, to d: UInt32, edge: UInt32, from u: Int, gen: UInt32) -> Bool {
        guard improves(x, to: d, gen: gen) else { return false }
        labels[x] = Label(dist: d, edge: edge, node: UInt32(u), stamp: gen)
        return true
    }

    /// Settles the next node of a hierarchy search along `arcs`, noting a better meeting
    /// with the other side. Stall-on-demand: a node reached more cheaply through a `stall`
    /// arc from a higher node this side has seen is not expanded, since its cost is not
    /// yet its distance. The queue's keys are costs plus `bound`, a lower bound on the
    /// rest of the way (zero for a plain search). Returns 1 when a node was settled, 0 for
    /// a stale queue entry.
    @inline(__always) mutating func settleNext(other: SearchSide, arcs first: [UInt32], _ arcs: [HierarchyArc],
                                               stall stallFirst: [UInt32], _ stallArcs: [HierarchyArc],
                                               bound: some CostBound,
                                               gen: UInt32, best: inout UInt32, meet: inout Int) -> Int {
        let (key, u) = heap.pop()!
        let d = labels[u].dist
        guard key == plus(d, bound(u)) else { return 0 }
        // The node likely settled next on this side: its arcs can be on their way from
        // memory while u's are read (a query high in a large hierarchy mostly waits for arcs).
        if let y = heap.peekNode {
            Self.prefetchArcs(of: y, first, arcs)
            Self.prefetchArcs(of: y, stallFirst, stallArcs)
        }
        if other.labels[u].stamp == gen, plus(d, other.labels[u].dist) < best { best = plus(d, other.labels[u].dist); meet = u }
        for k in Int(stallFirst[u])..<Int(stallFirst[u + 1]) {
            let a = stallArcs[k], x = Int(a.node)
            if labels[x].stamp == gen, plus(labels[x].dist, a.weight) < d { return 1 }
        }
        for k in Int(first[u])..<Int(first[u + 1]) {
            let a = arcs[k], x = Int(a.node), nd = plus(d, a.weight)
            guard improve(x, to: nd, edge: a.edge, from: u, gen: gen) else { continue }
            // A node whose key reaches the best route found is never settled (the search
            // stops first), so it is labelled (its label still stalls and meets) but not queued.
            let key = plus(nd, bound(x))
            if key < best { heap.push(key, x) }
        }
        return 1
    }
}

/// A lower bound on the rest of a search's way from a node: what orders a goal-directed
/// queue. Searches are generic over it, so a plain search (`NoBound`) pays nothing.
protocol CostBound {
    /// The bound for node (or rank) `v`.
    func callAsFunction(_ v: Int) -> UInt32
}

/// Zero everywhere: a plain search.
struct NoBound: CostBound {
    @inline(__always) func callAsFunction(_ v: Int) -> UInt32 { 0 }
}

extension SearchSide {
    /// Asks for the first cache lines of node y's arcs (up to 24 arcs, five to a line): the
    /// hardware carries a longer list on once it is under way. It made routes on the 1M grid
    /// a tenth faster and left Monaco's unchanged (docs/benchmarks.md, "A renumbered core,
    /// and arcs fetched ahead"). A prefetch never faults, and y < `first.count - 1`.
    @inline(__always) static func prefetchArcs(of y: Int, _ first: [UInt32], _ arcs: [HierarchyArc]) {
        let lo = Int(first[y]), hi = min(Int(first[y + 1]), lo + 24)
        arcs.withUnsafeBufferPointer { a in
            guard let base = a.baseAddress else { return }
            for k in stride(from: lo, to: hi, by: 5) { wayfare_prefetch(base + k) }
        }
    }
}

/// Saturating addition: costs never wrap around.
@inline(__always) func plus(_ a: UInt32, _ b: UInt32) -> UInt32 {
    let (s, o) = a.addingReportingOverflow(b)
    return o ? .max : s
}
