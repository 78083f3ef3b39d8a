import CIntrinsics
import Foundation
import Geodesy
import SpatialIndex
import Synchronization

/// One searchable copy of the fleet: its R-tree, the cabs as the tree knows them, and each
/// cab's entry in this tree.
///
/// `@unchecked Sendable`: readers and the writer never touch the same replica at once; the
/// left–right protocol of `Replicas` guarantees it.
///
/// `@exclusivity(unchecked)`: the protocol already keeps every access exclusive, and the
/// runtime's per-access bookkeeping cost 7 % of the writer's time.
final class Replica: @unchecked Sendable {
    /// The writer's tree, in memory of its own behind addressors, so that a change reaches
    /// it in place. Readers never touch it: they search `withPublishedTree(_:)`.
    var tree: RTree<Int32> {
        unsafeAddress { UnsafePointer(treeCell) }
        unsafeMutableAddress { treeCell }
    }
    private let treeCell: UnsafeMutablePointer<RTree<Int32>> = {
        let cell = UnsafeMutablePointer<RTree<Int32>>.allocate(capacity: 1)
        cell.initialize(to: RTree())
        return cell
    }()
    @exclusivity(unchecked) var cabs: [Cab] = []
    @exclusivity(unchecked) var entryOfCab: [Int32] = []

    // MARK: The tree readers search

    /// The tree as it was when this replica was published, for readers; the empty tree while
    /// the writer has the replica. Owned here (retained once per publish, released when the
    /// writer takes the replica back).
    ///
    /// Why a copy in an object of its own: a copy shares the tree's arrays, and a `let` in a
    /// class is something every reader may borrow where it lies at once, with no copy (a
    /// copy retains and releases every array of the tree, per query) and no write. Reading
    /// `tree` itself would copy it (the compiler cannot prove the writer leaves it alone for
    /// the call), and passing it `inout` to avoid that made each reader a writer of it in
    /// the language's eyes and in ThreadSanitizer's, which reported two readers at once as
    /// a race. Why `Unmanaged`: a strong reference would be retained and released by every
    /// query, and every reader would write the same reference count.
    private var published = Unmanaged.passRetained(PublishedTree.empty)

    /// Runs `body` on the tree published with this replica. Only for readers inside
    /// `Replicas.read(_:)`, where the left–right protocol keeps the writer away from it.
    @inline(__always) func withPublishedTree<R>(_ body: (RTree<Int32>) -> R) -> R {
        published._withUnsafeGuaranteedRef { body($0.tree) }
    }

    /// Makes the writer's tree the one readers of this replica see: at a publish, before
    /// the readers are sent here.
    func publishTree() { replacePublished(with: PublishedTree(tree)) }

    /// Drops the readers' copy once no reader is left in this replica, so that the tree's
    /// arrays are the writer's alone again and its changes stay in place (a shared array is
    /// copied whole on its first write: about 100 MB at 1M cabs).
    func withdrawTree() { replacePublished(with: .empty) }

    private func replacePublished(with next: PublishedTree) {
        let previous = published
        published = Unmanaged.passRetained(next)
        previous.release()
    }

    // MARK: Prefetching a run of moves

    /// A move reads the cab's record and entry id here, then the entry's place in the tree,
    /// then its leaf: three cache misses, each waiting for the one before. For a run of moves
    /// known in advance (a publish's replay, a batch of reports) `prefetchMove(_:stage:)` asks
    /// for them in three stages a few moves apart, so that the misses of several moves
    /// overlap. Only hints: a slot out of range is skipped, and nothing is written.
    enum PrefetchStage { case record, place, leaf }

