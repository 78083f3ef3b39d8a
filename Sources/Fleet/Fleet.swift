import Essentials
import Foundation
import Geodesy
import SpatialIndex
import Zones

/// A kind of cab. A city configures its own; the specification's are the defaults.
public struct CabType: Hashable, Sendable, CustomStringConvertible {
    /// The type's name, as the fare chart and the passenger see it.
    public let name: String
    /// A cab type by name; two types with the same name are the same type.
    public init(_ name: String) { self.name = name }
    /// The specification's smallest cab.
    public static let tataNano = CabType("Tata Nano")
    /// A hatchback.
    public static let hatchback = CabType("Hatchback")
    /// A sedan.
    public static let sedan = CabType("Sedan")
    /// The type's name.
    public var description: String { name }
}

/// A cab's status. `unattended` means no driver is in it.
public enum CabStatus: Int, CaseIterable, Sendable {
    /// Free: can be offered a job.
    case available
    /// On a job.
    case busy
    /// Not reachable: logged out or not answering.
    case unattended
}

/// A cab as the fleet knows it.
public struct Cab: Hashable, Sendable {
    /// The cab's identifier, unique in the fleet.
    public let id: String
    /// The cab's type.
    public let type: CabType
    /// Whether the cab can be offered a job.
    public var status: CabStatus
    /// The last reported position and its time, nil before the first report.
    public var position: Coordinate?
    /// The time of its last position report, or nil before the first.
    public var lastReport: Date?

    /// A cab, for `Fleet.register(_:)`: with a position and its report time (both or
    /// neither) when the cab is already on the road.
    public init(id: String, type: CabType, status: CabStatus = .unattended, position: Coordinate? = nil, lastReport: Date? = nil) {
        self.id = id; self.type = type; self.status = status; self.position = position; self.lastReport = lastReport
    }
}

/// A registered cab's place in its fleet: reporting through a handle skips looking the id
/// up, for gateways that stream many reports. A handle stays valid until the cab is
/// unregistered; after that, using it is `FleetError.unknownCab`.
public struct CabHandle: Hashable, Sendable {
    let slot: Int32
}

/// A cab found by a search, with its great-circle distance in metres.
public struct CabMatch: Hashable, Sendable {
    /// The cab as the searched snapshot knew it.
    public let cab: Cab
    /// Great-circle metres from the searched point.
    public let distance: Double
}

/// A cab found by a handle search: its handle and its great-circle distance in metres.
/// Its record is fetched on demand (`Fleet.cab(_:)`): a dispatcher that ranks ten cabs and
/// offers the job to the first that accepts reads one record, not ten.
public struct NearbyCab: Hashable, Sendable {
    /// The cab's handle.
    public let handle: CabHandle
    /// Great-circle metres from the searched point.
    public let distance: Double
}

/// Why the fleet refused a call.
public enum FleetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No registered cab has this id.
    case unknownCab(String)
    /// A cab with this id is already registered.
    case duplicateCab(String)
    /// The type is not one of the fleet's configured types.
    case unknownCabType(String)
    /// A report's coordinate is not on the globe.
    case invalidPosition(cab: String, reason: String)
    /// More cab types than the index's tag bits can hold.
    case tooManyCabTypes(Int)
    /// A report stamped later than the fleet's clock plus `Configuration.allowedSkew`: a
    /// device clock from the future would otherwise keep the cab fresh for ever.
    case reportFromTheFuture(cab: String, reported: Date, now: Date)
    /// A registered cab has a position without its report time, or the other way round.
    case positionWithoutTime(cab: String)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .unknownCab(id): "unknown cab \"\(id)\""
        case let .duplicateCab(id): "cab \"\(id)\" is already registered"
        case let .unknownCabType(name): "cab type \"\(name)\" is not configured for this city"
        case let .invalidPosition(id, reason): "cab \"\(id)\": \(reason)"
        case let .tooManyCabTypes(n): "a city configures at most 16 cab types, not \(n)"
        case let .reportFromTheFuture(id, reported, now):
            "cab \"\(id)\": report time \(reported.timeIntervalSince1970) is \(Int((reported.timeIntervalSince(now)).rounded())) s after now"
        case let .positionWithoutTime(id): "cab \"\(id)\": a position needs its report time, and a report time its position"
        }
    }
}

