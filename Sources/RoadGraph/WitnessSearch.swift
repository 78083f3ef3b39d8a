import Dispatch
import Foundation
import SpatialIndex
import Synchronization
import CIntrinsics

// The witness searches of contraction and their limits, the helper thread that runs half
// of a dense node's searches, and what tells a contraction it has the cores to itself (see
// `Contractor`).

/// How many nodes a witness search settles at most: to rank a node (its simulation) and to
/// contract it. Each verdict also accepts a path that ends with one arc into the target from
/// a node the search reached (`WitnessSearch.witnesses`), so even short searches find the
/// few-arc witnesses of a dense core.
struct WitnessLimits: Sendable {
    /// Settled nodes at most, in a search that ranks a node and in one that contracts it.
    var simulation: Int, contraction: Int

    /// For a metric whose top is sparse (travel time, with its avenues and expressways):
    /// searches long enough to rank the order well, which the ETAs' climbs from many cabs
    /// feel. On the 1M grid the time metric contracts within the distance metric's time
    /// either way.
    static let thorough = WitnessLimits(simulation: 60, contraction: 400)
    /// For a metric with a large dense core (distance, where every street is alike): the
    /// core's searches are the import's time, and with the last arc into the target these
    /// lose little. The 1M grid's distance metric: 87 s against 220 s with `thorough` and
    /// without that arc, 10.13 M shortcuts against 10.43 M, routes as fast
    /// (docs/benchmarks.md, "A witness's last arc").
    static let quick = WitnessLimits(simulation: 15, contraction: 150)

    /// The limits a metric is contracted with.
    static func `for`(_ metric: Metric) -> WitnessLimits { metric == .time ? .thorough : .quick }
}

/// A read-only view of `ArcLists` for the witness searches, shared by the workers while
/// no one writes to the lists.
struct ArcView: @unchecked Sendable {
    let arcs: UnsafeBufferPointer<HierarchyArc>
    let slots: UnsafeBufferPointer<ArcLists.Slot>
}

/// A thread that runs one task at a time for its owner, who waits for it: the second
/// worker of a contraction. Why not `DispatchQueue.concurrentPerform`: the two metrics
/// already contract inside one, and Dispatch runs an apply nested in another serially.
///
/// Each side can spin a while before it sleeps (`spins`): the helper for its next task,
/// the owner for the task's end. The owner turns it on only while its contraction has the
/// cores to itself (`CoreSharing`). Why: waking a thread asleep on a semaphore takes about
/// as long as a middling node's searches, so asleep only the densest nodes paid for the
/// split; but while both metrics contract, four threads share two cores, and a spinning
/// thread takes the core from the one it waits for.
///
/// `@unchecked Sendable`: `task` is written only by the owner while the thread waits, and
/// read by the thread only after it is posted. Each side moves its counter with release
/// order and then signals its semaphore; the other side acquires the counter before it
/// reads what was written (in Swift's own terms, whatever a semaphore does inside), and
/// every signal is taken by one wait. Why the counter before the signal: a side woken
/// before the counter moved would spin on a partner the scheduler had just taken off the
/// core to run it.
final class HelperThread: @unchecked Sendable {
    private let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    /// Tasks posted (-1: stop) and finished.
    private let posted = Atomic<Int>(0), finished = Atomic<Int>(0)
    /// How many times each side checks a counter before it sleeps (0: it sleeps at once).
    /// About 30 ns each on x86 (`pause`, with a `sched_yield` every 64), so 20,000 is
    /// about 0.6 ms.
    private let spinLimit = Atomic<Int>(0)
    private var task: (@Sendable () -> Void)?
    /// Tasks the owner has posted (the owner's own count).
    private var issued = 0

    init() {
        // The thread holds the helper until `stop()`.
        let thread = Thread {
            var taken = 0
            while true {
                Self.await(self.posted, beyond: taken, on: self.start, spins: self.spinLimit.load(ordering: .relaxed))
                let now = self.posted.load(ordering: .acquiring)
                guard now >= 0 else { return }
                taken = now
                self.task?()
                self.finished.add(1, ordering: .releasing)
                self.done.signal()
            }
        }
        thread.start()
    }

