import CIntrinsics

// Turning a search's answer into a route reads a few scattered words per edge: a shortcut's
// two halves, then each original edge's piece, costs, geometry and name. On a metropolitan
// graph each of those is a cache miss, and read one edge after the other they wait for
// memory in a row: on the 1M grid the unpacking and the assembly were three quarters of a
// time-metric route (`perf`), the search a quarter. Every address is known before it is
// needed, so they are asked for in waves, a wave's misses overlapping each other.
//
// Only on a large network (`readsAhead`): on a small one everything is in the cache
// already, and the waves are work for nothing (Monaco's routes took a tenth longer with
// them).

extension ContractionHierarchy {
    /// Replaces every shortcut in `edges` with the original edges it stands for, in
    /// driving order (`RoadNetwork.none` passes through). With `ahead`, the shortcuts'
    /// halves are first read level by level down the unpacking trees, each level's asked for
    /// at once, so that the walk depth first that follows finds them in the cache.
    /// `scratch` and `stack` are working space.
    func expandShortcuts(in edges: inout [UInt32], ahead: Bool, scratch: inout [UInt32], stack: inout [UInt32]) {
        let m = originalEdgeCount
        @inline(__always) func shortcut(_ e: UInt32) -> Int? {
            e == RoadNetwork.none || Int(e) < m ? nil : Int(e) - m
        }
        if ahead { readLevels(of: edges, into: &scratch) }
        scratch.removeAll(keepingCapacity: true)
        for e in edges {
            stack.removeAll(keepingCapacity: true)
            stack.append(e)
            while let x = stack.popLast() {
                if let k = shortcut(x) { stack.append(shortcutSecond[k]); stack.append(shortcutFirst[k]) } else { scratch.append(x) }
            }
        }
        swap(&edges, &scratch)
    }

    /// Reads the halves of every shortcut in the unpacking trees of `edges`, one level at a
    /// time, each level's asked for at once; `levels` is working space (it ends up holding
    /// every shortcut of the trees, level after level).
    private func readLevels(of edges: [UInt32], into levels: inout [UInt32]) {
        let m = originalEdgeCount, count = shortcutFirst.count
        @inline(__always) func shortcut(_ e: UInt32) -> UInt32? {
            e == RoadNetwork.none || Int(e) < m ? nil : e - UInt32(m)
        }
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
}

extension RoadNetwork {
    /// Whether the path's reads are asked for ahead: on a network of 65,536 edges or more.
    /// Why there: the three edge arrays the assembly reads (12 bytes an edge) then outgrow a
    /// core's L2 cache of 1 MiB (AMD EPYC and recent Intel cores); Monaco (4,100 edges) is
    /// far below, the 100k grid (370,000) well above, and both were measured.
    var readsAhead: Bool { edgeCount >= 1 << 16 }

    /// Asks for what `Router.assemble` reads of each edge in `edges`, in three waves, each
    /// wave's addresses taken from what the wave before asked for: the edge's piece and
    /// costs; the piece's start and name; its first points.
    func prefetchForAssembly(_ edges: [UInt32]) {
        let m = edgeCount, pieces = pieceCount
        @inline(__always) func ask<T>(_ array: [T], _ i: Int) {
            array.withUnsafeBufferPointer { a in
                if i < a.count, let base = a.baseAddress { wayfare_prefetch(base + i) }
            }
        }
        for e in edges where Int(e) < m {
            ask(edgePiece, Int(e)); ask(lengthDm, Int(e)); ask(timeMs, Int(e))
        }
        for e in edges where Int(e) < m {
            let p = Int(edgePiece[Int(e)] & ~RoadNetwork.reversedBit)
            ask(pieceStart, p); ask(pieceName, p)
        }
        for e in edges where Int(e) < m {
            let p = Int(edgePiece[Int(e)] & ~RoadNetwork.reversedBit)
            guard p < pieces else { continue }
            let k = Int(pieceStart[p])
            ask(pointLatE7, k); ask(pointLonE7, k)
        }
    }
}