/// What became of a position report.
public enum ReportOutcome: Sendable, Equatable {
    /// The report moved the cab.
    case applied
    /// Older than the cab's last report: ignored, and counted in `Fleet.outOfOrderReports`.
    case ignoredOutOfOrder
}

/// The live fleet of one city: cabs, their last positions, and fast searches over them.
///
/// Concurrency model: **two replicas, left–right**. Reports and status changes (from any
/// thread) take a mutex, update the fleet's records and the replica no reader is in, and log
/// the change. A publish — by a write made `publishInterval` (default 50 ms) or more after
/// the last one, by a query that finds the published replica that old while changes wait,
/// or by `publish()` — swaps the replicas and waits for the readers still in the old one (a
/// search takes microseconds); the next write replays the log into it first: work in
/// proportion to what changed, not to the fleet. Queries (from any number of threads) take
/// no lock to search: they announce themselves in an atomic counter and search the
/// published replica; one that finds a publish due does it only if the lock is free (the
/// write holding it publishes at its end otherwise). So a query never sees the fleet as it
/// was more than `publishInterval` ago, give or take the write under way.
///
/// Time comes from an injected `FleetClock`, so staleness and publishing are tested with a
/// `ManualClock` and simulations run faster than real time.
///
/// `Sendable`: all mutable state sits behind locks (`Locked`); snapshots are immutable values.
public final class Fleet: Sendable {
    /// How a city configures its fleet.
    public struct Configuration: Sendable {
        /// The cab types of the city, at most 16.
        public var cabTypes: [CabType] = [.tataNano, .hatchback, .sedan]
        /// A cab with no report for this long is stale and is not offered.
        public var staleAfter: TimeInterval = 120
        /// How often reports become visible to queries: no query sees the fleet as it was
        /// longer ago than this.
        public var publishInterval: TimeInterval = 0.05
        /// How far a report's time may be ahead of the fleet's clock (device clocks drift);
        /// a report later than that is `FleetError.reportFromTheFuture`.
        public var allowedSkew: TimeInterval = 30
        /// The defaults: the specification's three types, 120 s staleness, 50 ms publishing,
        /// 30 s of clock skew.
        public init() {}
    }

    /// The fleet's own records, under the state lock.
    struct State: Sendable {
        /// Per slot: the cab, and whether the slot is live (unregistering leaves a tombstone
        /// so that handles stay stable).
        var cabs: [Cab] = []
        var live: [Bool] = []
        var indexOfID: [String: Int32] = [:]
        var outOfOrder = 0
        /// When the readers' replica was published, and whether anything changed since.
        var lastPublish: TimeInterval = -.infinity
        var changed = false
    }

    /// The types, staleness, publish interval and skew this fleet was made with.
    public let configuration: Configuration
    /// The fleet's time source.
    public let clock: any FleetClock
    let state: Locked<State>
    let replicas: Replicas

    /// An empty fleet reading the time from `clock`.
    public init(configuration: Configuration = .init(), clock: any FleetClock = SystemClock()) throws(FleetError) {
        guard configuration.cabTypes.count <= 16 else { throw .tooManyCabTypes(configuration.cabTypes.count) }
        self.configuration = configuration
        self.clock = clock
        state = Locked(State())
        let types = configuration.cabTypes
        replicas = Replicas(tagOf: { Self.tag(of: $0, types: types) })
    }

    // MARK: Registering and reporting

    /// Adds a cab. It is offered once it has reported a position.
    @discardableResult
    public func register(id: String, type: CabType, status: CabStatus = .unattended) throws(FleetError) -> CabHandle {
        try register([Cab(id: id, type: type, status: status)])[0]
    }

