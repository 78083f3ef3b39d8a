/// Many-to-many on the contraction hierarchy: the fastest time (and that route's length)
/// from each of a few sources to each of a few targets, as the map matcher needs between
/// the candidates of two consecutive reports.
///
/// Bucket-based, in the manner of Knopp et al. (2007): one upward search from each target
/// along the `down` arcs leaves in a bucket at every node it settles the target's cost
/// from that node; one upward search from each source along the `up` arcs then scans the
/// buckets of the nodes it settles. Every fastest route in a hierarchy climbs and then
/// descends, so the cheapest source-side cost plus bucket cost over the nodes both sides
/// settle is exact. That is |S| + |T| small searches, where a many-to-one per target would
/// walk every source's upward space again for each target.
extension Router {
    /// One bucket entry: target `target` is `cost` ms (and `length` dm) from the node whose
    /// list it is in; `next` is the list's next entry (-1 at its end).
    struct BucketEntry {
        var target: Int32, next: Int32, cost: UInt32, length: UInt32
    }

    /// One cell of a many-to-many table: the fastest time (ms) and that route's length (dm);
    /// `ms` is `UInt32.max` where no route arrives within the limit.
    struct TableCell { var ms: UInt32, dm: UInt32 }

    /// The fastest arrival from each source at each target within `limitSeconds`, row by row:
    /// `table[i * targets.count + j]` is from `sources[i]` to `targets[j]`, nil when it takes
    /// longer (or no road leads there). Each time equals the one-to-one fastest route's.
    func table(from sources: [Snap], to targets: [Snap], limitSeconds: Double) -> [ETA?] {
        var cells: [TableCell] = []
        table(from: sources[...], to: targets[...], limitSeconds: limitSeconds, into: &cells)
        return cells.map { $0.ms == .max ? nil : ETA(seconds: Double($0.ms) / 1000, metres: Double($0.dm) / 10) }
    }