    /// One stage of the prefetch for a move of slot `c`: `.record` furthest ahead, `.place`
    /// once the record has arrived, `.leaf` once the place has.
    @inline(__always) func prefetchMove(_ c: Int, stage: PrefetchStage) {
        guard c >= 0, c < entryOfCab.count, c < cabs.count else { return }
        switch stage {
        case .record:
            cabs.withUnsafeBufferPointer { wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + c)) }
            entryOfCab.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + c) }
        case .place:
            let e = entryOfCab[c]
            if e >= 0 { Self.prefetchPlace(of: EntryID(rawValue: e), in: &tree) }
        case .leaf:
            let e = entryOfCab[c]
            if e >= 0 { Self.prefetchLeaf(of: EntryID(rawValue: e), in: &tree) }
        }
    }

    /// `inout`: a call on the addressed property itself could copy the tree first (see
    /// `published`). Only the writer prefetches, and only in its own replica.
    private static func prefetchPlace(of e: EntryID, in tree: inout RTree<Int32>) { tree.prefetchPlace(of: e) }
    private static func prefetchLeaf(of e: EntryID, in tree: inout RTree<Int32>) { tree.prefetchLeaf(of: e) }

    deinit {
        published.release()
        treeCell.deinitialize(count: 1)
        treeCell.deallocate()
    }
}

/// A replica's tree as published to readers (see `Replica.withPublishedTree(_:)`).
///
/// `Sendable`: final and immutable; the tree is a value.
final class PublishedTree: Sendable {
    let tree: RTree<Int32>
    init(_ tree: RTree<Int32>) { self.tree = tree }
    static let empty = PublishedTree(RTree())
}

/// A change to the fleet, kept in a log between two publishes so that the replica the
/// readers left can be brought up to date.
enum FleetChange {
    /// Slots registered (appended in order); those with a position are placed in the tree.
    case register(Range<Int>)
    /// `unitVector` is `SpherePoint(position)`, computed once for both replicas.
    case move(slot: Int32, position: Coordinate, unitVector: SpherePoint, stamp: Int64, time: Date)
    case status(slot: Int32, status: CabStatus)
    case remove(slot: Int32)

    /// The slot a move moves (nil for the other changes).
    var movedSlot: Int? {
        if case let .move(slot, _, _, _, _) = self { Int(slot) } else { nil }
    }
}

/// Two replicas and the left–right protocol between them (after Ramalhete and Correia's
/// Left-Right): readers search one replica without a lock while the writer changes the
/// other; a publish swaps them and waits until no reader is still in the old one, and the
/// next change (or publish) first replays into it the changes made before the publish.
///
/// Why: a snapshot that shares the writer's copy-on-write arrays makes the first write after
/// each publish copy the whole tree (about 100 MB at 1M cabs). Here a publish costs work in
/// proportion to what changed, at the price of a second tree in memory and each change
/// applied twice. Moves of one cab between two publishes are coalesced: the log keeps the
/// last.
///
/// `@unchecked Sendable`: the replicas are shared through the protocol above; the log is
/// touched only under the fleet's state lock.
final class Replicas: @unchecked Sendable {
    let left = Replica(), right = Replica()
    /// 0: readers read `left`; 1: `right`.
    let readSide = Atomic<Int>(0)
    /// Which of the two reader counters new readers announce themselves in.
    let versionIndex = Atomic<Int>(0)
    /// The reader counters, each on a cache line of its own: every search writes one, and
    /// sharing a line with what the writer reads would make each side miss on every call.
    let counter0 = PaddedCounter(), counter1 = PaddedCounter()
    /// The side the writer changes (the other one), kept apart from `readSide` so that a
    /// change does not read a line the readers use.
    var writerSide = 1
    /// The bit pattern of the published replica's time (seconds since 2001, fleet clock).
    let publishedAt = Atomic<UInt64>((-Double.infinity).bitPattern)
    let tagOf: @Sendable (Cab) -> UInt32

    // Writer side: touched only under the fleet's state lock.
    @exclusivity(unchecked) var log: [FleetChange] = []
    /// Per slot: the log index of its last move since the publish, or -1.
    @exclusivity(unchecked) var pendingMove: [Int32] = []
    /// Whether the writer's replica still lacks the changes in the log. A publish swaps the
    /// replicas and waits for the readers, and leaves the replay to the next change (or
    /// publish). Why: a query that finds the published replica due publishes itself, and a
    /// replay is work in proportion to the changes since the last publish (on a slow day,
    /// 20–30 ms for the 40,000 moves of 50 ms at 100k cabs). The writer should pay that,
    /// not a query (see `docs/benchmarks.md`, "A reader that never waits for the writer").
    @exclusivity(unchecked) var replayPending = false

    init(tagOf: @escaping @Sendable (Cab) -> UInt32) { self.tagOf = tagOf }