    /// Adds many cabs at once, all or none: a city's fleet at a cold start. Cabs given with a
    /// position and report time are searchable at once; into an empty fleet they are bulk
    /// loaded (a packed tree, about 10× faster than one insert per cab). Returns the handles
    /// in the order given.
    @discardableResult
    public func register(_ cabs: [Cab]) throws(FleetError) -> [CabHandle] {
        let now = clock.now()
        var seen = Set<String>()
        for cab in cabs {
            guard configuration.cabTypes.contains(cab.type) else { throw .unknownCabType(cab.type.name) }
            guard seen.insert(cab.id).inserted else { throw .duplicateCab(cab.id) }
            guard (cab.position == nil) == (cab.lastReport == nil) else { throw .positionWithoutTime(cab: cab.id) }
            if let t = cab.lastReport, t > now.addingTimeInterval(configuration.allowedSkew) {
                throw .reportFromTheFuture(cab: cab.id, reported: t, now: now)
            }
        }
        let result: Result<[CabHandle], FleetError> = state.withLock { s in
            if let taken = cabs.first(where: { s.indexOfID[$0.id] != nil }) { return .failure(.duplicateCab(taken.id)) }
            let first = s.cabs.count
            for (k, cab) in cabs.enumerated() {
                s.indexOfID[cab.id] = Int32(first + k)
                s.cabs.append(cab); s.live.append(true)
            }
            replicas.apply(.register(first..<s.cabs.count), cabs: s.cabs)
            s.changed = true
            publishIfDue(&s, now: now.timeIntervalSinceReferenceDate)
            return .success((first..<s.cabs.count).map { CabHandle(slot: Int32($0)) })
        }
        return try result.get()
    }

    /// Removes a cab: it is no longer offered, and its id may be registered again. Its
    /// handles become invalid.
    public func unregister(_ id: String) throws(FleetError) {
        let now = clock.now().timeIntervalSinceReferenceDate
        let error: FleetError? = state.withLock { s in
            guard let c = s.indexOfID.removeValue(forKey: id).map(Int.init) else { return .unknownCab(id) }
            s.live[c] = false
            replicas.apply(.remove(slot: Int32(c)), cabs: s.cabs)
            s.changed = true
            publishIfDue(&s, now: now)
            return nil
        }
        if let error { throw error }
    }

    /// The handle of a registered cab.
    public func handle(of id: String) throws(FleetError) -> CabHandle {
        guard let slot = state.withLock({ $0.indexOfID[id] }) else { throw .unknownCab(id) }
        return CabHandle(slot: slot)
    }

    /// Records a position report. A report older than the cab's last one is ignored and
    /// counted; an unknown cab, or a time later than the clock plus the allowed skew, is an
    /// error.
    @discardableResult
    public func report(cab id: String, position: Coordinate, at time: Date) throws(FleetError) -> ReportOutcome {
        try record(position, at: time) { s in s.indexOfID[id].map(Int.init) ?? -1 } unknown: { _ in id }
    }

    /// Records a position report through a handle (no id lookup).
    @discardableResult
    public func report(_ cab: CabHandle, position: Coordinate, at time: Date) throws(FleetError) -> ReportOutcome {
        try record(position, at: time) { _ in Int(cab.slot) } unknown: { s in
            Self.name(ofSlot: Int(cab.slot), in: s)
        }
    }

    /// How an error names the cab of a handle: its id while the slot exists, else `#slot`.
    static func name(ofSlot c: Int, in s: State) -> String {
        c >= 0 && c < s.cabs.count ? s.cabs[c].id : "#\(c)"
    }

    /// A report for the slot `slotOf` finds, under one hold of the lock; `unknown` names the
    /// cab in the error when the slot is not live.
    private func record(_ position: Coordinate, at time: Date, slotOf: (State) -> Int,
                        unknown: (State) -> String) throws(FleetError) -> ReportOutcome {
        let now = clock.now()
        let unitVector = SpherePoint(position)   // outside the lock, once for both replicas
        let result: Result<ReportOutcome, FleetError> = state.withLock { s in
            let outcome = apply(position, unitVector: unitVector, at: time, toSlot: slotOf(s), now: now, &s, unknown: unknown)
            if case .success(.applied) = outcome { publishIfDue(&s, now: now.timeIntervalSinceReferenceDate) }
            return outcome
        }
        return try result.get()
    }

