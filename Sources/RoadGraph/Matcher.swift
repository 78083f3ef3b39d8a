import Foundation
import Geodesy

/// One position report of a trace: where the phone said it was, and when (seconds on any
/// clock, or nil when the trace has no times).
public struct TracePoint: Sendable, Equatable {
    /// The reported position.
    public var coordinate: Coordinate
    /// When it was reported, in seconds; nil when unknown.
    public var time: Double?

    /// A report at `coordinate`, at `time` seconds (nil: unknown).
    public init(_ coordinate: Coordinate, time: Double? = nil) {
        self.coordinate = coordinate
        self.time = time
    }
}

/// How the matcher weighs a trace, in the terms of Newson and Krumm's hidden Markov model.
public struct MatchSettings: Sendable, Equatable {
    /// The standard deviation of the GPS error, in metres: a candidate `d` metres from its
    /// report costs `½ (d / σ)²`. Phones in cities: 5 to 30 m.
    public var gpsSigmaMetres: Double
    /// The scale of the transition cost, in metres: a step whose route is `x` metres longer
    /// or shorter than the straight line between its reports costs `x / β`.
    public var betaMetres: Double
    /// How far from a report a road may be and still be a candidate, in metres.
    public var searchRadiusMetres: Double
    /// The most candidate roads per report (the nearest are kept).
    public var maximumCandidates: Int
    /// Consecutive reports farther apart than this (metres) start a new piece of track: no
    /// transition is tried across such a gap.
    public var breakageMetres: Double
    /// The fastest a cab is believed to drive, in metres per second: with times, a step
    /// whose route is longer than this speed allows is not plausible.
    public var maximumSpeed: Double
    /// Reports nearer than this (metres) to the last report weighed, and within ten seconds
    /// of it, are not weighed: they take their place on the track found for the others.
    public var minimumSpacingMetres: Double

    /// Settings for reports with GPS error `gpsSigmaMetres`: the search radius is four
    /// standard deviations (at least 50 m), β is a third of σ plus 2 m, up to 16 candidates,
    /// pieces broken at gaps of 2 km, 50 m/s at most between reports, and reports weighed
    /// only when five standard deviations from the last one weighed.
    ///
    /// Why five σ apart: two noisy reports differ by about σ√2 along the road whatever the
    /// cab did, so reports closer than that tell more about the noise than about the
    /// driving, and a match that follows them zig-zags along the street and round blocks.
    /// Newson and Krumm drop reports within 2σ, which is enough for a stopped cab but not
    /// for one reporting every second; 5σ was the best of 2 to 6 on simulated traces at
    /// σ 5 to 30 m and 1 to 30 s. Candidates: 16, because stacked streets (bridges, tunnels,
    /// hairpins) and pieces that share their geometry fill 8 with wrong roads.
    ///
    /// Why β grows with σ: two noisy reports' straight-line distance is itself off by about
    /// σ√2, so a fixed β (OSRM's 10, Valhalla's 3) punishes the right road on a noisy trace
    /// as hard as a wrong one on a clean trace. The factor was tuned on simulated traces at
    /// σ 5, 15 and 30 m (`wayfare bench match`).
    public init(gpsSigmaMetres: Double = 10, betaMetres: Double? = nil, searchRadiusMetres: Double? = nil,
                maximumCandidates: Int = 16, breakageMetres: Double = 2000, maximumSpeed: Double = 50,
                minimumSpacingMetres: Double? = nil) {
        let sigma = max(1, gpsSigmaMetres.isFinite ? gpsSigmaMetres : 10)
        self.gpsSigmaMetres = sigma
        self.betaMetres = max(0.5, betaMetres ?? (2 + sigma / 3))
        self.searchRadiusMetres = max(1, searchRadiusMetres ?? max(50, 4 * sigma))
        self.maximumCandidates = max(1, maximumCandidates)
        self.breakageMetres = max(1, breakageMetres)
        self.maximumSpeed = max(1, maximumSpeed)
        self.minimumSpacingMetres = max(0, minimumSpacingMetres ?? 5 * sigma)
    }
}

/// Where one report was matched.
public struct MatchedPoint: Sendable, Equatable {
    /// The point on the road.
    public var coordinate: Coordinate
    /// How far the report was from it, in metres.
    public var metresFromReport: Double
    /// The edge of the road graph the cab was on, in its direction of travel.
    public var edge: Int
    /// How sure the match is of this road, 0…1: the candidate's share of the probability
    /// of every candidate of the report, given the reports up to it.
    public var confidence: Double
}

