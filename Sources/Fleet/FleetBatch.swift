import CIntrinsics
import Foundation
import Geodesy
import SpatialIndex

/// One position report of a batch (see `Fleet.report(_:)`).
public struct CabReport: Hashable, Sendable {
    /// The cab that reported.
    public var cab: CabHandle
    /// Where it was.
    public var position: Coordinate
    /// When, on the cab's clock.
    public var time: Date

    /// A report of `cab` at `position` at `time`.
    public init(_ cab: CabHandle, position: Coordinate, at time: Date) {
        self.cab = cab
        self.position = position
        self.time = time
    }
}

/// What became of a batch of position reports.
public struct BatchReportOutcome: Equatable, Sendable {
    /// A report of the batch that was refused, and why.
    public struct Refusal: Equatable, Sendable {
        /// Its index in the batch.
        public var index: Int
        /// `FleetError.unknownCab` or `FleetError.reportFromTheFuture`, as the single report
        /// would have thrown.
        public var error: FleetError
    }

    /// Reports that moved their cab.
    public var applied = 0
    /// Reports older than their cab's last one: ignored, and counted in
    /// `Fleet.outOfOrderReports`.
    public var ignoredOutOfOrder = 0
    /// The reports refused, in the batch's order.
    public var refused: [Refusal] = []
}

extension Fleet {
    /// The most reports of a batch applied under one hold of the state lock. Why a bound:
    /// a publish waits for the lock, so a long batch would keep queries on data older than
    /// `publishInterval`; 512 reports hold it for well under a millisecond.
    static var reportsPerHold: Int { 512 }

    /// Records a batch of position reports, in order, as `report(_:position:at:)` would one
    /// by one, with the same outcome for each: a report older than its cab's last is ignored
    /// and counted, and an unknown cab or a time from the future is refused without stopping
    /// the others.
    ///
    /// For a feed that delivers reports in batches (a message queue, a simulator). Why it is
    /// faster than a loop of single reports: the clock is read and the lock taken once per
    /// 512 reports, and each report's cache misses (the cab's record, its place in the tree,
    /// its leaf) are asked for a few reports ahead, so that those of several reports overlap.
    /// A publish comes, when due, between two holds of the lock.
    @discardableResult
    public func report(_ batch: [CabReport]) -> BatchReportOutcome {
        var outcome = BatchReportOutcome()
        var start = 0
        while start < batch.count {
            let end = min(start + Self.reportsPerHold, batch.count)
            let now = clock.now()
            withUnsafeTemporaryAllocation(of: SpherePoint.self, capacity: end - start) { vectors in
                // Outside the lock, once for both replicas, as a single report does.
                for i in start..<end { vectors.initializeElement(at: i - start, to: SpherePoint(batch[i].position)) }
                state.withLock { s in
                    let writer = replicas.writerReplica
                    var applied = false
                    for i in start..<end {
                        Self.prefetchRecords(for: batch, after: i, end: end, &s, replicas: replicas)
                        Replicas.prefetchMoves(after: i, count: end, in: writer) { Int(batch[$0].cab.slot) }
                        let r = batch[i], c = Int(r.cab.slot)
                        switch apply(r.position, unitVector: vectors[i - start], at: r.time, toSlot: c, now: now, &s,
                                     unknown: { Self.name(ofSlot: c, in: $0) }) {
                        case .success(.applied): outcome.applied += 1; applied = true
                        case .success(.ignoredOutOfOrder): outcome.ignoredOutOfOrder += 1
                        case let .failure(error): outcome.refused.append(.init(index: i, error: error))
                        }
                    }
                    if applied { publishIfDue(&s, now: now.timeIntervalSinceReferenceDate) }
                }
                _ = vectors.deinitialize()
            }
            start = end
        }
        return outcome
    }

    /// The fleet's own records a report reads first (the cab's record and liveness, its
    /// pending move), asked for 8 reports ahead like the replica's records.
    @inline(__always)
    private static func prefetchRecords(for batch: [CabReport], after i: Int, end: Int, _ s: inout State,
                                        replicas: Replicas) {
        guard i + 8 < end else { return }
        let c = Int(batch[i + 8].cab.slot)
        guard c >= 0, c < s.cabs.count, c < s.live.count else { return }
        s.cabs.withUnsafeBufferPointer { wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + c)) }
        s.live.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + c) }
        replicas.prefetchPendingMove(of: c)
    }
}