    /// `table(from:to:limitSeconds:)` into the caller's buffer, which a matcher keeps from
    /// step to step (no array made per step).
    ///
    /// With `maxLengthDm`, neither side follows a path longer than that (dm): a pair whose
    /// fastest route is no longer is still exact; another may be found along a slower route
    /// (each of its halves, up from either end, within the bound) or not at all.
    func table(from sources: ArraySlice<Snap>, to targets: ArraySlice<Snap>, limitSeconds: Double, maxLengthDm: UInt32 = .max,
               into best: inout [TableCell]) {
        let limit = UInt32(min(Double(UInt32.max - 1), max(0, limitSeconds * 1000)))
        let g = network, ch = g.hierarchies[Metric.time.index], n = g.nodeCount
        // The searches run on local arrays, moved out of the router and back: the loops
        // below then touch plain locals, not a class's storage checked on every access.
        var back = SearchSide(nodeCount: 0), front = SearchSide(nodeCount: 0)
        var lengthsB: [UInt32] = [], lengthsF: [UInt32] = [], seedList: [Seed] = [], settledList: [UInt32] = []
        var heads: [Int32] = [], stamps: [UInt32] = [], entries: [BucketEntry] = []
        swap(&back, &backward); swap(&front, &forward); swap(&lengthsB, &lengthB); swap(&lengthsF, &lengthF)
        swap(&seedList, &targetSeeds); swap(&settledList, &settledNodes)
        swap(&heads, &bucketHead); swap(&stamps, &bucketStamp); swap(&entries, &buckets)
        defer {
            swap(&back, &backward); swap(&front, &forward); swap(&lengthsB, &lengthB); swap(&lengthsF, &lengthF)
            swap(&seedList, &targetSeeds); swap(&settledList, &settledNodes)
            swap(&heads, &bucketHead); swap(&stamps, &bucketStamp); swap(&entries, &buckets)
        }
        if heads.count != n { heads = .init(repeating: -1, count: n); stamps = .init(repeating: 0, count: n) }
        var (gen, bucketGen) = takeGenerations(searches: sources.count + targets.count, bucketStamps: &stamps) {
            back.resetStamps(); front.resetStamps()
        }
        entries.removeAll(keepingCapacity: true)
        var settledCount = 0

        // The targets' searches fill the buckets.
        for (j, t) in targets.enumerated() {
            gen += 1
            seedList.removeAll(keepingCapacity: true)
            seeds(of: t, metric: .time, leaving: false, ranks: ch.rank, into: &seedList)
            plant(seedList, in: &back, push: true, gen: gen)
            plantLengths(seedList, of: t, leaving: false, side: back, into: &lengthsB)
            settledList.removeAll(keepingCapacity: true)
            settledCount += ch.settleUpwards(&back, lengths: &lengthsB, originalLengths: g.lengthDm, limit: limit,
                                             maxLength: maxLengthDm, gen: gen,
                                             settled: &settledList)
            for v32 in settledList {
                let v = Int(v32)
                let head = stamps[v] == bucketGen ? heads[v] : -1
                stamps[v] = bucketGen; heads[v] = Int32(entries.count)
                entries.append(BucketEntry(target: Int32(j), next: head, cost: back.labels[v].dist, length: lengthsB[v]))
            }
        }

        // The sources' searches read them.
        best.removeAll(keepingCapacity: true)
        best.append(contentsOf: repeatElement(TableCell(ms: .max, dm: 0), count: sources.count * targets.count))
        for (i, s) in sources.enumerated() {
            gen += 1
            seedList.removeAll(keepingCapacity: true)
            seeds(of: s, metric: .time, leaving: true, ranks: ch.rank, into: &seedList)
            plant(seedList, in: &front, push: true, gen: gen)
            plantLengths(seedList, of: s, leaving: true, side: front, into: &lengthsF)
            settledCount += ch.scanUpwards(&front, lengths: &lengthsF, originalLengths: g.lengthDm, limit: limit,
                                           maxLength: maxLengthDm, gen: gen,
                                           buckets: entries, head: heads, stamp: stamps, bucketGen: bucketGen,
                                           row: i * targets.count, best: &best)
            // The same street, straight ahead: no node on the way.
            for (j, t) in targets.enumerated() where s.piece == t.piece {
                if let (ms, e) = direct(s, t, metric: .time), ms < best[i * targets.count + j].ms {
                    best[i * targets.count + j] = TableCell(ms: ms, dm: Self.partial(abs(t.fraction - s.fraction), g.lengthDm[Int(e)]))
                }
            }
        }
        self.settled = settledCount
        for k in best.indices where best[k].ms > limit { best[k].ms = .max }
    }
}

extension Router {
    /// Takes a generation for each of `searches` searches and one for the buckets, all
    /// before the first search: returns the generation to count up from (each search adds
    /// one first) and the buckets' generation. On wrap-around, `resetSides` clears the
    /// search sides' stamps and the buckets' `stamps` are cleared here.
    func takeGenerations(searches: Int, bucketStamps stamps: inout [UInt32], resetSides: () -> Void) -> (UInt32, UInt32) {
        let count = UInt32(searches)
        if generation > UInt32.max - count - 1 { resetSides(); generation = 0 }
        let first = generation
        generation += count
        bucketGeneration &+= 1
        if bucketGeneration == 0 { for i in stamps.indices { stamps[i] = 0 }; bucketGeneration = 1 }
        return (first, bucketGeneration)
    }
}