/// A trace matched to the road: the track driven, its length and time, and each report's
/// place on it.
public struct MapMatch: Sendable {
    /// The length of the matched track, in metres, measured along its geometry (gaps at
    /// breaks not counted). Why not the routes' own sums: those round each partly driven
    /// edge up to a decimetre, twice a step, which over a trace of hundreds of reports adds
    /// metres that were never driven.
    public var distanceMetres: Double
    /// Its driving time on the network's speeds, in seconds.
    public var durationSeconds: Double
    /// The track, one line per piece (a new piece starts at each break).
    public var pieces: [[Coordinate]]
    /// The graph edges driven, in order (consecutive repeats removed).
    public var edges: [Int]
    /// Each report's match, in the trace's order; nil for a report with no road within the
    /// search radius, or one that fits no plausible path (an outlier).
    public var points: [MatchedPoint?]
    /// The reports where a new piece starts because no plausible route led to them from the
    /// report before (a break, not a guess).
    public var breaks: [Int]
}

/// Matches GPS traces to the road network with a hidden Markov model, in the manner of
/// Newson and Krumm (2009): each report's candidates are the roads within a radius; a
/// candidate costs its distance to the report (a Gaussian), a step between two candidates
/// costs the difference between its route and the straight line between the reports (an
/// exponential); Viterbi picks the cheapest sequence. Routes between the candidates of
/// consecutive reports come many to many in one go: from a plain Dijkstra around the
/// reports when they are a block or two apart, else from the contraction hierarchy. The
/// track follows the routes the steps weighed, searching again only where the step's
/// search did not leave them.
///
/// Reports within 2σ of the last one kept add only noise (a cab stopped at a light appears
/// to jitter backwards) and take the previous report's match, as Newson and Krumm advise.
/// A report that no candidate of the previous one can reach plausibly is first taken for
/// an outlier (left out when the next report can be reached without it); failing that, the
/// track breaks there and a new piece starts.
///
/// Not `Sendable`: it owns a `Router`. Make one per thread.
public final class Matcher {
    /// The router it searches with.
    public let router: Router

    /// A matcher over `network`.
    public init(network: RoadNetwork) { router = Router(network: network) }

    // The step's state is `@exclusivity(unchecked)`, as the router's (see `Router`): only
    // the matcher's methods touch it, on the thread that owns the matcher.

    /// The routes of one step, between the candidates of two reports: kept from step to step.
    @exclusivity(unchecked) var routes: [Router.TableCell] = []
    /// The lattice of the piece being matched, kept from trace to trace.
    @exclusivity(unchecked) var lattice = Lattice()
    /// One step's cheapest transitions, per candidate of the report weighed.
    @exclusivity(unchecked) var stepCost: [Double] = [], stepParent: [Int] = [], stepBackward: [Bool] = []
    /// One step's sources, cheapest first.
    @exclusivity(unchecked) var sourceOrder: [Int] = []

    /// The Viterbi lattice of one piece of track: every weighed report's candidates, the
    /// cheapest cost of reaching each, and the candidate of the previous layer it came from,
    /// in flat arrays (layer k's candidates are `start[k] ..< start[k + 1]`).
    ///
    /// Why flat: a layer of its own arrays made six allocations a report, a sixth of the
    /// time of a dense trace; these arrays keep their capacity from trace to trace.
    ///
    /// The candidates of the report being weighed sit after the last layer, pending: a step
    /// that reaches them commits them as a layer; one that does not drops them.
    struct Lattice {
        /// Per layer: the report it weighs, and where its candidates start.
        var report: [Int] = [], start: [Int] = [0]
        /// Per candidate: the snap, its cost (its emission while pending), the global index
        /// of its parent in the layer before (-1 for none), and whether its step from the
        /// parent went a little backwards along one street (GPS noise, not driving).
        var snap: [Snap] = [], cost: [Double] = [], parent: [Int] = [], backward: [Bool] = []
        /// Per candidate: the route of its step from its parent, when the step's search
        /// left it (`Router.TablePaths`' layout): `pathEdges[pathStart ..< pathStart + pathCount]`,
        /// a count of 0 for none.
        var pathStart: [Int] = [], pathCount: [Int] = [], pathDirect: [Bool] = [], pathEdges: [UInt32] = []