    /// One report's checks and changes, under the state lock: the one definition of a
    /// report, for single reports and batches alike. The caller publishes when due.
    @inline(__always)
    func apply(_ position: Coordinate, unitVector: SpherePoint, at time: Date, toSlot c: Int, now: Date,
               _ s: inout State, unknown: (State) -> String) -> Result<ReportOutcome, FleetError> {
        guard c >= 0, c < s.cabs.count, s.live[c] else { return .failure(.unknownCab(unknown(s))) }
        if time > now.addingTimeInterval(configuration.allowedSkew) {
            return .failure(.reportFromTheFuture(cab: s.cabs[c].id, reported: time, now: now))
        }
        if let last = s.cabs[c].lastReport, time < last {
            s.outOfOrder += 1
            return .success(.ignoredOutOfOrder)
        }
        s.cabs[c].position = position
        s.cabs[c].lastReport = time
        replicas.apply(.move(slot: Int32(c), position: position, unitVector: unitVector, stamp: Self.stamp(time), time: time), cabs: s.cabs)
        s.changed = true
        return .success(.applied)
    }

    /// A report given as raw numbers, validated first.
    @discardableResult
    public func report(cab id: String, latitude: Double, longitude: Double, at time: Date) throws(FleetError) -> ReportOutcome {
        let p: Coordinate
        do { p = try Coordinate(latitude: latitude, longitude: longitude) } catch {
            throw .invalidPosition(cab: id, reason: error.description)
        }
        return try report(cab: id, position: p, at: time)
    }

    /// Changes a cab's status (a driver gets in, a trip starts or ends).
    public func setStatus(of id: String, to status: CabStatus) throws(FleetError) {
        let now = clock.now().timeIntervalSinceReferenceDate
        let error: FleetError? = state.withLock { s in
            guard let c = s.indexOfID[id].map(Int.init) else { return .unknownCab(id) }
            s.cabs[c].status = status
            replicas.apply(.status(slot: Int32(c), status: status), cabs: s.cabs)
            s.changed = true
            publishIfDue(&s, now: now)
            return nil
        }
        if let error { throw error }
    }

    /// Makes every report so far visible to queries now.
    public func publish() {
        let now = clock.now().timeIntervalSinceReferenceDate
        state.withLock { s in publishNow(&s, now: now) }
    }

    /// Reports ignored because they were older than the cab's last one.
    public var outOfOrderReports: Int { state.withLock { $0.outOfOrder } }

    /// The cab with this id, as of its latest report (not waiting for a publish).
    public func cab(_ id: String) throws(FleetError) -> Cab {
        let found: Cab? = state.withLock { s in s.indexOfID[id].map { s.cabs[Int($0)] } }
        guard let found else { throw .unknownCab(id) }
        return found
    }

    /// The cab behind a handle, as of its latest report (not waiting for a publish).
    public func cab(_ handle: CabHandle) throws(FleetError) -> Cab {
        let found: Cab? = state.withLock { s in
            let c = Int(handle.slot)
            return c >= 0 && c < s.cabs.count && s.live[c] ? s.cabs[c] : nil
        }
        guard let found else { throw .unknownCab("#\(handle.slot)") }
        return found
    }

    /// Every registered cab as of its latest report, in the order they were registered (the
    /// live map draws them all; a copy, taken under the lock).
    public func allCabs() -> [Cab] {
        state.withLock { s in s.cabs.indices.compactMap { s.live[$0] ? s.cabs[$0] : nil } }
    }

    /// The time of the snapshot queries read now, on the fleet's clock (for measuring how
    /// old the data a query saw can be).
    public var publishedAt: Date { Date(timeIntervalSinceReferenceDate: replicas.publishedTime) }

    func publishIfDue(_ s: inout State, now: TimeInterval) {
        if isDue(since: s.lastPublish, now: now) { publishNow(&s, now: now) }
    }

    /// Whether `publishInterval` has passed. Why the microsecond of slack: times are seconds
    /// since 2001 in a Double, whose rounding (about 0.1 µs today) would otherwise make an
    /// interval measured exactly fall a hair short.
    private func isDue(since last: TimeInterval, now: TimeInterval) -> Bool {
        now - last >= configuration.publishInterval - 1e-6
    }