    // MARK: Reading

    /// Runs `body` on the replica readers see now; the writer does not change it meanwhile.
    @inline(__always)
    func read<R>(_ body: (Replica) -> R) -> R {
        if versionIndex.load(ordering: .sequentiallyConsistent) == 0 {
            counter0.value.wrappingAdd(1, ordering: .sequentiallyConsistent)
            defer { counter0.value.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
            return body(readSide.load(ordering: .sequentiallyConsistent) == 0 ? left : right)
        } else {
            counter1.value.wrappingAdd(1, ordering: .sequentiallyConsistent)
            defer { counter1.value.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
            return body(readSide.load(ordering: .sequentiallyConsistent) == 0 ? left : right)
        }
    }

    /// When the replica readers see was published.
    var publishedTime: TimeInterval { Double(bitPattern: publishedAt.load(ordering: .sequentiallyConsistent)) }

    // MARK: Writing (under the fleet's state lock)

    /// Applies a change to the writer's replica now and logs it for the other. `cabs` are
    /// the fleet's own records (a registration reads its slots there, and so does the replay
    /// a publish left pending).
    func apply(_ change: FleetChange, cabs: [Cab]) {
        if replayPending { replay(cabs: cabs) }
        // The writer's replica (readers are not in it), named by a stored `let` rather than
        // a computed property, which retained and released it on every report.
        if writerSide == 1 { apply(change, to: right, cabs: cabs) } else { apply(change, to: left, cabs: cabs) }
        switch change {
        case let .move(slot, _, _, _, _):
            let s = Int(slot)
            if s >= pendingMove.count { pendingMove.append(contentsOf: repeatElement(-1, count: s + 1 - pendingMove.count)) }
            if pendingMove[s] >= 0 {
                log[Int(pendingMove[s])] = change   // only the cab's last move matters to the other replica
            } else {
                pendingMove[s] = Int32(log.count)
                log.append(change)
            }
        case let .status(slot, _), let .remove(slot):
            // A later move must come after this change in the log.
            if Int(slot) < pendingMove.count { pendingMove[Int(slot)] = -1 }
            log.append(change)
        case .register:
            log.append(change)
        }
    }

    /// Makes the writer's replica the one readers see and waits until no reader is left in
    /// the other; the next change replays the log into that one (`replayPending`). `cabs`
    /// are the fleet's records now.
    func publish(at now: TimeInterval, cabs: [Cab]) {
        // Two publishes with no change between: the writer's replica must catch up before
        // the readers are sent to it.
        if replayPending { replay(cabs: cabs) }
        let newSide = writerSide
        writerReplica.publishTree()
        publishedAt.store(now.bitPattern, ordering: .sequentiallyConsistent)
        readSide.store(newSide, ordering: .sequentiallyConsistent)
        writerSide = 1 - newSide
        // Readers that began before the swap may be in the old replica, counted in either
        // counter: send new readers to the other counter, wait for each to drain in turn.
        let previous = versionIndex.load(ordering: .sequentiallyConsistent)
        waitUntilNoReaders(in: 1 - previous)
        versionIndex.store(1 - previous, ordering: .sequentiallyConsistent)
        waitUntilNoReaders(in: previous)
        writerReplica.withdrawTree()
        replayPending = true
    }

    /// Brings the writer's replica up to date with the log, the changes the readers' replica
    /// has and it lacks.
    private func replay(cabs: [Cab]) {
        let old = writerReplica
        let count = log.count
        for i in 0..<count {
            Self.prefetchMoves(after: i, count: count, in: old) { log[$0].movedSlot }
            let change = log[i]
            apply(change, to: old, cabs: cabs)
            // Clear the moves' marks from the log itself: a scan of every slot would cost a
            // publish in proportion to the fleet, not to what changed.
            if case let .move(slot, _, _, _, _) = change { pendingMove[Int(slot)] = -1 }
        }
        log.removeAll(keepingCapacity: true)
        replayPending = false
    }

    /// The replica reports change now (the one readers are not in). Under the state lock,
    /// and only until the next publish.
    var writerReplica: Replica { writerSide == 1 ? right : left }

    /// Asks for slot `c`'s entry in `pendingMove`, which logging its move reads and writes.
    @inline(__always) func prefetchPendingMove(of c: Int) {
        guard c >= 0, c < pendingMove.count else { return }
        pendingMove.withUnsafeBufferPointer { wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + c)) }
    }