        /// How many layers are committed.
        var count: Int { report.count }
        /// The candidates of layer `k`.
        func layer(_ k: Int) -> Range<Int> { start[k]..<start[k + 1] }
        /// The pending candidates.
        var pending: Range<Int> { start[report.count]..<snap.count }

        /// A pending candidate.
        mutating func append(_ s: Snap, emission: Double) {
            snap.append(s); cost.append(emission); parent.append(-1); backward.append(false)
            pathStart.append(0); pathCount.append(0); pathDirect.append(false)
        }

        /// Makes the pending candidates the layer of `report`.
        mutating func commit(report r: Int) { report.append(r); start.append(snap.count) }

        /// Drops the pending candidates.
        mutating func dropPending() {
            let keep = start[report.count]
            snap.removeSubrange(keep...); cost.removeSubrange(keep...); parent.removeSubrange(keep...); backward.removeSubrange(keep...)
            pathStart.removeSubrange(keep...); pathCount.removeSubrange(keep...); pathDirect.removeSubrange(keep...)
        }

        mutating func removeAll() {
            report.removeAll(keepingCapacity: true); start.removeAll(keepingCapacity: true); start.append(0)
            snap.removeAll(keepingCapacity: true); cost.removeAll(keepingCapacity: true)
            parent.removeAll(keepingCapacity: true); backward.removeAll(keepingCapacity: true)
            pathStart.removeAll(keepingCapacity: true); pathCount.removeAll(keepingCapacity: true)
            pathDirect.removeAll(keepingCapacity: true); pathEdges.removeAll(keepingCapacity: true)
        }
    }

    /// How much more a candidate may cost by its distance alone than the nearest road and
    /// still be weighed: e^5, about 150 times less likely. Farther roads cannot win but on
    /// the rarest traces, and each one costs two searches a step. Why 5: of 4.5 to 10 on
    /// the simulated traces (σ 5 to 30 m, 1 to 30 s), 5 was as accurate as 10 and faster;
    /// 4.5 (3σ) broke dense noisy traces more often.
    static let emissionSlack = 5.0

    /// Steps whose searches reach no farther than this (metres) are searched by plain
    /// Dijkstra around the reports, not on the hierarchy (`Router.localTable`).
    ///
    /// Why 200 m: at σ 5 m every 5 s, where a search reaches about 130 m, a plain Dijkstra
    /// settles a few nodes from each candidate and leaves each route for the track, and
    /// matching took 4 % less time (2.78 against 2.89 µs a report, 300 trips, three runs);
    /// beyond a few hundred metres the plain search's area grows with the square of its
    /// reach, and at σ 30 m every 30 s it took 2.4 times as long as the hierarchy.
    static let plainSearchMetres = 200.0

    /// Puts the candidates of a report in the lattice, pending: the roads within the search
    /// radius, nearest first, without those whose distance alone makes them `emissionSlack`
    /// costlier than the nearest. Returns how many.
    @discardableResult
    func findCandidates(of c: Coordinate, _ settings: MatchSettings) -> Int {
        let sigma = settings.gpsSigmaMetres
        // ½ (d / σ)² ≤ ½ (d₀ / σ)² + slack  ⇔  d² ≤ d₀² + 2 slack σ²: the tree prunes by it.
        let cosφ = cos(c.latitude * .pi / 180)
        router.nearestPieces(of: c, within: settings.searchRadiusMetres, slack2: 2 * Self.emissionSlack * sigma * sigma,
                             count: settings.maximumCandidates)
        func cost(_ metres: Double) -> Double { 0.5 * (metres / sigma) * (metres / sigma) }
        guard let nearest = router.hits.first.map({ cost($0.metres) }) else { return 0 }
        var found = 0
        for hit in router.hits where cost(hit.metres) <= nearest + Self.emissionSlack {
            let snap = router.snap(c, onto: hit, cosφ: cosφ)
            lattice.append(snap, emission: cost(snap.metres))
            found += 1
        }
        return found
    }