    private func publishNow(_ s: inout State, now: TimeInterval) {
        s.lastPublish = now
        s.changed = false
        replicas.publish(at: now, cabs: s.cabs)
    }

    /// Runs a search on the readers' replica. When that is `publishInterval` old or more, the
    /// query publishes first if anything changed (and otherwise renews its time: it is still
    /// the whole truth), so no query sees data older than the interval, give or take the
    /// write under way.
    ///
    /// Why a query does not wait for the lock: whoever holds it is a write under way, which
    /// ends by publishing when due, or a lookup of a moment, after which the next query
    /// publishes; so the query searches the published replica at once. Waiting for it, with
    /// a writer that took the lock back the moment it let go, a query slept until the writer
    /// paused: the bench's reader spent an eighth of its time asleep on the lock.
    func read<R>(at clockTime: Date, _ body: (Replica) -> R) -> R {
        let now = clockTime.timeIntervalSinceReferenceDate
        if isDue(since: replicas.publishedTime, now: now) {
            state.withLockIfAvailable { s in
                guard isDue(since: s.lastPublish, now: now) else { return }
                if s.changed { publishNow(&s, now: now) } else { s.lastPublish = now; replicas.renew(at: now) }
            }
        }
        return replicas.read(body)
    }

    // MARK: Searching

    /// The `k` nearest offered cabs to `point`: of the given types (all when nil) and
    /// statuses (available only when nil), reported within `staleAfter` of `now` (the fleet's clock when nil), within
    /// `radius` metres; nearest first. Allocates its scratch space: a thread that searches
    /// often passes its own `FleetWorkspace` to `nearest(_:to:types:statuses:within:now:using:)`.
    public func nearest(_ k: Int, to point: Coordinate, types: Set<CabType>? = nil,
                        statuses: Set<CabStatus>? = nil, within radius: Double = .infinity,
                        now: Date? = nil) -> [CabMatch] {
        nearest(k, to: point, types: types, statuses: statuses, within: radius, now: now, using: FleetWorkspace())
    }

    /// `nearest(_:to:types:statuses:within:now:)` with the caller's scratch space: it
    /// allocates nothing but its answer once the workspace has grown.
    public func nearest(_ k: Int, to point: Coordinate, types: Set<CabType>? = nil,
                        statuses: Set<CabStatus>? = nil, within radius: Double = .infinity,
                        now: Date? = nil, using w: FleetWorkspace) -> [CabMatch] {
        guard k > 0 else { return [] }
        let clockTime = clock.now()
        let filter = self.filter(types: types, statuses: statuses, now: now ?? clockTime)
        var found: [NearbyCab] = []
        swap(&found, &w.found)
        defer { swap(&found, &w.found) }
        return read(at: clockTime) { r in
            search(k, to: point, within: radius, filter: filter, in: r, using: w, into: &found)
            let cabs = r.cabs
            return found.map { CabMatch(cab: cabs[Int($0.handle.slot)], distance: $0.distance) }
        }
    }

    /// The `k` nearest offered cabs to `point` as handles and distances, into `result`
    /// (nearest first; the same cabs as `nearest(_:to:types:statuses:within:now:using:)`),
    /// with each cab's record left to fetch on demand (`cab(_:)`). Allocates nothing once the
    /// workspace and `result` have grown: the dispatcher's search.
    public func nearest(_ k: Int, to point: Coordinate, types: Set<CabType>? = nil,
                        statuses: Set<CabStatus>? = nil, within radius: Double = .infinity,
                        now: Date? = nil, using w: FleetWorkspace, into result: inout [NearbyCab]) {
        guard k > 0 else { result.removeAll(keepingCapacity: true); return }
        let clockTime = clock.now()
        let filter = self.filter(types: types, statuses: statuses, now: now ?? clockTime)
        read(at: clockTime) { r in search(k, to: point, within: radius, filter: filter, in: r, using: w, into: &result) }
    }

