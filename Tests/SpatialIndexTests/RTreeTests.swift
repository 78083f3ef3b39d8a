import Foundation
import Testing
import Geodesy
@testable import SpatialIndex

/// Points around `center`: uniform in a box of ±`spread` degrees, or clustered.
func points(_ n: Int, around center: Coordinate, spread: Double, clustered: Bool, seed: UInt64) -> [Coordinate] {
    var rng = SeededRandom(seed: seed)
    let hubs = (0..<8).map { _ in center.destination(bearing: Double.random(in: 0..<360, using: &rng),
                                                     distance: Double.random(in: 0..<spread * 50_000, using: &rng)) }
    return (0..<n).map { _ in
        if clustered {
            let hub = hubs.randomElement(using: &rng)!
            return hub.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: abs(rng.gaussian()) * 1_500)
        }
        var lon = center.longitude + Double.random(in: -spread...spread, using: &rng)
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(unchecked: max(-90, min(90, center.latitude + Double.random(in: -spread...spread, using: &rng) / 2)), lon)
    }
}

/// The brute-force answer: every point by haversine distance, then id.
func bruteForce(_ pts: [Coordinate?], from q: Coordinate) -> [(id: Int, d: Double)] {
    pts.enumerated().compactMap { i, p in p.map { (i, q.distance(to: $0)) } }.sorted { $0.d < $1.d || ($0.d == $1.d && $0.id < $1.id) }
}