    /// The trace matched to the road.
    public func match(_ trace: [TracePoint], settings: MatchSettings = MatchSettings()) -> MapMatch {
        var points = [MatchedPoint?](repeating: nil, count: trace.count)
        var pieces: [[Coordinate]] = [], edges: [Int] = [], breaks: [Int] = []
        var distance = 0.0, duration = 0.0
        lattice.removeAll()
        /// Which kept report each report too near to weigh follows, and the piece of track
        /// each kept report lies on.
        var follows: [(report: Int, kept: Int)] = []
        var stretchOf = [(piece: Int, lines: Range<Int>)?](repeating: nil, count: trace.count)

        func finish() {
            guard lattice.count > 0 else { return }
            let chosen = backtrack()
            var line: [Coordinate] = []
            // Where the track stands: a step backwards along a street (noise) leaves it where it was.
            let backTolerance = max(10, 2 * settings.gpsSigmaMetres)
            var anchor = lattice.snap[chosen[0]]
            for k in 0..<lattice.count {
                let snap = lattice.snap[chosen[k]]
                var edge = k > 0 ? (edges.last ?? Int(network.pieceEdges[Int(network.pieceEdgeStart[snap.piece])]))
                                 : Int(network.pieceEdges[Int(network.pieceEdgeStart[snap.piece])])
                let start = max(0, line.count - 1)
                if k + 1 < lattice.count {
                    let n = chosen[k + 1], next = lattice.snap[n]
                    // The step's own route when the search left it and the track stands
                    // where the step started.
                    let stored = anchor == snap && lattice.parent[n] == chosen[k] && lattice.pathCount[n] > 0 ? n : nil
                    if !lattice.backward[n], let route = drive(from: anchor, or: snap, to: next, after: edges.last,
                                                                backTolerance: backTolerance, stored: stored) {
                        duration += route.durationSeconds
                        var first = true
                        for e32 in router.edges where e32 != RoadNetwork.none {
                            let e = Int(e32)
                            if first { edge = e; first = false }
                            if edges.last != e { edges.append(e) }
                        }
                        var near = Self.Latitude.unset
                        for c in route.geometry where line.last != c {
                            if let last = line.last { distance += Self.segmentMetres(last, c, near: &near) }
                            line.append(c)
                        }
                        anchor = next
                    }
                }
                if line.isEmpty { line.append(snap.coordinate) }
                // The stretch of the line from this report to the next weighed: where the
                // reports between them lie.
                let report = lattice.report[k]
                stretchOf[report] = (pieces.count, start..<line.count)
                points[report] = MatchedPoint(coordinate: snap.coordinate, metresFromReport: snap.metres, edge: edge,
                                              confidence: confidence(layer: k, chosen[k]))
            }
            pieces.append(line)
            lattice.removeAll()
        }

        var i = 0
        while i < trace.count {
            let report = trace[i]
            // Too near the last kept report to tell progress from noise (and not the last report):
            // decided before looking for roads, which such a report never needs. Kept at least
            // every ten seconds whatever the distance, so that a cab that drove a small loop
            // back to where it was is seen doing it.
            // How far it is from the last kept report, as the crow flies.
            let straight = lattice.report.last.map { trace[$0].coordinate.distance(to: report.coordinate) } ?? 0
            if let previous = lattice.report.last, i + 1 < trace.count {
                let from = trace[previous]
                let recent = report.time.flatMap { t in from.time.map { t - $0 <= 10 } } ?? true
                if recent, straight < settings.minimumSpacingMetres {
                    follows.append((i, previous))
                    i += 1
                    continue
                }
            }
            guard findCandidates(of: report.coordinate, settings) > 0 else { i += 1; continue }  // no road near: an outlier
            guard let previous = lattice.report.last else {
                lattice.commit(report: i)
                i += 1
                continue
            }
            let from = trace[previous]
            if straight <= settings.breakageMetres, step(fromPoint: from, report, straight: straight, settings) {
                lattice.commit(report: i)
                i += 1
                continue
            }
            lattice.dropPending()
            // Not reachable. An outlier when the report after it is reachable from the
            // previous one; otherwise a break.
            if i + 1 < trace.count {
                let next = trace[i + 1], straightNext = from.coordinate.distance(to: next.coordinate)
                if straightNext <= settings.breakageMetres, findCandidates(of: next.coordinate, settings) > 0,
                   step(fromPoint: from, next, straight: straightNext, settings) {
                    lattice.commit(report: i + 1)
                    i += 2
                    continue
                }
                lattice.dropPending()
            }
            finish()
            breaks.append(i)
            // Its candidates again (rare: only at a break), as the first layer of a new piece.
            findCandidates(of: report.coordinate, settings)
            lattice.commit(report: i)
            i += 1
        }
        finish()
        // A report not weighed lies where the track passes nearest to it, on its kept
        // report's piece, with that report's edge and confidence; farther than the search
        // radius from the track, it is an outlier.
        for (report, kept) in follows {
            guard var point = points[kept], let stretch = stretchOf[kept] else { continue }
            let (at, metres) = Self.nearest(on: pieces[stretch.piece][stretch.lines], to: trace[report].coordinate)
            guard metres <= settings.searchRadiusMetres else { continue }
            point.coordinate = at
            point.metresFromReport = metres
            points[report] = point
        }
        return MapMatch(distanceMetres: distance, durationSeconds: duration, pieces: pieces, edges: edges, points: points, breaks: breaks)
    }

