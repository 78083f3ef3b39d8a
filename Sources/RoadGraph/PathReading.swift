import CIntrinsics

// Turning a search's answer into a route reads a few scattered words per edge: a shortcut's
// two halves, then each original edge's piece, costs, geometry and name. On a metropolitan
// graph each of those is a cache miss, and read one edge after the other they wait for
// memory in a row: on the 1M grid the unpacking and the assembly were three quarters of a
// time-metric route (`perf`), the search a quarter. Every address is known before it is
// needed, so they are asked for ahead, their misses overlapping each other: the shortcuts
// a level of the unpacking at a time, the assembly's words a few edges ahead of the one
// being read. On the 1M grid a time-metric route took 0.53–0.61× the time, every route the
// same (docs/benchmarks.md, "A route reads its path ahead").
//
// Only on a large network (`readsAhead`): on a small one everything is in the cache
// already, and asking ahead is work for nothing (Monaco's routes took a tenth longer when
// every route asked).

extension ContractionHierarchy {
    /// Replaces every shortcut in `edges` with the original edges it stands for, in
    /// driving order (`RoadNetwork.none` passes through). With `ahead`, the shortcuts'
    /// halves are first read level by level down the unpacking trees, each level's asked for
    /// at once, so that the walk depth first that follows finds them in the cache.
    /// `scratch` and `stack` are working space.
    func expandShortcuts(in edges: inout [UInt32], ahead: Bool, scratch: inout [UInt32], stack: inout [UInt32]) {
        if ahead { readLevels(of: edges, into: &scratch) }
        scratch.removeAll(keepingCapacity: true)
        for e in edges {
            stack.removeAll(keepingCapacity: true)
            stack.append(e)
            while let x = stack.popLast() {
                if let k = shortcut(x) { stack.append(shortcutSecond[Int(k)]); stack.append(shortcutFirst[Int(k)]) } else { scratch.append(x) }
            }
        }
        swap(&edges, &scratch)
    }

    /// Reads the halves of every shortcut in the unpacking trees of `edges`, one level at a
    /// time, each level's asked for at once; `levels` is working space (it ends up holding
    /// every shortcut of the trees, level after level).
    private func readLevels(of edges: [UInt32], into levels: inout [UInt32]) {
        let count = shortcutFirst.count
        levels.removeAll(keepingCapacity: true)
        for e in edges { if let k = shortcut(e) { levels.append(k) } }
        var start = 0
        while start < levels.count {
            let end = levels.count
            shortcutFirst.withUnsafeBufferPointer { first in
                shortcutSecond.withUnsafeBufferPointer { second in
                    guard let f = first.baseAddress, let s = second.baseAddress else { return }
                    for i in start..<end where Int(levels[i]) < count {
                        wayfare_prefetch(f + Int(levels[i])); wayfare_prefetch(s + Int(levels[i]))
                    }
                }
            }
            for i in start..<end {
                let k = Int(levels[i])
                if let a = shortcut(shortcutFirst[k]) { levels.append(a) }
                if let b = shortcut(shortcutSecond[k]) { levels.append(b) }
            }
            start = end
        }
    }

    /// The shortcut index of hierarchy edge `e`, or nil for an original edge or
    /// `RoadNetwork.none`.
    @inline(__always) private func shortcut(_ e: UInt32) -> UInt32? {
        e == RoadNetwork.none || Int(e) < originalEdgeCount ? nil : e - UInt32(originalEdgeCount)
    }
}

extension RoadNetwork {
    /// Whether the path's reads are asked for ahead: on a network of 65,536 edges or more.
    /// Why there: the three edge arrays the assembly reads (12 bytes an edge) then outgrow a
    /// core's L2 cache of 1 MiB (AMD EPYC and recent Intel cores); Monaco (4,100 edges) is
    /// far below, the 100k grid (370,000) well above, and both were measured.
    var readsAhead: Bool { edgeCount >= 1 << 16 }

    /// Asks for what `Router.assemble` reads of the edges ahead of `edges[i]`, in three
    /// stages, each stage's addresses read from what an earlier one asked for: the piece and
    /// costs of the edge 16 ahead, the piece's start and name 8 ahead, its first points 4
    /// ahead. Called at each edge, after `prefetchForAssembly(startOf:)`. Why a pipeline and
    /// not the whole path at once: the lines then arrive shortly before they are read, and
    /// are still in the first-level cache.
    @inline(__always) func prefetchForAssembly(_ edges: [UInt32], at i: Int) {
        askEdge(edges, i + 16); askPiece(edges, i + 8); askPoints(edges, i + 4)
    }

    /// The stages for the first edges, before the first is read.
    func prefetchForAssembly(startOf edges: [UInt32]) {
        for i in 0..<min(16, edges.count) { askEdge(edges, i) }
        for i in 0..<min(8, edges.count) { askPiece(edges, i) }
        for i in 0..<min(4, edges.count) { askPoints(edges, i) }
    }

    @inline(__always) private func ask<T>(_ array: [T], _ i: Int) {
        array.withUnsafeBufferPointer { a in
            if i < a.count, let base = a.baseAddress { wayfare_prefetch(base + i) }
        }
    }

    /// The piece of `edges[i]`, if i is in the path and the edge in the network.
    @inline(__always) private func piece(_ edges: [UInt32], _ i: Int) -> Int? {
        guard i < edges.count, Int(edges[i]) < edgeCount else { return nil }
        return Int(edgePiece[Int(edges[i])] & ~RoadNetwork.reversedBit)
    }

    @inline(__always) private func askEdge(_ edges: [UInt32], _ i: Int) {
        guard i < edges.count, Int(edges[i]) < edgeCount else { return }
        let e = Int(edges[i])
        ask(edgePiece, e); ask(lengthDm, e); ask(timeMs, e)
    }

    @inline(__always) private func askPiece(_ edges: [UInt32], _ i: Int) {
        guard let p = piece(edges, i) else { return }
        ask(pieceStart, p); ask(pieceName, p)
    }

    @inline(__always) private func askPoints(_ edges: [UInt32], _ i: Int) {
        guard let p = piece(edges, i), p < pieceCount else { return }
        let k = Int(pieceStart[p])
        ask(pointLatE7, k); ask(pointLonE7, k)
    }
}