/// Checks a k-nearest answer against brute force: the same distances rank by rank (ties may
/// swap ids), and each id's own distance as reported.
func expectMatches(_ got: [Neighbour], _ truth: [(id: Int, d: Double)], _ pts: [Coordinate?], from q: Coordinate,
                   sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(got.count == truth.count, "count", sourceLocation: sourceLocation)
    for (g, t) in zip(got, truth) {
        #expect(abs(g.distance - t.d) < 1e-6, "rank distance \(g.distance) vs \(t.d)", sourceLocation: sourceLocation)
        #expect(abs(q.distance(to: pts[Int(g.entry.rawValue)]!) - g.distance) < 1e-6, sourceLocation: sourceLocation)
    }
    for (a, b) in zip(got, got.dropFirst()) { #expect(a.distance <= b.distance, sourceLocation: sourceLocation) }
}

func build(_ pts: [Coordinate], tags: [UInt32]? = nil) -> RTree<Int> {
    try! RTree(coordinates: pts, tags: tags ?? Array(repeating: 1, count: pts.count),
          stamps: Array(repeating: 0, count: pts.count), payloads: Array(pts.indices))
}

@Suite struct RTreeAgainstBruteForceTests {
    static let cities: [(String, Coordinate, Double)] = [
        ("New York", Coordinate(unchecked: 40.70, -73.98), 0.5),
        ("Helsinki (60°N)", Coordinate(unchecked: 60.17, 24.94), 0.3),
        ("Svalbard (78°N)", Coordinate(unchecked: 78.22, 15.65), 0.6),
        ("Fiji, across the antimeridian", Coordinate(unchecked: -17.0, 179.9), 0.4),
        ("near the North Pole", Coordinate(unchecked: 89.7, 0), 0.5),
    ]

    @Test(arguments: cities, [false, true])
    func nearestAndRadiusMatchBruteForce(city: (String, Coordinate, Double), clustered: Bool) {
        let pts = points(3_000, around: city.1, spread: city.2, clustered: clustered, seed: 17)
        let tree = build(pts)
        #expect(tree.invariantViolation() == nil)
        let queries = points(60, around: city.1, spread: city.2 * 1.2, clustered: false, seed: 99)
        let w = SearchWorkspace(); var out: [Neighbour] = []
        for q in queries {
            let truth = bruteForce(pts, from: q)
            // k = 1 keeps the best alone (`OneBest`), k up to `FewBest.limit` a sorted buffer,
            // larger k the heap (`KBest`): each form, and both sides of the limit.
            for k in [1, 10, FewBest.limit, FewBest.limit + 1, 40] {
                tree.nearest(k, to: q, into: &out, using: w)
                expectMatches(out, Array(truth.prefix(k)), pts, from: q)
            }
            for r in [300.0, 2_000] {
                tree.within(r, of: q, sorted: true, into: &out, using: w)
                expectMatches(out, truth.filter { $0.d <= r }, pts, from: q)
                for k in [1, 5] {   // k = 1 runs a search of its own (`OneBest`)
                    tree.nearest(k, to: q, within: r, into: &out, using: w)
                    expectMatches(out, Array(truth.filter { $0.d <= r }.prefix(k)), pts, from: q)
                }
            }
            // The incremental search yields the same order, lazily.
            let first = Array(tree.neighbours(of: q).prefix(25))
            expectMatches(first, Array(truth.prefix(25)), pts, from: q)
        }
    }

    @Test func antimeridianNeighboursAreFoundAcrossIt() throws {
        let west = try Coordinate(latitude: 0, longitude: 179.9999), east = try Coordinate(latitude: 0, longitude: -179.9999)
        let far = try Coordinate(latitude: 0, longitude: 179.99)
        let tree = build([east, far])
        let n = tree.nearest(1, to: west)
        #expect(n.first?.entry == EntryID(rawValue: 0))
        #expect(abs(n[0].distance - 22.24) < 0.01)
    }

    @Test func misuseIsATypedErrorOrNilNotATrap() throws {
        let pts = (0..<50).map { Coordinate(unchecked: 60 + Double($0) * 0.001, 24.9) }
        #expect(throws: RTreeError.lengthMismatch(coordinates: 50, tags: 49, stamps: 50, payloads: 50)) {
            try RTree(coordinates: pts, tags: Array(repeating: 1, count: 49), stamps: Array(repeating: 0, count: 50), payloads: Array(0..<50))
        }
        var tree = build(pts)
        let gone = EntryID(rawValue: 7), never = EntryID(rawValue: 5_000)
        #expect(tree.remove(gone) == 7)
        #expect(tree.remove(gone) == nil)
        for e in [gone, never, EntryID(rawValue: -1)] {
            #expect(tree[e] == nil && tree.position(of: e) == nil && tree.tagAndStamp(of: e) == nil)
            #expect(throws: RTreeError.notInTree(e)) { try tree.move(e, to: pts[0], stamp: 1) }
            #expect(throws: RTreeError.notInTree(e)) { try tree.setTag(e, to: 2) }
        }
        #expect(tree[EntryID(rawValue: 8)] == 8 && tree.invariantViolation() == nil && tree.count == 49)
    }

    @Test func filtersAreAppliedDuringTheSearch() throws {
        let pts = points(2_000, around: Coordinate(unchecked: 40.7, -73.9), spread: 0.3, clustered: true, seed: 5)
        let tags = pts.indices.map { UInt32(1 << ($0 % 3)) | UInt32(1 << (16 + $0 % 2)) }
        let tree = build(pts, tags: tags)
        let filter = EntryFilter(anyOf: 0b110, alsoAnyOf: 1 << 16)  // types 1 or 2, status 0
        let q = Coordinate(unchecked: 40.71, -73.95)
        let eligible: [Coordinate?] = pts.indices.map { i in (tags[i] & 0b110 != 0 && tags[i] & (1 << 16) != 0) ? pts[i] : nil }
        expectMatches(tree.nearest(10, to: q, filter: filter), Array(bruteForce(eligible, from: q).prefix(10)), pts, from: q)
        expectMatches(tree.nearest(1, to: q, filter: filter), Array(bruteForce(eligible, from: q).prefix(1)), pts, from: q)
        #expect(tree.nearest(1, to: q, filter: EntryFilter(anyOf: 1 << 30)).isEmpty)   // no entry passes
        expectMatches(tree.within(1_500, of: q, filter: filter), bruteForce(eligible, from: q).filter { $0.d <= 1_500 }, pts, from: q)
        // A stamp filter: only entries reported at or after 1000.
        var stamped = try RTree<Int>(coordinates: pts, tags: tags, stamps: pts.indices.map { Int64($0) }, payloads: Array(pts.indices))
        let fresh: [Coordinate?] = pts.indices.map { $0 >= 1_000 ? pts[$0] : nil }
        expectMatches(stamped.nearest(7, to: q, filter: EntryFilter(minimumStamp: 1_000)), Array(bruteForce(fresh, from: q).prefix(7)), pts, from: q)
        try stamped.setTag(EntryID(rawValue: 1_999), to: 1 << 20)
        #expect(stamped.tagAndStamp(of: EntryID(rawValue: 1_999)).map { $0 == (1 << 20, 1_999) } == true)
        // Stamps use all 64 bits: the bound sits between two stamps beyond 32 bits.
        let wide = try RTree<Int>(coordinates: pts, tags: tags, stamps: pts.indices.map { Int64($0) << 40 }, payloads: Array(pts.indices))
        expectMatches(wide.nearest(7, to: q, filter: EntryFilter(minimumStamp: (1_000 << 40) - 1)), Array(bruteForce(fresh, from: q).prefix(7)), pts, from: q)
        // The 64-bit stamp took the padding after the 32-bit one: a leaf slot is still 40 bytes.
        #expect(MemoryLayout<LeafSlot>.stride == 40)
    }

    @Test func anAnswersPayloadIsReadWithoutItsPlace() throws {
        let pts = points(500, around: Coordinate(unchecked: 40.7, -73.9), spread: 0.2, clustered: false, seed: 9)
        let tree = try RTree<String>(coordinates: pts, tags: Array(repeating: 1, count: pts.count),
                                     stamps: Array(repeating: 0, count: pts.count), payloads: pts.indices.map { "cab \($0)" })
        let found = tree.nearest(20, to: Coordinate(unchecked: 40.71, -73.92))
        #expect(found.count == 20)
        #expect(found.map { tree.payload(of: $0) } == found.map { tree[$0.entry] })
        // An answer of a larger tree names an id this one does not have: nil, not a trap.
        let larger = try RTree<Int>(coordinates: pts + pts, tags: Array(repeating: 1, count: 2 * pts.count),
                                    stamps: Array(repeating: 0, count: 2 * pts.count), payloads: Array(0..<(2 * pts.count)))
        let beyond = larger.nearest(2 * pts.count, to: pts[0]).filter { Int($0.entry.rawValue) >= pts.count }
        #expect(!beyond.isEmpty && beyond.allSatisfy { tree.payload(of: $0) == nil })
    }

    @Test func boxQueryMatchesBruteForce() throws {
        let pts = points(3_000, around: Coordinate(unchecked: 60.17, 24.94), spread: 0.3, clustered: false, seed: 8)
        let tree = build(pts)
        let box = try BoundingBox(south: 60.12, west: 24.80, north: 60.20, east: 25.00)
        let w = SearchWorkspace(); var out: [EntryID] = []
        tree.inside(box, into: &out, using: w)
        #expect(Set(out.map { Int($0.rawValue) }) == Set(pts.indices.filter { box.contains(pts[$0]) }))
    }
}