    var network: RoadNetwork { router.network }

    /// Weighs the pending candidates (of `report`, `straight` metres from `fromPoint`, the
    /// last layer's report) from the last layer: true, with their costs and parents set,
    /// when some candidate can be reached plausibly; false, with nothing changed, when none.
    func step(fromPoint: TracePoint, _ report: TracePoint, straight: Double, _ settings: MatchSettings) -> Bool {
        let previous = lattice.layer(lattice.count - 1), targets = lattice.pending
        // The longest route believed: at the top speed over the time between the reports
        // (with a margin for clocks that tick in whole seconds), else the breakage distance.
        var longest = straight + settings.breakageMetres
        if let t0 = fromPoint.time, let t1 = report.time, t1 >= t0 {
            longest = min(longest, settings.maximumSpeed * (t1 - t0 + 1) + 2 * settings.searchRadiusMetres)
        }
        // How far back along one street a report may seem to go and still be noise.
        let backTolerance = max(10, 2 * settings.gpsSigmaMetres)
        // The step's transitions, one slot per pending candidate: the first `targets.count`
        // of the matcher's arrays (which never shrink). Used in place, not moved into locals:
        // the closures that weigh each source as its search ends would box locals and check
        // every access to them.
        var pathsKnown = false
        stepCost.fillPrefix(targets.count, with: .infinity); stepParent.fillPrefix(targets.count, with: -1)
        stepBackward.fillPrefix(targets.count, with: false)
        func anyReached() -> Bool { stepCost[..<targets.count].contains(where: \.isFinite) }
        // The lattice's arrays are read through these copies until the step is decided, and
        // written only after their scope ends (a write while a copy lives would copy them).
        do {
            let snaps = lattice.snap, sourceCost = lattice.cost
            /// Every candidate's cheapest transition from the previous layer, over routes found
            /// within `limitSeconds`, in one many-to-many.
            func weigh(limitSeconds: Double, maxLengthDm: UInt32 = .max, local: Bool = false) {
                pathsKnown = local  // only the plain search leaves its routes
                func weighRows(_ rows: Range<Int>, _ cells: ArraySlice<Router.TableCell>) {
                    transitions(rows: rows, cells: cells, to: targets, snaps: snaps, sourceCost: sourceCost, straight: straight,
                                longest: longest, backTolerance: backTolerance, beta: settings.betaMetres,
                                cost: &stepCost, parent: &stepParent, backward: &stepBackward)
                }
                if !local {
                    router.table(from: snaps[previous], to: snaps[targets], limitSeconds: limitSeconds, maxLengthDm: maxLengthDm, into: &routes)
                    weighRows(previous, routes[...])
                    return
                }
                // The sources cheapest first, each weighed as soon as its search is done: a
                // transition costs nothing at best, so a source whose own cost already exceeds
                // a target's cheapest total so far cannot improve it, and its search leaves
                // that target out (or is not run at all). The same choices as weighing every
                // pair: ties go to the lower source either way.
                var order: [Int] = []
                swap(&order, &sourceOrder)
                defer { swap(&order, &sourceOrder) }
                order.removeAll(keepingCapacity: true); order.append(contentsOf: 0..<previous.count)
                order.sort { (sourceCost[previous.lowerBound + $0], $0) < (sourceCost[previous.lowerBound + $1], $1) }
                router.localTable(from: snaps[previous], to: snaps[targets], limitSeconds: limitSeconds, maxLengthDm: maxLengthDm,
                                  into: &routes, order: order, wanted: { i, wanted in
                                      let c = sourceCost[previous.lowerBound + i]
                                      for j in 0..<targets.count { wanted[j] = c.isFinite && c <= stepCost[j] }
                                  }, rowDone: { i, cells in
                                      weighRows((previous.lowerBound + i)..<(previous.lowerBound + i + 1), cells)
                                  })
            }
            // How far the searches go. On the network's speeds no street is slower than 3 m/s
            // (11 km/h): a route of m metres takes at most m / 3 seconds. They first go only as
            // far as a route 20 β longer than the straight line takes (a step e^20 less likely
            // than a straight one), and follow no path half again as long as that: most of a
            // search's work is in the hierarchy's far top, which this cuts off. Only when no
            // candidate is reached so do they go as far as the longest route believed.
            // Why half again: a cab between reports 30 s apart may drive round a hairpin, a
            // route far longer than the straight line that the time bound alone (at 3 m/s, loose
            // by the ratio of real speeds to it) still reaches. With the length bound at the
            // time bound's own length (×1), one such simulated trip at σ 5 m every 30 s was
            // matched wrongly; at ×1.5 and ×2 every setting scored as without a length bound or
            // better, and ×1.5 was faster (`wayfare bench match`).
            //
            // Short steps search without the hierarchy (see `plainSearchMetres`). The
            // hierarchy's two halves are each bounded, so its routes may reach twice the bound;
            // the plain search bounds the whole route, and is given twice the step's reach
            // rather than half again: with half again, σ 5 m every 15 s scored worse (mean
            // mismatch 0.52 % against 0.48 %); with twice, every setting scored as on the
            // hierarchy alone.
            let near = min(longest, straight + 20 * settings.betaMetres)
            if near <= Self.plainSearchMetres {
                weigh(limitSeconds: near / 3, maxLengthDm: UInt32(min(1e9, 2 * near * 10)), local: true)
            } else {
                weigh(limitSeconds: near / 3, maxLengthDm: UInt32(min(1e9, 1.5 * near * 10)))
            }
            if near < longest, !anyReached() { weigh(limitSeconds: longest / 3) }
            // No route at all: a cab that stood still while its reports jittered across a
            // junction or between streets a few metres apart (a loop round the block is longer
            // than the time allows). Tried only then, so a jump between two carriageways is
            // never preferred to a route.
            if !anyReached() {
                for j in 0..<targets.count {
                    let candidate = snaps[targets.lowerBound + j]
                    for k in previous where sourceCost[k].isFinite {
                        let apart = snaps[k].coordinate.distance(to: candidate.coordinate)
                        guard apart <= backTolerance else { continue }
                        let c = sourceCost[k] + abs(apart - straight) / settings.betaMetres
                        if c < stepCost[j] { stepCost[j] = c; stepParent[j] = k; stepBackward[j] = true }
                    }
                }
            }
        }
        guard anyReached() else { return false }
        let paths = router.tablePaths
        for j in 0..<targets.count {
            let t = targets.lowerBound + j
            lattice.cost[t] += stepCost[j]; lattice.parent[t] = stepParent[j]; lattice.backward[t] = stepBackward[j]
            guard pathsKnown, stepParent[j] >= 0, !stepBackward[j] else { continue }
            let cell = (stepParent[j] - previous.lowerBound) * targets.count + j, count = Int(paths.count[cell])
            guard count > 0 else { continue }
            let start = Int(paths.start[cell])
            lattice.pathStart[t] = lattice.pathEdges.count; lattice.pathCount[t] = count; lattice.pathDirect[t] = paths.direct[cell]
            lattice.pathEdges.append(contentsOf: paths.edges[start..<(start + count)])
        }
        return true
    }

