import CIntrinsics
import Geodesy

/// A handle on one entry of an `RTree`, stable until the entry is removed.
public struct EntryID: Hashable, Sendable, Comparable, BitwiseCopyable {
    /// The entry's slot number.
    public let rawValue: Int32
    /// An id from its slot number.
    /// Orders ids by slot number.
    @inlinable public init(rawValue: Int32) { self.rawValue = rawValue }
    public static func < (a: EntryID, b: EntryID) -> Bool { a.rawValue < b.rawValue }
}

/// A misuse of an `RTree` that the caller can recover from.
public enum RTreeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A bulk load was given arrays of different lengths.
    case lengthMismatch(coordinates: Int, tags: Int, stamps: Int, payloads: Int)
    /// An update named an entry that is not live in the tree.
    case notInTree(EntryID)

    /// The misuse in one line.
    public var description: String {
        switch self {
        case let .lengthMismatch(c, t, s, p): "R-tree bulk load: \(c) coordinates, \(t) tags, \(s) stamps and \(p) payloads (they must be equal)"
        case let .notInTree(e): "R-tree: entry \(e.rawValue) is not in the tree"
        }
    }
}

/// What an entry must match to be returned, checked inside the search so that "the 10
/// nearest available sedans" never scans the whole set.
///
/// Every entry carries a 32-bit tag and a 64-bit stamp. An entry passes when its tag shares
/// a bit with `anyOf` and a bit with `alsoAnyOf`, and its stamp is at least
/// `minimumStamp`. (The fleet puts a cab's type in one set of bits and its status in another,
/// and the report time in the stamp, mapped to an integer in the same order, so that the
/// freshness test inside the search is exact.) Tags must not be zero.
///
/// Why 64 bits: a leaf slot had four bytes of padding after its 32-bit stamp, so a 64-bit
/// one costs no memory, and it holds any `Double` time in order (see `Fleet`), where whole
/// seconds in 32 bits made every search check each answer's exact time in an array apart.
public struct EntryFilter: Hashable, Sendable {
    /// An entry passes only if its tag shares a bit with this mask.
    public var anyOf: UInt32
    /// …and a bit with this one.
    public var alsoAnyOf: UInt32
    /// …and its stamp is at least this.
    public var minimumStamp: Int64

    /// A filter; the defaults accept everything.
    public init(anyOf: UInt32 = .max, alsoAnyOf: UInt32 = .max, minimumStamp: Int64 = .min) {
        self.anyOf = anyOf; self.alsoAnyOf = alsoAnyOf; self.minimumStamp = minimumStamp
    }

    /// Accepts every entry.
    public static let all = EntryFilter()

    @inline(__always)
    func accepts(tag: UInt32, stamp: Int64) -> Bool {
        tag & anyOf != 0 && tag & alsoAnyOf != 0 && stamp >= minimumStamp
    }

    /// True when this filter turns away only a zero tag (`.all` does that much), so that a
    /// search may test `tag != 0` alone.
    var acceptsEveryTag: Bool { anyOf == .max && alsoAnyOf == .max && minimumStamp == .min }
}

/// One answer of a search: the entry and its great-circle distance.
///
/// The search works in squared chords; the metres are computed only when `distance` is read
/// (an `asin` each), so a radius search that returns hundreds of entries does not pay for
/// distances nobody looks at.
public struct Neighbour: Hashable, Sendable, BitwiseCopyable {
    /// The entry found.
    public let entry: EntryID
    /// The squared chord between the unit vectors (the search's own measure).
    public let chord2: Double
    /// Great-circle distance in metres on the mean sphere.
    @inlinable public var distance: Double { ChordDistance.metres(chord2: chord2) }

    /// The answers' order: nearer first, then the lower entry id (as `QueueItem.before`).
    @inline(__always)
    static func before(_ a: Neighbour, _ b: Neighbour) -> Bool {
        a.chord2 < b.chord2 || (a.chord2 == b.chord2 && a.entry < b.entry)
    }
}