    /// How many times each side checks before it sleeps; set by the owner between tasks.
    var spins: Int {
        get { spinLimit.load(ordering: .relaxed) }
        set { spinLimit.store(newValue, ordering: .relaxed) }
    }

    /// Waits until `counter` is no longer `value` (or is negative: stopped), checking up to
    /// `spins` times before it sleeps, then takes `semaphore`'s signal, which the other side
    /// gives right after it moves the counter.
    private static func await(_ counter: borrowing Atomic<Int>, beyond value: Int, on semaphore: DispatchSemaphore, spins: Int) {
        var spin = 0
        while spin < spins, counter.load(ordering: .relaxed) == value {
            // Now and then the core is offered to another thread: when threads outnumber
            // the cores (other work on the machine), the partner may be waiting for this one.
            if spin & 63 == 63 { sched_yield() } else { wayfare_spin_hint() }
            spin += 1
        }
        semaphore.wait()
        // The signal follows the move, so this is at once; the load orders the memory.
        while counter.load(ordering: .acquiring) == value { wayfare_spin_hint() }
    }

    /// Starts `work` on the thread; call `wait()` before starting another.
    func run(_ work: @escaping @Sendable () -> Void) {
        task = work
        issued += 1
        posted.store(issued, ordering: .releasing)
        start.signal()
    }

    /// Waits for the task started last.
    func wait() {
        Self.await(finished, beyond: issued - 1, on: done, spins: spins)
        task = nil
    }

    /// Ends the thread; call when no task runs.
    func stop() {
        posted.store(-1, ordering: .releasing)
        start.signal()
    }
}

/// How many of the import's jobs are still running (contractions and landmarks), so that a
/// contraction knows when it has the cores to itself (`HelperThread.spins`).
///
/// `Sendable`: one atomic counter.
final class CoreSharing: Sendable {
    private let running: Atomic<Int>
    /// `jobs` jobs, none finished yet.
    init(jobs: Int) { running = Atomic(jobs) }
    /// Says that one job has finished.
    func finish() { running.subtract(1, ordering: .relaxed) }
    /// Whether at most one job is still running (the caller's).
    var alone: Bool { running.load(ordering: .relaxed) <= 1 }
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
    /// The targets still waited for, as indices into the targets: the ones `useful` reads.
    var open: [Int] = []
    /// How many nodes the last search settled (for the tests).
    private(set) var lastSettled = 0

    init(nodeCount n: Int) { labels = .init(repeating: Label(), count: n) }