    /// Every target's cheapest transition from the sources `rows` of the layer before over
    /// `cells` (row by source, column by target), kept where cheaper than what `cost`
    /// holds: cost, parent (global index), and whether the step went a little backwards
    /// along one street instead. Of equal costs the lower source wins, so rows weighed in
    /// any order choose as rows weighed in order.
    ///
    /// A method with its arrays passed inout, not a closure: writes to captured arrays
    /// are checked for uniqueness one by one.
    func transitions(rows: Range<Int>, cells: ArraySlice<Router.TableCell>, to targets: Range<Int>, snaps: [Snap], sourceCost: [Double],
                     straight: Double, longest: Double, backTolerance: Double, beta: Double,
                     cost: inout [Double], parent: inout [Int], backward: inout [Bool]) {
        for j in 0..<targets.count {
            let candidate = snaps[targets.lowerBound + j], candidateMetres = pieceMetres(candidate.piece)
            for k in rows where sourceCost[k].isFinite {
                let route = cells[cells.startIndex + (k - rows.lowerBound) * targets.count + j], routeMetres = Double(route.dm) / 10
                var metres = route.ms != .max && routeMetres <= longest ? routeMetres : nil
                var back = false
                // On the same street a little behind: the route would loop round the block;
                // the cab stood still and the reports jittered.
                let source = snaps[k]
                if source.piece == candidate.piece {
                    let along = abs(candidate.fraction - source.fraction) * candidateMetres
                    if along <= backTolerance, metres.map({ $0 > along + 1 }) ?? true { metres = along; back = true }
                }
                guard let metres else { continue }
                let c = sourceCost[k] + abs(metres - straight) / beta
                if c < cost[j] || (c == cost[j] && k < parent[j]) { cost[j] = c; parent[j] = k; backward[j] = back }
            }
        }
    }