/// Wayfare's R-tree over points on the Earth, generic over a payload.
///
/// Points are stored as 3-D unit vectors (`SpherePoint`), so every distance and every pruning
/// bound is an exact function of great-circle distance: results are right at 60° and 78°
/// north and across the antimeridian without special cases. The vectors are kept in a frame
/// centred on the fleet (`SphereFrame`: a rotation and a shift, so the same distances),
/// where a city's boxes are flat east–north rectangles rather than tilted slabs.
///
/// Two boxes per node, both kept in its parent's slot. The *box* is the tight box of the
/// node's points: searches prune with it. The *cell* is the node's part of a k-d partition
/// of space: the children's cells tile their parent's (the root's is all of space), and a
/// point belongs to the leaf whose cell holds it. Updates follow the cells (as in a
/// k-d-B-tree), so a moving point changes leaf only when it crosses a cell wall, a leaf's
/// box never reaches outside its cell (but for the outward rounding of the stored box), and
/// leaves never overlap however much the fleet moves. (Cells are closed boxes: a point on a
/// wall may sit on either side.)
///
/// Layout (flatbush/RoutingKit style): plain arrays, no class per node or entry. Leaves and
/// inner nodes have separate id spaces; inner node n's slots are `n·8 ..< n·8 + count[n]`
/// and leaf n's are `n·24 ..< n·24 + count[n]`. A child's box lives in its parent's slot, so
/// a visit reads one contiguous run (the cells lie in a parallel array searches never read). Leaf slots
/// hold the points, their tags and stamps; an entry knows its leaf and slot, so a position
/// report is O(1) while the point stays inside its leaf's box.
///
/// The engine is `RTreeCore`, which is not generic; this type adds the payloads and
/// forwards to it.
///
/// `Sendable` when the payload is: a value type of arrays. Copies share storage until one
/// is written (copy-on-write), which the fleet uses to publish read-only snapshots.
public struct RTree<Payload: Sendable>: Sendable {
    @usableFromInline var core: RTreeCore
    /// Each entry's payload, by entry id; live or not is the core's to say.
    ///
    /// Why not `[Payload?]` with nil for removed entries: a bulk load would have to copy the
    /// caller's array element by element, and that copy runs unspecialised when the caller
    /// is in another module (a million cabs: 24 ms of a 128 ms load). So a bulk load keeps
    /// the caller's array itself (copy-on-write), and a removed entry's payload stays until
    /// its id is reused: free for the fleet's `Int32`, and the one thing to know if a
    /// payload owns something large.
    @usableFromInline var payloads: [Payload]

    /// An empty tree.
    public init() {
        core = RTreeCore()
        payloads = []
    }

    /// Builds a tree from many points at once (see `RTreeCore.init(coordinates:tags:stamps:)`).
    /// Entry ids are the input positions: entry i is `coordinates[i]`.
    public init(coordinates: [Coordinate], tags: [UInt32], stamps: [Int64], payloads: [Payload]) throws(RTreeError) {
        guard coordinates.count == tags.count && tags.count == stamps.count && stamps.count == payloads.count else {
            throw .lengthMismatch(coordinates: coordinates.count, tags: tags.count, stamps: stamps.count, payloads: payloads.count)
        }
        core = RTreeCore(coordinates: coordinates, tags: tags, stamps: stamps)
        self.payloads = payloads
    }

    /// The number of live entries.
    @inlinable public var count: Int { core.count }

    /// The payload of a live entry, or nil when `entry` is not in the tree.
    ///
    /// Inlinable, as are `count` and the searches: specialised in the caller's module, they
    /// call the non-generic core directly (see `RTreeCore`) instead of going through an
    /// unspecialised generic entry point that needs the tree copied.
    @inlinable public subscript(entry: EntryID) -> Payload? {
        core.contains(entry) ? payloads[Int(entry.rawValue)] : nil
    }

    /// The payload of an answer this tree's search returned, with no update since: that entry
    /// is live, so only the id's range is checked (nil outside it), not the entry's leaf.
    ///
    /// Why: the liveness check of `subscript(entry:)` reads the entry's place, a cache miss
    /// of its own for every answer; `perf` put it at a tenth of a fleet query.
    @inlinable public func payload(of found: Neighbour) -> Payload? {
        let e = Int(found.entry.rawValue)
        return e >= 0 && e < payloads.count ? payloads[e] : nil
    }

    /// Asks the memory for the payloads of a search's answers before they are read with
    /// `payload(of:)`, so that their cache misses overlap instead of coming one by one.
    @inlinable package func prefetchPayloads(of found: [Neighbour]) {
        payloads.withUnsafeBufferPointer { b in
            for n in found {
                let e = Int(n.entry.rawValue)
                if e >= 0 && e < b.count { wayfare_prefetch(b.baseAddress! + e) }
            }
        }
    }

    /// Asks the memory for what `move` of `entry` will read first (its place and position).
    /// For a run of moves known in advance, such as a batch of reports: called a few moves
    /// ahead, and `prefetchLeaf(of:)` a move or two later, the misses of several moves
    /// overlap instead of coming one by one. Any id is safe.
    @inlinable package func prefetchPlace(of entry: EntryID) { core.prefetchPlace(of: entry) }

    /// The second stage of `prefetchPlace(of:)`: the entry's leaf slot and leaf. It reads the
    /// entry's place, which the first stage should have brought in by then.
    @inlinable package func prefetchLeaf(of entry: EntryID) { core.prefetchLeaf(of: entry) }

    /// The position of a live entry, or nil when `entry` is not in the tree.
    public func position(of entry: EntryID) -> Coordinate? { core.contains(entry) ? core.position(of: entry) : nil }

    /// The tag and stamp of a live entry, or nil when `entry` is not in the tree.
    public func tagAndStamp(of entry: EntryID) -> (tag: UInt32, stamp: Int64)? {
        core.contains(entry) ? core.tagAndStamp(of: entry) : nil
    }

    /// The number of leaves, empty ones included (for statistics and tests).
    public var leafCount: Int { core.leafCount }