    /// Dijkstra from `source` over `graph` (each node's outgoing arcs) without `skip`,
    /// stopped after `maxSettled` nodes, once every target is decided, or past the limit:
    /// `base` plus the heaviest arc to a target still waited for. Afterwards `distance(x)`
    /// is an upper bound, the length of a real path that avoids `skip`. Only the targets
    /// whose index `wanted` accepts are waited for; `heaviestFirst` lists the targets'
    /// indices by weight, heaviest first.
    ///
    /// Why the limit falls as targets are settled: a target is decided by whether its
    /// distance reaches `base` plus its own arc, so once the heaviest are settled the search
    /// need not go past the lighter ones' bound.
    ///
    /// With `incoming` (each node's incoming arcs), a target is decided as soon as the
    /// source is settled if its label, or one of its in-neighbours' plus that neighbour's
    /// arc, is within its bound (`witnesses(_:within:into:skipping:)`): in a dense core most
    /// are, and the search stops at once. With `positions` (see
    /// `ContractionHierarchy.lowerBoundPositions`) it settles no node from which the
    /// straight line to every target still waited for, and to `skip`, is beyond their
    /// bounds: no path through such a node could be a witness, or a path the dominance
    /// rule reads (one to an in-neighbour of `skip`, under `base`), since no path is
    /// shorter than its straight line. Neither changes a verdict a search without a limit
    /// on its settled nodes would give; with the limit, they leave it for nodes that can
    /// still matter.
    mutating func run(_ graph: ArcView, from source: Int, skipping skip: Int,
                      targets: [HierarchyArc], heaviestFirst: [Int], wanted: (Int) -> Bool, base: UInt32, maxSettled: Int,
                      incoming: ArcView? = nil, positions: UnsafeBufferPointer<SIMD2<Float>>? = nil) {
        generation &+= 1
        if generation == 0 { labels = .init(repeating: Label(), count: labels.count); generation = 1 }
        heap.removeAll()
        open.removeAll(keepingCapacity: true)
        let g = generation
        var settled = 0
        defer { lastSettled = settled }
        labels.withUnsafeMutableBufferPointer { labels in
            var pending = 0
            for (j, t) in targets.enumerated() where labels[Int(t.node)].target != g && wanted(j) {
                labels[Int(t.node)].target = g; pending += 1
                open.append(j)
            }
            // The heaviest target still waited for, as an index into `heaviestFirst`.
            var heaviest = 0
            func limit() -> UInt32 {
                while heaviest < heaviestFirst.count, labels[Int(targets[heaviestFirst[heaviest]].node)].target != g { heaviest += 1 }
                return heaviest < heaviestFirst.count ? plus(base, targets[heaviestFirst[heaviest]].weight) : base
            }
            // Whether a path to x of length d could go on, within its bound, to `skip` or to
            // a target still waited for. Targets decided are dropped from `open` on the way.
            func useful(_ x: Int, at d: UInt32, _ positions: UnsafeBufferPointer<SIMD2<Float>>) -> Bool {
                let p = positions[x]
                func within(_ q: SIMD2<Float>, _ bound: UInt32) -> Bool {
                    let room = Float(bound) - Float(d), e = p - q
                    return room >= 0 && (e * e).sum() <= room * room
                }
                if within(positions[skip], base) { return true }
                var i = 0
                while i < open.count {
                    let t = targets[open[i]]
                    if labels[Int(t.node)].target != g { open.swapAt(i, open.count - 1); open.removeLast(); continue }
                    if within(positions[Int(t.node)], plus(base, t.weight)) { return true }
                    i += 1
                }
                return false
            }
            var bound = limit()
            labels[source].dist = 0; labels[source].stamp = g
            heap.push(0, source)
            while let (d, u) = heap.pop() {
                guard d == labels[u].dist else { continue }
                if d > bound || settled >= maxSettled { break }
                if u != source, let positions, !useful(u, at: d, positions) { continue }
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
                // The source's arcs are labelled: decide what they and one arc more reach.
                if u == source, let incoming {
                    for t in targets where labels[Int(t.node)].target == g
                        && Self.reaches(Int(t.node), within: plus(base, t.weight), into: incoming, skipping: skip,
                                        labels: UnsafeBufferPointer(labels), generation: g) {
                        labels[Int(t.node)].target = 0; pending -= 1
                    }
                    if pending == 0 { break }
                    bound = limit()
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
        labels.withUnsafeBufferPointer {
            Self.reaches(target, within: bound, into: into, skipping: skip, labels: $0, generation: generation)
        }
    }

    /// The rule of `witnesses(_:within:into:skipping:)` on labels of generation `g`: the one
    /// definition, which the search also applies as soon as its source is settled. Only a
    /// node labelled in this generation counts, so a bound that saturates at `UInt32.max`
    /// (costs summed past 32 bits in a crafted graph) accepts no unreached node.
    @inline(__always)
    static func reaches(_ target: Int, within bound: UInt32, into: ArcView, skipping skip: Int,
                        labels: UnsafeBufferPointer<Label>, generation g: UInt32) -> Bool {
        if labels[target].stamp == g && labels[target].dist <= bound { return true }
        let slot = into.slots[target]
        for k in slot.first..<(slot.first + Int(slot.count)) {
            let a = into.arcs[k], y = Int(a.node)
            if y != skip && labels[y].stamp == g && plus(labels[y].dist, a.weight) <= bound { return true }
        }
        return false
    }
}