@Suite struct RTreeEdgeCaseTests {
    let q = Coordinate(unchecked: 40.7, -73.9)

    @Test func emptyTreeAnswersNothing() {
        let tree = RTree<Int>()
        #expect(tree.nearest(5, to: q).isEmpty)
        #expect(tree.within(1_000, of: q).isEmpty)
        #expect(Array(tree.neighbours(of: q)).isEmpty)
        #expect(tree.invariantViolation() == nil)
        #expect(build([]).nearest(1, to: q).isEmpty)
    }

    @Test func kLargerThanTheSetReturnsEverything() {
        let pts = points(37, around: q, spread: 0.1, clustered: false, seed: 1)
        let tree = build(pts)
        expectMatches(tree.nearest(100, to: q), bruteForce(pts, from: q), pts, from: q)
        #expect(tree.nearest(0, to: q).isEmpty)
    }

    @Test func manyEntriesAtOnePointComeInIdOrder() {
        let spot = Coordinate(unchecked: 40.75, -73.98)
        var tree = build(Array(repeating: spot, count: 200))
        let n = tree.nearest(10, to: q)
        #expect(n.map(\.entry.rawValue) == Array(0..<10))
        #expect(Set(n.map(\.distance)).count == 1)
        // The nearest alone breaks the tie the same way, whichever leaf it reads first.
        #expect(tree.nearest(1, to: q).map(\.entry.rawValue) == [0])
        // Inserting more at the same point splits leaves of identical points.
        for i in 0..<100 { tree.insert(spot, tag: 1, stamp: 0, payload: 200 + i) }
        #expect(tree.invariantViolation() == nil)
        #expect(tree.within(0, of: spot).count == 300)
        // With the lowest id gone, the next lowest, wherever the splits put it.
        #expect(tree.remove(EntryID(rawValue: 0)) == 0)
        #expect(tree.nearest(1, to: spot).map(\.entry.rawValue) == [1])
    }