    /// Prefetches for the moves after the `i`th of a run of `count` changes, whose slots
    /// `slotAt` gives (nil for a change that is not a move): the records 8 moves ahead,
    /// the tree places 4 ahead and the leaves 2 ahead. Why these distances: each stage must
    /// arrive before the next reads it, and a move takes a few hundred nanoseconds, about
    /// two memory latencies.
    @inline(__always)
    static func prefetchMoves(after i: Int, count: Int, in r: Replica, slotAt: (Int) -> Int?) {
        if i + 8 < count, let c = slotAt(i + 8) { r.prefetchMove(c, stage: .record) }
        if i + 4 < count, let c = slotAt(i + 4) { r.prefetchMove(c, stage: .place) }
        if i + 2 < count, let c = slotAt(i + 2) { r.prefetchMove(c, stage: .leaf) }
    }

    /// Renews the published time when nothing changed: the replica is still the whole truth.
    func renew(at now: TimeInterval) { publishedAt.store(now.bitPattern, ordering: .sequentiallyConsistent) }

    private func waitUntilNoReaders(in counter: Int) {
        var spins = 0
        while (counter == 0 ? counter0.value.load(ordering: .sequentiallyConsistent) : counter1.value.load(ordering: .sequentiallyConsistent)) != 0 {
            spins += 1
            if spins > 64 { sched_yield() }   // a reader was descheduled mid-search
        }
    }

    private func apply(_ change: FleetChange, to r: Replica, cabs: [Cab]) {
        switch change {
        case let .register(slots):
            // Registered slots take the fleet's records as they are now: a later change to
            // them is also in the log, after this one, so replaying it again is harmless.
            let empty = r.tree.count == 0
            for s in slots {
                r.cabs.append(cabs[s]); r.entryOfCab.append(-1)
            }
            let placed = slots.filter { r.cabs[$0].position != nil && r.cabs[$0].lastReport != nil }
            if empty, placed.count > 1,
               let tree = try? RTree(coordinates: placed.map { r.cabs[$0].position! }, tags: placed.map { tagOf(r.cabs[$0]) },
                                     stamps: placed.map { Fleet.stamp(r.cabs[$0].lastReport!) }, payloads: placed.map(Int32.init)) {
                r.tree = tree   // a bulk-loaded tree's entry ids are the input positions
                for (entry, c) in placed.enumerated() { r.entryOfCab[c] = Int32(entry) }
            } else {
                for c in placed {
                    r.entryOfCab[c] = r.tree.insert(r.cabs[c].position!, tag: tagOf(r.cabs[c]), stamp: Fleet.stamp(r.cabs[c].lastReport!),
                                                    payload: Int32(c)).rawValue
                }
            }
        case let .move(slot, position, unitVector, stamp, time):
            let c = Int(slot)
            r.cabs[c].position = position; r.cabs[c].lastReport = time
            if r.entryOfCab[c] < 0 {
                r.entryOfCab[c] = r.tree.insert(position, tag: tagOf(r.cabs[c]), stamp: stamp, payload: slot).rawValue
            } else {
                // A live entry always exists here; a failure would be a bug in this type.
                _ = try? r.tree.move(EntryID(rawValue: r.entryOfCab[c]), to: position, unitVector: unitVector, stamp: stamp)
            }
        case let .status(slot, status):
            let c = Int(slot)
            r.cabs[c].status = status
            if r.entryOfCab[c] >= 0 { try? r.tree.setTag(EntryID(rawValue: r.entryOfCab[c]), to: tagOf(r.cabs[c])) }
        case let .remove(slot):
            let c = Int(slot)
            if r.entryOfCab[c] >= 0 { r.tree.remove(EntryID(rawValue: r.entryOfCab[c])) }
            r.entryOfCab[c] = -1
        }
    }
}

/// An atomic counter alone on its cache line (64 bytes of padding either side).
final class PaddedCounter: Sendable {
    private let before: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    let value = Atomic<Int>(0)
    private let after: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