extension ContractionHierarchy {
    /// The source side of a bucket many-to-many: settles, in cost order up to `limit`, every
    /// node the planted `side` reaches along the `up` arcs, and at each one offers every
    /// target in its bucket list (`head`, valid where `stamp == bucketGen`) to `best[row + target]`.
    /// Paths longer than `maxLength` (dm) are not followed.
    /// Returns the nodes settled.
    func scanUpwards(_ side: inout SearchSide, lengths: inout [UInt32], originalLengths: [UInt32], limit: UInt32,
                     maxLength: UInt32, gen: UInt32,
                     buckets: [Router.BucketEntry], head: [Int32], stamp: [UInt32], bucketGen: UInt32,
                     row: Int, best: inout [Router.TableCell]) -> Int {
        var count = 0
        while let (d, u) = side.heap.pop() {
            if d > limit { break }
            guard d == side.labels[u].dist else { continue }
            count += 1
            if stamp[u] == bucketGen {
                var k = Int(head[u])
                while k >= 0 {
                    let b = buckets[k], c = plus(d, b.cost), slot = row + Int(b.target)
                    if c < best[slot].ms { best[slot] = Router.TableCell(ms: c, dm: plus(lengths[u], b.length)) }
                    k = Int(b.next)
                }
            }
            for k in Int(upFirst[u])..<Int(upFirst[u + 1]) {
                let a = up[k], x = Int(a.node), nd = plus(d, a.weight)
                // The length only for an arc that improves (see `settleUpwards`).
                guard nd <= limit, side.improves(x, to: nd, gen: gen) else { continue }
                let length = plus(lengths[u], lengthDm(of: a.edge, original: originalLengths))
                if length <= maxLength, side.improve(x, to: nd, edge: a.edge, from: u, gen: gen) {
                    lengths[x] = length
                    side.heap.push(nd, x)
                }
            }
        }
        return count
    }
}

extension Router {
    /// The routes of the last `localTable`, edge by edge, so that a caller can follow the
    /// one it picks without searching again; and the scratch space that finds them.
    struct TablePaths {
        /// Cell c's route is `edges[start[c] ..< start[c] + count[c]]`, laid out as
        /// `collectPath` lays out a route (the source seed's edge, the edges between, the
        /// target seed's edge; `none` for a seed at a junction), or the one edge of the
        /// direct way along a piece when `direct[c]`. A count of 0: no route.
        var start: [Int32] = [], count: [Int32] = [], direct: [Bool] = []
        var edges: [UInt32] = []
        /// Per target of the row being searched: the node where its best route met its
        /// bucket, and the bucket entry; and per bucket entry, the target seed's edge.
        var meetNode: [Int32] = [], meetEntry: [Int32] = [], entryEdge: [UInt32] = []
        /// Per target of the row being searched: whether the caller still wants its route.
        var wanted: [Bool] = []

        /// Room for `cells` cells, none with a route. The arrays are never shrunk: only the
        /// first `cells` are read, and `start` and `direct` only where `count` is not 0.
        mutating func reset(cells: Int) {
            count.fillPrefix(cells, with: 0)
            start.grow(to: cells, with: 0); direct.grow(to: cells, with: false)
            edges.removeAll(keepingCapacity: true); entryEdge.removeAll(keepingCapacity: true)
        }
    }

    /// `table(from:to:limitSeconds:maxLengthDm:into:)` for steps a few hundred metres long,
    /// by plain Dijkstra on the road graph from each source, no hierarchy: the same times.
    ///
    /// Why: a step between two reports seconds apart spans a block or two. A hierarchy
    /// search from each of its ends climbs into the city's top nodes whatever the distance,
    /// while a Dijkstra bounded by `maxLengthDm` settles only the streets around the
    /// reports, and stops as soon as every target is reached. Each target's arriving seeds
    /// are its bucket (the same lists as the hierarchy's buckets, one entry per seed).
    ///
    /// No route longer than `maxLengthDm` is found: a pair whose fastest route is longer is
    /// found along a slower route within the bound, or not at all. Each route found is left
    /// in `tablePaths`.
    ///
    /// A caller that can tell, from the rows done, which targets a source can no longer
    /// serve better passes `order` (the sources' indices, in the order to search them),
    /// `wanted` (called before a source's search with one flag per target, all set; it
    /// clears those the source cannot improve) and `rowDone` (called with the source's final
    /// cells): a source with no target wanted is not searched, and one search stops once
    /// its wanted targets are reached. Cells of targets not wanted stay without a route.
    func localTable(from sources: ArraySlice<Snap>, to targets: ArraySlice<Snap>, limitSeconds: Double, maxLengthDm: UInt32,
                    into best: inout [TableCell], order: [Int]? = nil, wanted: (Int, inout [Bool]) -> Void = { _, _ in },
                    rowDone: (Int, ArraySlice<TableCell>) -> Void = { _, _ in }) {
        // The scratch arrays are passed in place. Why not moved into locals and back, as the
        // other searches do: a dozen arrays emptied and released every call were 3 % of a
        // trace's instructions at σ 5 m every 5 s.
        Self.searchLocally(self, from: sources, to: targets, limitSeconds: limitSeconds, maxLengthDm: maxLengthDm,
                           front: &forward, lengths: &lengthF, seedList: &targetSeeds, heads: &bucketHead, stamps: &bucketStamp,
                           entries: &buckets, paths: &tablePaths, into: &best, order: order, wanted: wanted, rowDone: rowDone)
    }