    @Test func exactTiesGoToTheLowerIdAcrossLeaves() {
        // 400 spots, each held by three entries 400 ids apart, the third copies inserted one
        // by one: copies of a spot straddle leaves (24 a leaf), so a search often meets a
        // higher id first. A query at a spot finds its three copies at exactly 0.
        let spots = points(400, around: q, spread: 0.05, clustered: false, seed: 3)
        var tree = build(spots + spots)
        for s in spots.indices { #expect(tree.insert(spots[s], tag: 1, stamp: 0, payload: 800 + s) == EntryID(rawValue: Int32(800 + s))) }
        #expect(tree.invariantViolation() == nil)
        var straddled = 0
        for s in spots.indices {
            let copies = [s, 400 + s, 800 + s]
            #expect(tree.nearest(1, to: spots[s]).map { Int($0.entry.rawValue) } == [s])
            #expect(tree.nearest(3, to: spots[s]).map { Int($0.entry.rawValue) } == copies)
            // Fewer places than copies: a copy met once the kept ones are all at 0 must still
            // displace a higher id (a leaf loop that drops points at exactly the k-th
            // distance fails here).
            #expect(tree.nearest(2, to: spots[s]).map { Int($0.entry.rawValue) } == Array(copies.prefix(2)))
            if Set(copies.map { tree.core.places[$0].leaf }).count > 1 { straddled += 1 }
        }
        #expect(straddled >= 20, "too few spots whose copies lie in different leaves: \(straddled)")
    }

    /// The bare search (no filter, no radius) runs its own leaf loop; it must turn away what
    /// the filtered loop does under `.all`: a zero tag (which the tree's docs forbid, and
    /// does not check). Every third entry has one; brute force over the others is the oracle.
    @Test func theDefaultFilterTurnsAwayZeroTagsInEveryLoop() {
        let pts = points(3_000, around: q, spread: 0.05, clustered: true, seed: 11)
        let tags = pts.indices.map { $0 % 3 == 0 ? UInt32(0) : 1 }
        let tree = build(pts, tags: tags)
        for query in points(60, around: q, spread: 0.05, clustered: true, seed: 12) {
            let tagged = pts.indices.filter { tags[$0] != 0 }
                .sorted { (query.distance(to: pts[$0]), $0) < (query.distance(to: pts[$1]), $1) }
            for k in [1, 10, 40] {
                #expect(tree.nearest(k, to: query).map { Int($0.entry.rawValue) } == Array(tagged.prefix(k)), "k = \(k)")
                // With a radius, the filtered loop: the same answers.
                #expect(tree.nearest(k, to: query, within: 1e7).map { Int($0.entry.rawValue) } == Array(tagged.prefix(k)))
            }
        }
    }

    @Test func radiusBoundaryIsInclusiveAndConsistent() {
        // Points placed at exactly r, and a hair either side, on many bearings.
        let r = 1_000.0
        var pts: [Coordinate] = []
        for b in stride(from: 0.0, to: 360, by: 7.5) {
            for d in [r * (1 - 1e-9), r, r * (1 + 1e-9), r.nextUp, r.nextDown] { pts.append(q.destination(bearing: b, distance: d)) }
        }
        let tree = build(pts)
        let got = tree.within(r, of: q)
        // The rule: included exactly when the reported distance is ≤ r.
        for n in got { #expect(n.distance <= r) }
        let everything = tree.within(2 * r, of: q)
        let expected = Set(everything.filter { $0.distance <= r }.map(\.entry))
        #expect(Set(got.map(\.entry)) == expected)
        #expect(got.count > pts.count / 3)   // the points at r itself are in
        #expect(tree.nearest(1_000, to: q, within: r).count == got.count)
        // The nearest alone within a radius that holds nothing: nothing.
        #expect(tree.nearest(1, to: q, within: r / 2).isEmpty)
        #expect(tree.nearest(1, to: q, within: r).first.map { $0.distance <= r } == true)
    }

    @Test func insertRemoveAndMoveKeepTheTreeRight() throws {
        var rng = SeededRandom(seed: 21)
        var pts: [Coordinate?] = []
        var tree = RTree<Int>()
        // Insert one by one (splits at every level), remove a third, move the rest.
        for i in 0..<4_000 {
            let c = Coordinate(unchecked: Double.random(in: 40.5...40.9, using: &rng), Double.random(in: -74.3 ... -73.7, using: &rng))
            #expect(tree.insert(c, tag: 1, stamp: 0, payload: i).rawValue == Int32(i))
            pts.append(c)
        }
        #expect(tree.invariantViolation() == nil)
        for i in stride(from: 0, to: 4_000, by: 3) {
            #expect(tree.remove(EntryID(rawValue: Int32(i))) == i)
            pts[i] = nil
        }
        #expect(tree.remove(EntryID(rawValue: 0)) == nil)
        #expect(tree.invariantViolation() == nil)
        var outcomes: [MoveOutcome: Int] = [:]
        for _ in 0..<3 {
            for i in pts.indices where pts[i] != nil {
                // Small steps mostly, sometimes across the whole map.
                let c = Int.random(in: 0..<10, using: &rng) == 0
                    ? Coordinate(unchecked: Double.random(in: 40.5...40.9, using: &rng), Double.random(in: -74.3 ... -73.7, using: &rng))
                    : pts[i]!.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...250, using: &rng))
                outcomes[try tree.move(EntryID(rawValue: Int32(i)), to: c, stamp: 1), default: 0] += 1
                pts[i] = c
            }
        }
        #expect(outcomes.count == 3)   // every path was taken
        #expect(tree.invariantViolation() == nil)
        for q in points(40, around: Coordinate(unchecked: 40.7, -74.0), spread: 0.4, clustered: false, seed: 3) {
            expectMatches(tree.nearest(10, to: q), Array(bruteForce(pts, from: q).prefix(10)), pts.map { $0 ?? q }, from: q)
        }
        // Freed ids are reused.
        let again = tree.insert(Coordinate(unchecked: 40.7, -74), tag: 1, stamp: 0, payload: -1)
        #expect(again.rawValue % 3 == 0)
    }