    /// True when `entry` names a live entry of this tree.
    public func contains(_ entry: EntryID) -> Bool { core.contains(entry) }

    // MARK: Updates

    /// Inserts a point; returns its entry id (a removed entry's id may be reused).
    @discardableResult
    public mutating func insert(_ c: Coordinate, tag: UInt32, stamp: Int64, payload: Payload) -> EntryID {
        let entry = core.insert(c, tag: tag, stamp: stamp)
        let e = Int(entry.rawValue)
        if e == payloads.count { payloads.append(payload) } else { payloads[e] = payload }
        return entry
    }

    /// Removes an entry; returns its payload, or nil when it was not live.
    @discardableResult
    public mutating func remove(_ entry: EntryID) -> Payload? {
        guard core.contains(entry) else { return nil }
        core.remove(entry)
        return payloads[Int(entry.rawValue)]
    }

    /// Records a new position for a live entry (a position report); see
    /// `RTreeCore.move(_:to:stamp:)` for what each outcome costs.
    ///
    /// Inlinable like the searches, so that the fleet's calls are specialised.
    @inlinable @discardableResult
    public mutating func move(_ entry: EntryID, to c: Coordinate, stamp: Int64) throws(RTreeError) -> MoveOutcome {
        guard let outcome = core.move(entry, to: c, stamp: stamp) else { throw .notInTree(entry) }
        return outcome
    }

    /// `move(_:to:stamp:)` for a caller that already holds the coordinate's unit vector,
    /// `SpherePoint(c)` (the fleet applies each report to two replicas and converts it once).
    /// A vector that is not `SpherePoint(c)` would file the entry at another place than
    /// `position(of:)` reports, so this stays inside the package.
    @inlinable @discardableResult
    package mutating func move(_ entry: EntryID, to c: Coordinate, unitVector v: SpherePoint, stamp: Int64) throws(RTreeError) -> MoveOutcome {
        assert(v == SpherePoint(c), "the unit vector of another coordinate")
        guard let outcome = core.move(entry, to: c, unitVector: v, stamp: stamp) else { throw .notInTree(entry) }
        return outcome
    }

    /// Changes a live entry's tag (for example a cab's status) in place.
    public mutating func setTag(_ entry: EntryID, to tag: UInt32) throws(RTreeError) {
        guard core.contains(entry) else { throw .notInTree(entry) }
        core.setTag(entry, to: tag)
    }

    // MARK: Searches

    /// The k entries nearest to `point` (great-circle), within `radius` metres, that pass
    /// `filter`, nearest first; ties in distance go to the lower entry id. Written into
    /// `result`; nothing is allocated once the workspace and result have grown.
    @inlinable public func nearest(_ k: Int, to point: Coordinate, within radius: Double = .infinity,
                                   filter: EntryFilter = .all, into result: inout [Neighbour], using w: SearchWorkspace) {
        core.nearest(k, to: point, within: radius, filter: filter, into: &result, using: w)
    }

    /// Convenience form of `nearest(_:to:within:filter:into:using:)` that allocates.
    public func nearest(_ k: Int, to point: Coordinate, within radius: Double = .infinity,
                        filter: EntryFilter = .all) -> [Neighbour] {
        var out: [Neighbour] = []
        core.nearest(k, to: point, within: radius, filter: filter, into: &out, using: SearchWorkspace())
        return out
    }

    /// Every entry within `radius` metres of `point` that passes `filter` (the boundary is
    /// included: see `RadiusBound`). Unsorted unless `sorted`; sorting costs O(n log n).
    public func within(_ radius: Double, of point: Coordinate, filter: EntryFilter = .all, sorted: Bool = false,
                       into result: inout [Neighbour], using w: SearchWorkspace) {
        core.within(radius, of: point, filter: filter, sorted: sorted, into: &result, using: w)
    }

    /// Convenience form of `within(_:of:filter:sorted:into:using:)`, sorted, that allocates.
    public func within(_ radius: Double, of point: Coordinate, filter: EntryFilter = .all) -> [Neighbour] {
        var out: [Neighbour] = []
        core.within(radius, of: point, filter: filter, sorted: true, into: &out, using: SearchWorkspace())
        return out
    }

    /// Every entry inside a latitude/longitude box (edges included) that passes `filter`.
    public func inside(_ area: BoundingBox, filter: EntryFilter = .all, into result: inout [EntryID],
                       using w: SearchWorkspace) {
        core.inside(area, filter: filter, into: &result, using: w)
    }

    /// Entries in order of distance from `point`, produced lazily: stop whenever you like.
    public func neighbours(of point: Coordinate, within radius: Double = .infinity,
                           filter: EntryFilter = .all) -> NeighbourSequence {
        core.neighbours(of: point, within: radius, filter: filter)
    }

    /// Checks the tree's invariants (for tests); returns the first violation, or nil.
    package func invariantViolation() -> String? {
        if let problem = core.invariantViolation() { return problem }
        return payloads.count == core.places.count ? nil : "\(payloads.count) payloads for \(core.places.count) entry ids"
    }
}