    /// The body of `localTable`, on the router's scratch arrays.
    private static func searchLocally(_ router: Router, from sources: ArraySlice<Snap>, to targets: ArraySlice<Snap>,
                                      limitSeconds: Double, maxLengthDm: UInt32, front: inout SearchSide, lengths: inout [UInt32],
                                      seedList: inout [Seed], heads: inout [Int32], stamps: inout [UInt32],
                                      entries: inout [BucketEntry], paths: inout TablePaths, into best: inout [TableCell],
                                      order: [Int]?, wanted: (Int, inout [Bool]) -> Void,
                                      rowDone: (Int, ArraySlice<TableCell>) -> Void) {
        let limit = UInt32(min(Double(UInt32.max - 1), max(0, limitSeconds * 1000)))
        let g = router.network, n = g.nodeCount
        if heads.count != n { heads = .init(repeating: -1, count: n); stamps = .init(repeating: 0, count: n) }
        paths.reset(cells: sources.count * targets.count)
        var (gen, bucketGen) = router.takeGenerations(searches: sources.count, bucketStamps: &stamps) {
            front.resetStamps(); router.backward.resetStamps()
        }
        entries.removeAll(keepingCapacity: true)

        // Each target's arriving seeds: from the seed node, the seed's cost and length to it.
        for (j, t) in targets.enumerated() {
            seedList.removeAll(keepingCapacity: true)
            router.seeds(of: t, metric: .time, leaving: false, ranks: nil, into: &seedList)
            for s in seedList {
                let v = Int(s.node)
                let head = stamps[v] == bucketGen ? heads[v] : -1
                stamps[v] = bucketGen; heads[v] = Int32(entries.count)
                let length = s.edge == RoadNetwork.none ? 0
                    : Self.partial(router.share(of: t, leaving: false, along: Int(s.edge)), g.lengthDm[Int(s.edge)])
                entries.append(BucketEntry(target: Int32(j), next: head, cost: s.cost, length: length))
                paths.entryEdge.append(s.edge)
            }
        }

        best.removeAll(keepingCapacity: true)
        best.append(contentsOf: repeatElement(TableCell(ms: .max, dm: 0), count: sources.count * targets.count))
        var settledCount = 0
        precondition(order.map { $0.count == sources.count && $0.allSatisfy { (0..<sources.count).contains($0) } } ?? true)
        for i in order ?? Array(0..<sources.count) {
            let s = sources[sources.startIndex + i]
            gen += 1
            let row = i * targets.count
            paths.wanted.fillPrefix(targets.count, with: true)
            wanted(i, &paths.wanted)
            if !paths.wanted[..<targets.count].contains(true) { continue }
            paths.meetNode.fillPrefix(targets.count, with: -1); paths.meetEntry.fillPrefix(targets.count, with: -1)
            // The same street, straight ahead: no node on the way.
            for (j, t) in targets.enumerated() where s.piece == t.piece && paths.wanted[j] {
                if let (ms, e) = router.direct(s, t, metric: .time) {
                    let dm = Self.partial(abs(t.fraction - s.fraction), g.lengthDm[Int(e)])
                    if dm <= maxLengthDm {
                        best[row + j] = TableCell(ms: ms, dm: dm)
                        paths.start[row + j] = Int32(paths.edges.count); paths.count[row + j] = 1; paths.direct[row + j] = true
                        paths.edges.append(e)
                    }
                }
            }
            seedList.removeAll(keepingCapacity: true)
            router.seeds(of: s, metric: .time, leaving: true, ranks: nil, into: &seedList)
            router.plant(seedList, in: &front, push: true, gen: gen)
            router.plantLengths(seedList, of: s, leaving: true, side: front, into: &lengths)
            // The row's worst time so far among the wanted targets: once the search passes it,
            // nothing wanted can improve.
            var worst: UInt32 = 0
            for j in 0..<targets.count where paths.wanted[j] { worst = max(worst, best[row + j].ms) }
            // The labels and lengths through buffers: a write to an array in this loop
            // otherwise checks its uniqueness each time (a twentieth of a trace's instructions).
            // Every index is a node of the graph (a head of its edges, checked when the graph
            // was loaded), below both counts.
            precondition(front.labels.count == n && lengths.count == n)
            front.labels.withUnsafeMutableBufferPointer { labels in
                lengths.withUnsafeMutableBufferPointer { lengths in
                    while let (d, u) = front.heap.pop() {
                        if d > limit || d >= worst { break }
                        guard d == labels[u].dist else { continue }
                        settledCount += 1
                        if stamps[u] == bucketGen {
                            var k = Int(heads[u])
                            while k >= 0 {
                                let b = entries[k], c = plus(d, b.cost), slot = row + Int(b.target), dm = plus(lengths[u], b.length)
                                if c < best[slot].ms, dm <= maxLengthDm {
                                    best[slot] = TableCell(ms: c, dm: dm)
                                    paths.meetNode[Int(b.target)] = Int32(u); paths.meetEntry[Int(b.target)] = Int32(k)
                                }
                                k = Int(b.next)
                            }
                            worst = 0
                            for j in 0..<targets.count where paths.wanted[j] { worst = max(worst, best[row + j].ms) }
                        }
                        for e in Int(g.firstOut[u])..<Int(g.firstOut[u + 1]) {
                            let x = Int(g.head[e]), nd = plus(d, g.timeMs[e]), length = plus(lengths[u], g.lengthDm[e])
                            guard nd <= limit, length <= maxLengthDm else { continue }
                            let old = labels[x]
                            guard old.stamp != gen || nd < old.dist else { continue }
                            labels[x] = SearchSide.Label(dist: nd, edge: UInt32(e), node: UInt32(u), stamp: gen)
                            lengths[x] = length
                            front.heap.push(nd, x)
                        }
                    }
                }
            }
            // The routes of the row, back from where each met its target, while this
            // source's search tree is still in the arrays.
            for j in 0..<targets.count where paths.meetNode[j] >= 0 && best[row + j].ms <= limit {
                let first = paths.edges.count
                paths.edges.append(RoadNetwork.none)  // the source seed's edge, known at the end
                var v = Int(paths.meetNode[j])
                while front.labels[v].edge & Self.seedBit == 0 { paths.edges.append(front.labels[v].edge); v = Int(front.labels[v].node) }
                paths.edges[first] = seedList[Int(front.labels[v].edge & ~Self.seedBit)].edge
                // Reversed in place by index: reversing the slice copied the whole array.
                var (lo, hi) = (first + 1, paths.edges.count - 1)
                while lo < hi { paths.edges.swapAt(lo, hi); lo += 1; hi -= 1 }
                paths.edges.append(paths.entryEdge[Int(paths.meetEntry[j])])
                paths.start[row + j] = Int32(first); paths.count[row + j] = Int32(paths.edges.count - first); paths.direct[row + j] = false
            }
            // Beyond the limit, or not wanted (the search may have stopped before its best
            // route): no route.
            for j in 0..<targets.count where best[row + j].ms > limit || !paths.wanted[j] {
                best[row + j].ms = .max; paths.count[row + j] = 0
            }
            rowDone(i, best[row..<(row + targets.count)])
        }
        router.settled = settledCount
    }
}
