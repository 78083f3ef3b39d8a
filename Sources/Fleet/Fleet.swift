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
}

/// A cab found by a search, with its great-circle distance in metres.
public struct CabMatch: Hashable, Sendable {
    /// The cab as the searched snapshot knew it.
    public let cab: Cab
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

    /// The error in one line.
    public var description: String {
        switch self {
        case let .unknownCab(id): "unknown cab \"\(id)\""
        case let .duplicateCab(id): "cab \"\(id)\" is already registered"
        case let .unknownCabType(name): "cab type \"\(name)\" is not configured for this city"
        case let .invalidPosition(id, reason): "cab \"\(id)\": \(reason)"
        case let .tooManyCabTypes(n): "a city configures at most 16 cab types, not \(n)"
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
/// Concurrency model: **published snapshots**. Position reports (from any thread) update a
/// writer copy of the R-tree under a mutex; a write made `publishInterval` (default 50 ms)
/// or more after the last publish, or a call to `publish()`, copies the writer's value into
/// the published snapshot — cheap, because the tree is a value of copy-on-write arrays.
/// Queries (from any number of threads) take the current snapshot under a second, briefly
/// held mutex and search it with no lock held, so reports never wait for queries and
/// queries never wait for reports. A query sees the fleet as of the last publish; after the
/// last write of a quiet spell, that lasts until the next write or `publish()`.
///
/// `Sendable`: all mutable state sits behind locks (`Locked`); snapshots are immutable values.
public final class Fleet: Sendable {
    /// How a city configures its fleet.
    public struct Configuration: Sendable {
        /// The cab types of the city, at most 16.
        public var cabTypes: [CabType] = [.tataNano, .hatchback, .sedan]
        /// A cab with no report for this long is stale and is not offered.
        public var staleAfter: TimeInterval = 120
        /// How often reports become visible to queries.
        public var publishInterval: TimeInterval = 0.05
        /// The defaults: the specification's three types, 120 s staleness, 50 ms publishing.
        public init() {}
    }

    struct State: Sendable {
        var tree = RTree<Int32>()
        var cabs: [Cab] = []
        var entryOfCab: [Int32] = []        // -1 before the first report
        var indexOfID: [String: Int32] = [:]
        var outOfOrder = 0
        var lastPublish: TimeInterval = 0
    }

    /// What queries read: the tree and the cabs as of the last publish.
    struct Snapshot: Sendable {
        var tree = RTree<Int32>()
        var cabs: [Cab] = []
    }

    /// The types, staleness and publish interval this fleet was made with.
    public let configuration: Configuration
    /// Report times are stored as whole seconds from this epoch in the tree's stamps.
    let epoch: Date
    let state: Locked<State>
    let published: Locked<Snapshot>

    /// An empty fleet. `epoch` is the time that the index's report stamps count from, in
    /// whole seconds held in 32 bits: times more than 68 years from it saturate.
    public init(configuration: Configuration = .init(), epoch: Date = Date(timeIntervalSince1970: 1_700_000_000)) throws(FleetError) {
        guard configuration.cabTypes.count <= 16 else { throw .tooManyCabTypes(configuration.cabTypes.count) }
        self.configuration = configuration
        self.epoch = epoch
        state = Locked(State())
        published = Locked(Snapshot())
    }

    // MARK: Registering and reporting

    /// Adds a cab. It is offered once it has reported a position.
    public func register(id: String, type: CabType, status: CabStatus = .unattended) throws(FleetError) {
        guard configuration.cabTypes.contains(type) else { throw .unknownCabType(type.name) }
        let result: FleetError? = state.withLock { s in
            guard s.indexOfID[id] == nil else { return .duplicateCab(id) }
            s.indexOfID[id] = Int32(s.cabs.count)
            s.cabs.append(Cab(id: id, type: type, status: status))
            s.entryOfCab.append(-1)
            return nil
        }
        if let result { throw result }
    }

    /// Records a position report. A report older than the cab's last one is ignored and
    /// counted; an unknown cab is an error.
    @discardableResult
    public func report(cab id: String, position: Coordinate, at time: Date) throws(FleetError) -> ReportOutcome {
        let stamp = self.stamp(time)
        let result: Result<ReportOutcome, FleetError> = state.withLock { s in
            guard let c = s.indexOfID[id].map(Int.init) else { return .failure(.unknownCab(id)) }
            if let last = s.cabs[c].lastReport, time < last {
                s.outOfOrder += 1
                return .success(.ignoredOutOfOrder)
            }
            s.cabs[c].position = position
            s.cabs[c].lastReport = time
            if s.entryOfCab[c] < 0 {
                s.entryOfCab[c] = s.tree.insert(position, tag: tag(s.cabs[c]), stamp: stamp, payload: Int32(c)).rawValue
            } else {
                // The entry of a registered cab is always live; a failure here would be a bug
                // in this type, and the report is still recorded in `cabs`.
                _ = try? s.tree.move(EntryID(rawValue: s.entryOfCab[c]), to: position, stamp: stamp)
            }
            publishIfDue(&s)
            return .success(.applied)
        }
        return try result.get()
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
        let error: FleetError? = state.withLock { s in
            guard let c = s.indexOfID[id].map(Int.init) else { return .unknownCab(id) }
            s.cabs[c].status = status
            if s.entryOfCab[c] >= 0 { try? s.tree.setTag(EntryID(rawValue: s.entryOfCab[c]), to: tag(s.cabs[c])) }
            publishIfDue(&s)
            return nil
        }
        if let error { throw error }
    }

    /// Makes every report so far visible to queries now.
    public func publish() {
        state.withLock { s in publishNow(&s) }
    }

    /// Reports ignored because they were older than the cab's last one.
    public var outOfOrderReports: Int { state.withLock { $0.outOfOrder } }

    /// The cab with this id, as of its latest report (not waiting for a publish).
    public func cab(_ id: String) throws(FleetError) -> Cab {
        let found: Cab? = state.withLock { s in s.indexOfID[id].map { s.cabs[Int($0)] } }
        guard let found else { throw .unknownCab(id) }
        return found
    }

    private func publishIfDue(_ s: inout State) {
        let now = Date().timeIntervalSinceReferenceDate
        if now - s.lastPublish >= configuration.publishInterval { publishNow(&s) }
    }

    private func publishNow(_ s: inout State) {
        s.lastPublish = Date().timeIntervalSinceReferenceDate
        let snapshot = Snapshot(tree: s.tree, cabs: s.cabs)
        published.withLock { $0 = snapshot }
    }

    // MARK: Searching

    /// The `k` nearest offered cabs to `point`: of the given types (all when nil) and
    /// statuses, reported within `staleAfter` of `now`, within `radius` metres; nearest first.
    public func nearest(_ k: Int, to point: Coordinate, types: Set<CabType>? = nil,
                        statuses: Set<CabStatus> = [.available], within radius: Double = .infinity,
                        now: Date = Date()) -> [CabMatch] {
        let snap = published.withLock { $0 }
        let w = SearchWorkspace(); var found: [Neighbour] = []
        snap.tree.nearest(k, to: point, within: radius, filter: filter(types: types, statuses: statuses, now: now),
                          into: &found, using: w)
        return found.compactMap { n in snap.tree[n.entry].map { CabMatch(cab: snap.cabs[Int($0)], distance: n.distance) } }
    }

    /// Every offered cab within `radius` metres, nearest first (the boundary included).
    public func cabs(within radius: Double, of point: Coordinate, types: Set<CabType>? = nil,
                     statuses: Set<CabStatus> = [.available], now: Date = Date()) -> [CabMatch] {
        let snap = published.withLock { $0 }
        let w = SearchWorkspace(); var found: [Neighbour] = []
        snap.tree.within(radius, of: point, filter: filter(types: types, statuses: statuses, now: now), sorted: true,
                         into: &found, using: w)
        return found.compactMap { n in snap.tree[n.entry].map { CabMatch(cab: snap.cabs[Int($0)], distance: n.distance) } }
    }

    /// Every offered cab inside a zone, whatever its shape: the R-tree finds the cabs in the
    /// zone's bounding box, and the zone set's exact test keeps those inside (borders
    /// included). The specification's "taxis located in a specified area that may not be
    /// rectangular-shaped".
    public func cabs(in zone: Zone, of zones: ZoneSet, types: Set<CabType>? = nil,
                     statuses: Set<CabStatus> = Set(CabStatus.allCases), now: Date = Date()) -> [Cab] {
        let snap = published.withLock { $0 }
        let w = SearchWorkspace(); var found: [EntryID] = []
        snap.tree.inside(zones.bounds(of: zone), filter: filter(types: types, statuses: statuses, now: now),
                         into: &found, using: w)
        return found.compactMap { e in
            guard let p = snap.tree.position(of: e), let c = snap.tree[e], zones.covers(p, zone: zone) else { return nil }
            return snap.cabs[Int(c)]
        }.sorted { $0.id < $1.id }
    }

    func filter(types: Set<CabType>?, statuses: Set<CabStatus>, now: Date) -> EntryFilter {
        var typeBits: UInt32 = 0
        for (i, t) in configuration.cabTypes.enumerated() where types?.contains(t) ?? true { typeBits |= 1 << UInt32(i) }
        var statusBits: UInt32 = 0
        for s in statuses { statusBits |= 1 << UInt32(16 + s.rawValue) }
        let cutoff = now.addingTimeInterval(-configuration.staleAfter)
        return EntryFilter(anyOf: typeBits, alsoAnyOf: statusBits, minimumStamp: stamp(cutoff, roundingUp: true))
    }

    /// The R-tree tag of a cab: its type's bit in the low half, its status's in the high.
    func tag(_ cab: Cab) -> UInt32 {
        let t = configuration.cabTypes.firstIndex(of: cab.type) ?? 0
        return 1 << UInt32(t) | 1 << UInt32(16 + cab.status.rawValue)
    }

    /// Whole seconds since the epoch, clamped to Int32.
    func stamp(_ date: Date, roundingUp: Bool = false) -> Int32 {
        let s = date.timeIntervalSince(epoch)
        let r = roundingUp ? s.rounded(.up) : s.rounded(.down)
        return Int32(max(Double(Int32.min), min(Double(Int32.max), r)))
    }
}