    /// The search behind both `nearest` forms: its answers replace `found`'s contents (the
    /// caller's array, or for the `CabMatch` form the workspace's, taken out of it for the
    /// search and put back, so that the search works on a local array, not through the
    /// object).
    ///
    /// The tree's filter is the whole test, freshness included: its stamps are the report
    /// times in order (`stamp(_:)`), so no answer is checked again here.
    private func search(_ k: Int, to point: Coordinate, within radius: Double, filter: EntryFilter,
                        in r: Replica, using w: FleetWorkspace, into found: inout [NearbyCab]) {
        w.lastSearchDataTime = Date(timeIntervalSinceReferenceDate: replicas.publishedTime)
        // The neighbours buffer is taken out of the workspace and put back likewise.
        var neighbours: [Neighbour] = []
        swap(&neighbours, &w.neighbours)
        defer { swap(&neighbours, &w.neighbours) }
        r.withPublishedTree { tree in
            Self.search(k, to: point, within: radius, filter: filter, tree: tree, search: w.search, neighbours: &neighbours, into: &found)
        }
    }

    /// `search(_:to:within:filter:in:using:into:)` on the replica's published tree, borrowed
    /// where it lies (see `Replica.withPublishedTree(_:)` for why no copy is made).
    private static func search(_ k: Int, to point: Coordinate, within radius: Double, filter: EntryFilter,
                               tree: RTree<Int32>, search: SearchWorkspace,
                               neighbours: inout [Neighbour], into found: inout [NearbyCab]) {
        tree.nearest(k, to: point, within: radius, filter: filter, into: &neighbours, using: search)
        tree.prefetchPayloads(of: neighbours)
        // The answers are made in a buffer on the stack, then replace `found`'s contents in
        // one call: an append per answer checked the array's uniqueness and capacity each
        // time, and emptying it first was a call of its own.
        withUnsafeTemporaryAllocation(of: NearbyCab.self, capacity: neighbours.count) { made in
            var count = 0
            for n in neighbours {
                guard let c = tree.payload(of: n) else { continue }
                made.initializeElement(at: count, to: NearbyCab(handle: CabHandle(slot: c), distance: n.distance))
                count += 1
            }
            found.replaceSubrange(found.indices, with: UnsafeBufferPointer(rebasing: made[..<count]))
        }
    }

    /// Every offered cab within `radius` metres, nearest first (the boundary included): of
    /// the given types (all when nil) and statuses (available only when nil).
    public func cabs(within radius: Double, of point: Coordinate, types: Set<CabType>? = nil,
                     statuses: Set<CabStatus>? = nil, now: Date? = nil) -> [CabMatch] {
        cabs(within: radius, of: point, types: types, statuses: statuses, now: now, using: FleetWorkspace())
    }

    /// `cabs(within:of:types:statuses:now:)` with the caller's scratch space.
    public func cabs(within radius: Double, of point: Coordinate, types: Set<CabType>? = nil,
                     statuses: Set<CabStatus>? = nil, now: Date? = nil, using w: FleetWorkspace) -> [CabMatch] {
        let clockTime = clock.now()
        let filter = self.filter(types: types, statuses: statuses, now: now ?? clockTime)
        return read(at: clockTime) { r in
            w.lastSearchDataTime = Date(timeIntervalSinceReferenceDate: replicas.publishedTime)
            return r.withPublishedTree { Self.cabs(within: radius, of: point, filter: filter, tree: $0, cabs: r.cabs, using: w) }
        }
    }

    /// The radius search on the replica's published tree, borrowed where it lies.
    private static func cabs(within radius: Double, of point: Coordinate, filter: EntryFilter,
                             tree: RTree<Int32>, cabs: [Cab], using w: FleetWorkspace) -> [CabMatch] {
        tree.within(radius, of: point, filter: filter, sorted: true, into: &w.neighbours, using: w.search)
        return w.neighbours.compactMap { n in
            tree.payload(of: n).map { CabMatch(cab: cabs[Int($0)], distance: n.distance) }
        }
    }