    @Test func bulkLoadOfHeavilyRepeatedPointsKeepsInvariants() {
        // 30,000 cabs on 40 taxi ranks: the packing's partitions meet long runs of equal keys.
        let ranks = points(40, around: q, spread: 0.2, clustered: false, seed: 41)
        let pts = (0..<30_000).map { ranks[($0 * 7919) % ranks.count] }
        let tree = build(pts)
        #expect(tree.invariantViolation() == nil)
        for r in ranks.prefix(5) {
            #expect(tree.within(0, of: r).count == pts.filter { $0 == r }.count)
            expectMatches(tree.nearest(5, to: r), Array(bruteForce(pts, from: r).prefix(5)), pts, from: r)
        }
    }

    @Test func bulkLoadOfSortedAndLopsidedInputKeepsInvariants() {
        // The packing narrows long ranges with pivots from a strided sample. Input sorted
        // along an axis makes that sample a ramp, and a fleet mostly parked at one rank gives
        // a sample of one value: both must still cut at the exact median.
        let spread = points(40_000, around: q, spread: 0.3, clustered: false, seed: 51)
        let sorted = spread.sorted { ($0.longitude, $0.latitude) < ($1.longitude, $1.latitude) }
        let rank = Coordinate(unchecked: q.latitude + 0.01, q.longitude)
        let lopsided = (0..<30_000).map { $0 % 10 == 0 ? spread[$0] : rank }
        for pts in [sorted, lopsided] {
            let tree = build(pts)
            #expect(tree.invariantViolation() == nil)
            // Packed leaves: an even split gives every leaf between half and all of a packed
            // leaf's points (a cut away from the median would make some fuller or emptier).
            let packed = RTreeCore.packedLeaf
            let counts = tree.core.leaves.map { Int($0.count) }
            #expect(counts.allSatisfy { (packed / 2...packed).contains($0) }, "leaf sizes \(counts.min()!)...\(counts.max()!)")
            for r in [rank, spread[7], spread[9_999]] {
                expectMatches(tree.nearest(5, to: r), Array(bruteForce(pts, from: r).prefix(5)), pts, from: r)
            }
            #expect(tree.within(0, of: rank).count == pts.filter { $0 == rank }.count)
        }
    }

