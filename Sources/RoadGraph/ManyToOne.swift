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
                    for k in arcs where memo.labels[Int(up[k].node)].stamp != gen { stack.append(up[k].node) }
                    continue
                }
                stack.removeLast()
                var best = target.labels[v].stamp == gen ? target.labels[v].dist : .max
                var length = best == .max ? 0 : targetLengths[v]
                for k in arcs {
                    let a = up[k], x = Int(a.node)
                    // A neighbour still open lies on a cycle, which only a crafted file has.
                    guard memo.labels[x].stamp == gen, memo.labels[x].node == 1, memo.labels[x].dist != .max else { continue }
                    let c = plus(a.weight, memo.labels[x].dist)
                    if c < best { best = c; length = plus(lengthDm(of: a.edge, original: originalLengths), lengths[x]) }
                }
                memo.labels[v].dist = best; lengths[v] = length; memo.labels[v].node = 1
                count += 1
            }
        }
        return count
    }
}