    /// Every offered cab inside a zone, whatever its shape: the R-tree finds the cabs in the
    /// zone's bounding box, and the zone set's exact test keeps those inside (borders
    /// included). The specification's "taxis located in a specified area that may not be
    /// rectangular-shaped". Sorted by id.
    public func cabs(in zone: Zone, of zones: ZoneSet, types: Set<CabType>? = nil,
                     statuses: Set<CabStatus>? = Set(CabStatus.allCases), now: Date? = nil) -> [Cab] {
        let clockTime = clock.now()
        let filter = self.filter(types: types, statuses: statuses, now: now ?? clockTime)
        let w = FleetWorkspace()
        return read(at: clockTime) { r -> [Cab] in
            r.withPublishedTree { Self.cabs(in: zone, of: zones, filter: filter, tree: $0, cabs: r.cabs, using: w) }
        }.sorted { $0.id < $1.id }
    }

    /// The zone search on the replica's published tree, borrowed where it lies.
    private static func cabs(in zone: Zone, of zones: ZoneSet, filter: EntryFilter,
                             tree: RTree<Int32>, cabs: [Cab], using w: FleetWorkspace) -> [Cab] {
        tree.inside(zones.bounds(of: zone), filter: filter, into: &w.entries, using: w.search)
        return w.entries.compactMap { e -> Cab? in
            guard let p = tree.position(of: e), let c = tree[e], zones.covers(p, zone: zone) else { return nil }
            return cabs[Int(c)]
        }
    }

    /// The tree filter for a search: the types, the statuses, and reported at or after
    /// `staleAfter` before `now` (exactly: see `stamp(_:)`).
    func filter(types: Set<CabType>?, statuses: Set<CabStatus>?, now: Date) -> EntryFilter {
        var typeBits: UInt32 = 0xFFFF
        if let types {
            typeBits = 0
            for (i, t) in configuration.cabTypes.enumerated() where types.contains(t) { typeBits |= 1 << UInt32(i) }
        }
        var statusBits: UInt32 = 1 << UInt32(16 + CabStatus.available.rawValue)
        if let statuses {
            statusBits = 0
            for s in statuses { statusBits |= 1 << UInt32(16 + s.rawValue) }
        }
        let cutoff = now.addingTimeInterval(-configuration.staleAfter)
        return EntryFilter(anyOf: typeBits, alsoAnyOf: statusBits, minimumStamp: Self.stamp(cutoff))
    }

    /// The R-tree tag of a cab: its type's bit in the low half, its status's in the high.
    static func tag(of cab: Cab, types: [CabType]) -> UInt32 {
        let t = types.firstIndex(of: cab.type) ?? 0
        return 1 << UInt32(t) | 1 << UInt32(16 + cab.status.rawValue)
    }

    /// A time as the tree's stamp: an integer in the same order as the times, with nothing
    /// rounded, so that `stamp(a) >= stamp(b)` exactly when `a >= b`.
    ///
    /// How: a `Double`'s bits, read as a signed integer, are already in order for the
    /// positive numbers and in reverse for the negative ones, which flipping every bit but
    /// the sign puts right. Minus zero is made plus zero first (they are equal times), and
    /// NaN, which no real clock gives, is older than everything.
    static func stamp(_ date: Date) -> Int64 {
        let t = date.timeIntervalSinceReferenceDate + 0.0
        guard !t.isNaN else { return .min }
        let bits = Int64(bitPattern: t.bitPattern)
        return bits >= 0 ? bits : bits ^ Int64.max
    }
}

/// Scratch space for a thread's fleet searches: pass the same one to every search, so that a
/// search allocates nothing but its answer. Not `Sendable`: one per thread.
///
/// `@exclusivity(unchecked)`: the fleet's searches take a buffer out and put it back, and
/// never hold two accesses to one property at once; the runtime's bookkeeping of each
/// access was about 150 instructions of every query. (It never caught races between
/// threads: a workspace is one thread's.)
public final class FleetWorkspace {
    let search = SearchWorkspace()
    @exclusivity(unchecked) var neighbours: [Neighbour] = []
    @exclusivity(unchecked) var found: [NearbyCab] = []
    @exclusivity(unchecked) var entries: [EntryID] = []
    /// When the data of the last search made with this workspace was published, on the
    /// fleet's clock: how old the answer could be (for monitoring and benchmarks).
    @exclusivity(unchecked) public internal(set) var lastSearchDataTime: Date?
    /// Empty scratch space; it grows to what the searches need and keeps it.
    public init() {}
}
