import CIntrinsics

/// The two phases of the hierarchy's many-to-one search (see `Router.hierarchyToTarget`),
/// written over arrays passed in so that the inner loops touch plain local storage.
extension ContractionHierarchy {
    /// Settles, in cost order, every node the planted `side` reaches upwards along the
    /// `down` arcs (the backward half of a hierarchy query) at cost up to `limit`, noting
    /// each node's path length, and appends each node settled to `settled`; paths longer
    /// than `maxLength` (dm) are not followed. Returns the nodes settled.
    func settleUpwards(_ side: inout SearchSide, lengths: inout [UInt32], originalLengths: [UInt32],
                       limit: UInt32, maxLength: UInt32 = .max, gen: UInt32, settled: inout [UInt32]) -> Int {
        var count = 0
        while let (d, u) = side.heap.pop() {
            if d > limit { break }
            guard d == side.labels[u].dist else { continue }
            count += 1
            settled.append(UInt32(truncatingIfNeeded: u))
            for k in Int(downFirst[u])..<Int(downFirst[u + 1]) {
                let a = down[k], x = Int(a.node), nd = plus(d, a.weight)
                // The arc's length only for an arc that improves: its lookup is likely a
                // cache miss, and most arcs lead to a node already reached more cheaply.
                guard side.improves(x, to: nd, gen: gen) else { continue }
                let length = plus(lengths[u], lengthDm(of: a.edge, original: originalLengths))
                if length <= maxLength, side.improve(x, to: nd, edge: a.edge, from: u, gen: gen) {
                    lengths[x] = length
                    side.heap.push(nd, x)
                }
            }
        }
        return count
    }

    /// From each seed's node, a depth-first walk up the `up` arcs that leaves in `memo`'s labels
    /// (where their stamp is `gen`) each node's exact time to the target:
    /// `min(target cost of v, min over arcs v → x of weight + memo cost of x)`, and in `lengths`
    /// that path's length. A node is finished after all its higher neighbours (post-order),
    /// and once, however many seeds climb through it. A label's `node` is 1 once a node is
    /// finished, 0 while it is open. Returns the nodes finished.
    func walkUp(from seeds: [Router.Seed], memo: inout SearchSide, lengths: inout [UInt32],
                target: SearchSide, targetLengths: [UInt32], originalLengths: [UInt32],
                stack: inout [UInt32], gen: UInt32) -> Int {
        let finish: UInt32 = 1 << 31
        var count = 0
        for seed in seeds where memo.labels[Int(seed.node)].stamp != gen {
            stack.append(seed.node)
            while let top = stack.last {
                let v = Int(top & ~finish)
                let arcs = Int(upFirst[v])..<Int(upFirst[v + 1])
                if top & finish == 0 {
                    if memo.labels[v].stamp == gen { stack.removeLast(); continue }
                    memo.labels[v].stamp = gen; memo.labels[v].node = 0
                    stack[stack.count - 1] = top | finish
                    for k in arcs where memo.labels[Int(up[k].node)].stamp != gen {
                        stack.append(up[k].node)
                        prefetchWalk(of: Int(up[k].node), target: target, targetLengths: targetLengths, lengths: lengths)
                    }
                    continue
                }
                stack.removeLast()
                var best = target.labels[v].stamp == gen ? target.labels[v].dist : .max
                // The best arc up, if any beats the target label: its length is looked up
                // once, after the loop (each lookup is likely a cache miss of its own).
                var bestArc = -1
                for k in arcs {
                    let a = up[k], x = Int(a.node)
                    // A neighbour still open lies on a cycle, which only a crafted file has.
                    guard memo.labels[x].stamp == gen, memo.labels[x].node == 1, memo.labels[x].dist != .max else { continue }
                    let c = plus(a.weight, memo.labels[x].dist)
                    if c < best { best = c; bestArc = k }
                }
                let length = bestArc >= 0 ? plus(lengthDm(of: up[bestArc].edge, original: originalLengths), lengths[Int(up[bestArc].node)])
                    : best == .max ? 0 : targetLengths[v]
                memo.labels[v].dist = best; lengths[v] = length; memo.labels[v].node = 1
                count += 1
            }
        }
        return count
    }

    /// Asks for what `walkUp` reads and writes of node `x` when it comes to it: the start of
    /// its arcs, its target label and length, and its own length.
    @inline(__always) func prefetchWalk(of x: Int, target: SearchSide, targetLengths: [UInt32], lengths: [UInt32]) {
        guard x >= 0, x < upFirst.count, x < target.labels.count, x < targetLengths.count, x < lengths.count else { return }
        upFirst.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + x) }
        target.labels.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + x) }
        targetLengths.withUnsafeBufferPointer { wayfare_prefetch($0.baseAddress! + x) }
        lengths.withUnsafeBufferPointer { wayfare_prefetch_for_writing(UnsafeMutablePointer(mutating: $0.baseAddress! + x)) }
    }
}