    /// The route the track takes to `next`: from `anchor` (where the track stands), or from
    /// `snap` (the report's own match, behind the anchor after a step back) when the anchor
    /// would need a loop to get there. Nil when the step is a turn back along the street just
    /// driven within `backTolerance` metres: the reports jittered, the cab did not turn.
    ///
    /// With `stored`, the lattice candidate whose step's route the search left: that route,
    /// without searching again.
    func drive(from anchor: Snap, or snap: Snap, to next: Snap, after last: Int?, backTolerance: Double, stored: Int? = nil) -> Route? {
        var route: Route?
        if let n = stored {
            router.edges.removeAll(keepingCapacity: true)
            let start = lattice.pathStart[n]
            router.edges.append(contentsOf: lattice.pathEdges[start..<(start + lattice.pathCount[n])])
            route = router.assemble(from: anchor, to: next, cost: 0, direct: lattice.pathDirect[n], named: false)
        } else {
            route = try? router.route(from: anchor, to: next, algorithm: .astar, named: false)
        }
        if anchor != snap, let fromSnap = try? router.route(from: snap, to: next, algorithm: .astar, named: false),
           route.map({ $0.distanceMetres > fromSnap.distanceMetres + backTolerance }) ?? true {
            route = fromSnap
        }
        guard let route else { return nil }
        if let last, route.distanceMetres <= backTolerance,
           let first = router.edges.first(where: { $0 != RoadNetwork.none }).map(Int.init),
           network.edgePiece[first] ^ network.edgePiece[last] == RoadNetwork.reversedBit {
            return nil
        }
        return route
    }

    /// The length of piece `p` in metres (its first edge's; both directions share it).
    func pieceMetres(_ p: Int) -> Double {
        Double(network.lengthDm[Int(network.pieceEdges[Int(network.pieceEdgeStart[p])])]) / 10
    }

    /// The cheapest candidate of the last layer, then each layer's parent of the one after
    /// (global indices into the lattice).
    func backtrack() -> [Int] {
        var chosen = [Int](repeating: 0, count: lattice.count)
        guard lattice.count > 0 else { return chosen }
        let last = lattice.layer(lattice.count - 1)
        var best = last.lowerBound
        for k in last where lattice.cost[k] < lattice.cost[best] { best = k }
        chosen[lattice.count - 1] = best
        for k in stride(from: lattice.count - 1, to: 0, by: -1) {
            let p = lattice.parent[chosen[k]]
            chosen[k - 1] = p >= 0 ? p : lattice.start[k - 1]
        }
        return chosen
    }

    /// The chosen candidate's share of `exp(-cost)` over its layer.
    func confidence(layer k: Int, _ chosen: Int) -> Double {
        let costs = lattice.cost[lattice.layer(k)]
        var low = Double.infinity
        for c in costs where c < low { low = c }
        guard low.isFinite else { return 0 }
        let total = costs.reduce(0.0) { $1.isFinite ? $0 + exp(low - $1) : $0 }
        let mine = lattice.cost[chosen].isFinite ? exp(low - lattice.cost[chosen]) : 0
        return total > 0 ? mine / total : 0
    }
}
