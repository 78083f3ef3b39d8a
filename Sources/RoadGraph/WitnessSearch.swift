import Dispatch
import Foundation
import SpatialIndex
import Synchronization

// The witness searches of contraction, and the helper thread that runs half of a dense
// node's searches (see `Contractor`).

/// A read-only view of `ArcLists` for the witness searches, shared by the workers while
/// no one writes to the lists.
struct ArcView: @unchecked Sendable {
    let arcs: UnsafeBufferPointer<HierarchyArc>
    let slots: UnsafeBufferPointer<ArcLists.Slot>
}

/// A thread that runs one task at a time for its owner, who waits for it: the second
/// worker of a contraction. Why not `DispatchQueue.concurrentPerform`: the two metrics
/// already contract inside one, and Dispatch runs an apply nested in another serially.
/// Why it sleeps rather than spins between tasks: with both metrics contracting at once,
/// four threads share two cores, and a spinning helper starves the thread it waits for.
///
/// `@unchecked Sendable`: `task` is written only by the owner while the thread waits, and
/// read by the thread only after it is posted. The semaphores make each side wait; the
/// counters' release and acquire order the memory in Swift's own terms, whatever a
/// semaphore does inside.
final class HelperThread: @unchecked Sendable {
    private let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    /// Tasks posted (-1: stop) and finished.
    private let posted = Atomic<Int>(0), finished = Atomic<Int>(0)
    private var task: (@Sendable () -> Void)?

    init() {
        // The thread holds the helper until `stop()`.
        let thread = Thread {
            while true {
                self.start.wait()
                guard self.posted.load(ordering: .acquiring) >= 0 else { return }
                self.task?()
                self.finished.add(1, ordering: .releasing)
                self.done.signal()
            }
        }
        thread.start()
    }

    /// Starts `work` on the thread; call `wait()` before starting another.
    func run(_ work: @escaping @Sendable () -> Void) {
        task = work
        posted.add(1, ordering: .releasing)
        start.signal()
    }

    /// Waits for the task started last.
    func wait() {
        done.wait()
        _ = finished.load(ordering: .acquiring)
        task = nil
    }

    /// Ends the thread; call when no task runs.
    func stop() {
        posted.store(-1, ordering: .releasing)
        start.signal()
    }
}

/// An atomic index the workers of a contraction share.
final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)
    /// Sets it (before the workers start: the hand-over orders it).
    func reset() { value.store(0, ordering: .relaxed) }
    /// Takes the next index.
    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

/// One witness search's state: a Dijkstra over the remaining graph, its labels stamped
/// with a generation so that they are never cleared. Each worker of a contraction owns one.
struct WitnessSearch {
    /// A node's label: its distance and the generation that set it, and the generation
    /// that made it a target; side by side, so that a relaxation touches one cache line.
    struct Label { var dist: UInt32 = 0, stamp: UInt32 = 0, target: UInt32 = 0 }
    var labels: [Label]
    var generation: UInt32 = 0
    var heap = MinHeap()

    init(nodeCount n: Int) { labels = .init(repeating: Label(), count: n) }

    /// Dijkstra from `source` over `graph` (each node's outgoing arcs) without `skip`,
    /// stopped after `maxSettled` nodes, once every target is settled, or past the limit:
    /// `base` plus the heaviest arc to a target still waited for. Afterwards `distance(x)`
    /// is an upper bound. Only the targets whose index `wanted` accepts are waited for;
    /// `heaviestFirst` lists the targets' indices by weight, heaviest first.
    ///
    /// Why the limit falls as targets are settled: a target is decided by whether its
    /// distance reaches `base` plus its own arc, so once the heaviest are settled the search
    /// need not go past the lighter ones' bound. A target still waiting at the stop has no
    /// path within its bound either way, and the labels below it (the ones the dominance
    /// rule reads, all under `base`) are the same as a search run to the first limit would
    /// leave: the hierarchy does not change.
    mutating func run(_ graph: ArcView, from source: Int, skipping skip: Int,
                      targets: [HierarchyArc], heaviestFirst: [Int], wanted: (Int) -> Bool, base: UInt32, maxSettled: Int) {
        generation &+= 1
        if generation == 0 { labels = .init(repeating: Label(), count: labels.count); generation = 1 }
        heap.removeAll()
        let g = generation
        labels.withUnsafeMutableBufferPointer { labels in
            var pending = 0
            for (j, t) in targets.enumerated() where labels[Int(t.node)].target != g && wanted(j) {
                labels[Int(t.node)].target = g; pending += 1
            }
            // The heaviest target still waited for, as an index into `heaviestFirst`.
            var heaviest = 0
            func limit() -> UInt32 {
                while heaviest < heaviestFirst.count, labels[Int(targets[heaviestFirst[heaviest]].node)].target != g { heaviest += 1 }
                return heaviest < heaviestFirst.count ? plus(base, targets[heaviestFirst[heaviest]].weight) : base
            }
            var bound = limit()
            labels[source].dist = 0; labels[source].stamp = g
            heap.push(0, source)
            var settled = 0
            while let (d, u) = heap.pop() {
                guard d == labels[u].dist else { continue }
                if d > bound || settled >= maxSettled { break }
                settled += 1
                if labels[u].target == g {
                    pending -= 1
                    if pending == 0 { break }
                    labels[u].target = 0
                    bound = limit()
                }
                let slot = graph.slots[u]
                for k in slot.first..<(slot.first + Int(slot.count)) {
                    let a = graph.arcs[k], x = Int(a.node)
                    guard x != skip else { continue }
                    let nd = plus(d, a.weight)
                    // A node past the limit would never be settled (the search stops first),
                    // and no verdict reads a distance past it.
                    guard nd <= bound else { continue }
                    if labels[x].stamp != g || nd < labels[x].dist {
                        labels[x].stamp = g; labels[x].dist = nd
                        heap.push(nd, x)
                    }
                }
            }
        }
    }

    func distance(_ x: Int) -> UInt32 { labels[x].stamp == generation ? labels[x].dist : .max }

    /// Whether the last search found a path to `target` of at most `bound` that avoids
    /// `skip`: to the target itself, or to one of its in-neighbours (`into`, each node's
    /// incoming arcs) followed by that neighbour's arc into it.
    ///
    /// Why the extra arc: in the dense core a witness is mostly a few arcs long, and the
    /// search would have to settle many nodes of tens of arcs each to reach it one arc
    /// further. Reading the target's own arcs instead costs one pass over them, so the
    /// searches can stop far sooner for the same verdicts (see `Contractor.contract`).
    /// Sound for any search, however early it stopped: every label is the length of a
    /// path that avoids `skip`.
    func witnesses(_ target: Int, within bound: UInt32, into: ArcView, skipping skip: Int) -> Bool {
        if distance(target) <= bound { return true }
        let slot = into.slots[target]
        for k in slot.first..<(slot.first + Int(slot.count)) {
            let a = into.arcs[k], y = Int(a.node)
            if y != skip && plus(distance(y), a.weight) <= bound { return true }
        }
        return false
    }
}