    @Test func movingFleetKeepsLeavesInTheirCells() throws {
        // A packed clustered fleet driven for three rounds of up to 250 m, at 60° north. The
        // invariants include: every point inside its leaf's cell, sibling cells disjoint.
        let centre = Coordinate(unchecked: 60.17, 24.94)
        var pts = points(20_000, around: centre, spread: 0.3, clustered: true, seed: 21)
        var tree = build(pts)
        let packedLeaves = tree.leafCount
        var rng = SeededRandom(seed: 22)
        var outcomes: [MoveOutcome: Int] = [:]
        for _ in 0..<3 {
            for i in pts.indices {
                pts[i] = pts[i].destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...250, using: &rng))
                outcomes[try tree.move(EntryID(rawValue: Int32(i)), to: pts[i], stamp: 1), default: 0] += 1
            }
        }
        #expect(outcomes.count == 3)
        #expect(tree.invariantViolation() == nil)
        // Leaves take in newcomers before they split: the tree does not fill with half-empty leaves.
        #expect(tree.leafCount < packedLeaves * 5 / 4, "\(tree.leafCount) leaves, \(packedLeaves) packed")
        let w = SearchWorkspace(); var out: [Neighbour] = []
        for q in points(50, around: centre, spread: 0.3, clustered: true, seed: 23) {
            tree.nearest(10, to: q, into: &out, using: w)
            expectMatches(out, Array(bruteForce(pts, from: q).prefix(10)), pts, from: q)
        }
    }

    @Test func cabsGatheringAtOnePointAndLeavingAgain() throws {
        // 300 cabs drive to one rank, then spread out again: cells flat on one wall appear
        // and inner nodes must still split between them.
        var pts = points(2_000, around: q, spread: 0.2, clustered: true, seed: 31)
        var tree = build(pts)
        let rank = Coordinate(unchecked: 40.7527, -73.9772)
        for i in 0..<300 { pts[i] = rank; try tree.move(EntryID(rawValue: Int32(i)), to: rank, stamp: 1) }
        #expect(tree.invariantViolation() == nil)
        #expect(tree.within(0, of: rank).count == 300)
        var rng = SeededRandom(seed: 32)
        for i in 0..<300 {
            pts[i] = rank.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...3_000, using: &rng))
            try tree.move(EntryID(rawValue: Int32(i)), to: pts[i], stamp: 2)
        }
        #expect(tree.invariantViolation() == nil)
        expectMatches(tree.nearest(25, to: rank), Array(bruteForce(pts, from: rank).prefix(25)), pts, from: rank)
    }

    @Test func deletingEveryEntryLeavesAWorkingEmptyTree() {
        let pts = points(1_000, around: q, spread: 0.2, clustered: true, seed: 4)
        var tree = build(pts)
        for i in pts.indices { tree.remove(EntryID(rawValue: Int32(i))) }
        #expect(tree.count == 0)
        #expect(tree.invariantViolation() == nil)
        #expect(tree.nearest(3, to: q).isEmpty)
        tree.insert(q, tag: 1, stamp: 0, payload: 1)
        #expect(tree.nearest(3, to: q).count == 1)
        #expect(tree.invariantViolation() == nil)
    }

    @Test func bulkLoadOfManyKeepsInvariants() {
        let pts = points(50_000, around: q, spread: 0.3, clustered: true, seed: 12)
        let tree = build(pts)
        #expect(tree.count == 50_000)
        #expect(tree.invariantViolation() == nil)
    }
}

/// The frame an R-tree keeps its points in (`SphereFrame`): a rigid motion, so distances
/// are the Earth-centred ones wherever the tree is centred.
@Suite struct SphereFrameTests {
    static let centres: [Coordinate] = [
        Coordinate(unchecked: 40.70, -73.98), Coordinate(unchecked: 78.22, 15.65), Coordinate(unchecked: 90, 0),
        Coordinate(unchecked: -90, 0), Coordinate(unchecked: -17.0, 179.9), Coordinate(unchecked: 0, 0),
    ]

    @Test(arguments: centres)
    func motionKeepsDistancesAndPutsTheCentreAtTheOrigin(centre: Coordinate) {
        let frame = SphereFrame(centredOn: SpherePoint(centre))
        let o = frame.point(centre)
        #expect(abs(o.x) < 1e-15 && abs(o.y) < 1e-15 && abs(o.z) < 1e-15)
        // The rows are orthonormal and right-handed.
        func dot(_ a: SpherePoint, _ b: SpherePoint) -> Double { a.x * b.x + a.y * b.y + a.z * b.z }
        for (a, b, want) in [(frame.east, frame.east, 1.0), (frame.north, frame.north, 1), (frame.up, frame.up, 1),
                             (frame.east, frame.north, 0), (frame.east, frame.up, 0), (frame.north, frame.up, 0)] {
            #expect(abs(dot(a, b) - want) < 1e-15)
        }
        let cross = SpherePoint(x: frame.east.y * frame.north.z - frame.east.z * frame.north.y,
                                y: frame.east.z * frame.north.x - frame.east.x * frame.north.z,
                                z: frame.east.x * frame.north.y - frame.east.y * frame.north.x)
        #expect(dot(cross, frame.up) > 0.999_999)
        // Away from the poles, east is +x and north is +y.
        if abs(centre.latitude) < 89 {
            let east = frame.point(centre.destination(bearing: 90, distance: 1_000))
            let north = frame.point(centre.destination(bearing: 0, distance: 1_000))
            #expect(east.x > 1.5e-4 && abs(east.y) < 1e-7)
            #expect(north.y > 1.5e-4 && abs(north.x) < 1e-7)
        }
        // Distances between points anywhere on the globe, near and far, are kept.
        var rng = SeededRandom(seed: 41)
        for _ in 0..<2_000 {
            let a = Coordinate(unchecked: Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng))
            let b = Bool.random(using: &rng) ? a.destination(bearing: Double.random(in: 0..<360, using: &rng), distance: Double.random(in: 0...5_000, using: &rng))
                : Coordinate(unchecked: Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng))
            let plain = ChordDistance.metres(chord2: SpherePoint(a).chord2(to: SpherePoint(b)))
            let moved = ChordDistance.metres(chord2: frame.point(a).chord2(to: frame.point(b)))
            #expect(abs(plain - moved) < 1e-6, "\(a) to \(b): \(plain) vs \(moved)")
        }
    }

    @Test func pointsWithNoClearCentreKeepTheEarthFrame() {
        #expect(SphereFrame(centredOn: SpherePoint(x: 0, y: 0, z: 0)) == .identity)
        // Six points whose directions cancel out.
        let pts = [Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 180), Coordinate(unchecked: 0, 90),
                   Coordinate(unchecked: 0, -90), Coordinate(unchecked: 90, 0), Coordinate(unchecked: -90, 0)]
        let tree = build(pts)
        #expect(tree.core.frame == .identity)
        #expect(tree.invariantViolation() == nil)
        for q in points(30, around: Coordinate(unchecked: 0, 0), spread: 170, clustered: false, seed: 6) {
            expectMatches(tree.nearest(3, to: q), Array(bruteForce(pts, from: q).prefix(3)), pts, from: q)
        }
    }

    /// The descent leaves the boxes' z gaps out only where they are nearly nothing: a query
    /// and a whole fleet near the centre of a centred frame. Answers match brute force
    /// either way.
    @Test func heightIsLeftOutOfTheBoundsOnlyNearTheCentre() {
        let nyc = Coordinate(unchecked: 40.70, -73.98), tokyo = Coordinate(unchecked: 35.68, 139.69)
        var pts = points(3_000, around: nyc, spread: 0.5, clustered: true, seed: 21)
        var tree = build(pts)
        let w = SearchWorkspace(); var out: [Neighbour] = []
        func check(_ q: Coordinate, flat: Bool) {
            #expect(tree.core.isFlat(around: tree.core.frame.point(q)) == flat, "\(q)")
            let truth = bruteForce(pts, from: q)
            for k in [1, 10] {
                tree.nearest(k, to: q, into: &out, using: w)
                expectMatches(out, Array(truth.prefix(k)), pts, from: q)
            }
            tree.within(5_000, of: q, sorted: true, into: &out, using: w)
            expectMatches(out, truth.filter { $0.d <= 5_000 }, pts, from: q)
        }
        for q in points(20, around: nyc, spread: 0.6, clustered: false, seed: 22) { check(q, flat: true) }
        check(Coordinate(unchecked: 47.6, -122.3), flat: false)   // Seattle: 3,900 km from the centre
        check(tokyo, flat: false)
        // One cab across the globe: no query is flat any more.
        pts.append(tokyo)
        _ = tree.insert(tokyo, tag: 1, stamp: 0, payload: pts.count - 1)
        #expect(tree.invariantViolation() == nil)
        for q in points(10, around: nyc, spread: 0.6, clustered: false, seed: 23) { check(q, flat: false) }
        check(tokyo, flat: false)
        // The Earth-centred frame never is.
        let global = [Coordinate(unchecked: 0, 0), Coordinate(unchecked: 0, 180), Coordinate(unchecked: 0, 90),
                      Coordinate(unchecked: 0, -90), Coordinate(unchecked: 90, 0), Coordinate(unchecked: -90, 0)]
        let globalTree = build(global)
        #expect(globalTree.core.frame == .identity)
        #expect(!globalTree.core.isFlat(around: globalTree.core.frame.point(Coordinate(unchecked: 0, 0))))
    }

    @Test func aTreeStartedByInsertsIsCentredOnItsFirstPointAndRightFarFromIt() throws {
        // The first point is in Helsinki; the fleet that follows is in Sydney, more than a
        // quarter of the globe away, where z − 1 is no longer exact.
        let helsinki = Coordinate(unchecked: 60.17, 24.94), sydney = Coordinate(unchecked: -33.87, 151.21)
        var tree = RTree<Int>()
        let first = tree.insert(helsinki, tag: 1, stamp: 0, payload: -1)
        let up = SpherePoint(helsinki)
        #expect(abs(tree.core.frame.up.x - up.x) < 1e-15 && abs(tree.core.frame.up.y - up.y) < 1e-15
                && abs(tree.core.frame.up.z - up.z) < 1e-15)
        tree.remove(first)
        // The freed id 0 is reused first, so entry i is point i.
        let pts = points(3_000, around: sydney, spread: 0.3, clustered: true, seed: 13)
        for (i, c) in pts.enumerated() { #expect(tree.insert(c, tag: 1, stamp: 0, payload: i).rawValue == Int32(i)) }
        #expect(tree.invariantViolation() == nil)
        let w = SearchWorkspace(); var out: [Neighbour] = []
        for q in points(40, around: sydney, spread: 0.35, clustered: false, seed: 14) {
            let truth = bruteForce(pts, from: q)
            tree.nearest(10, to: q, into: &out, using: w)
            expectMatches(out, Array(truth.prefix(10)), pts, from: q)
            tree.within(1_000, of: q, sorted: true, into: &out, using: w)
            expectMatches(out, truth.filter { $0.d <= 1_000 }, pts, from: q)
        }
        let box = try BoundingBox(south: -33.95, west: 151.1, north: -33.8, east: 151.3)
        var inside: [EntryID] = []
        tree.inside(box, into: &inside, using: w)
        #expect(!inside.isEmpty)
        #expect(Set(inside.map { Int($0.rawValue) }) == Set(pts.indices.filter { box.contains(pts[$0]) }))
    }
}
