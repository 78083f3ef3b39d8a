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
            guard d == side.dist[u] else { continue }
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

    /// From each seed's node, a depth-first walk up the `up` arcs that leaves in `memo.dist`
    /// (where `memo.stamp == gen`) each node's exact time to the target:
    /// `min(target.dist of v, min over arcs v → x of weight + memo.dist[x])`, and in `lengths`
    /// that path's length. A node is finished after all its higher neighbours (post-order),
    /// and once, however many seeds climb through it. `memo.parentNode` is 1 once a node is
    /// finished, 0 while it is open. Returns the nodes finished.
    func walkUp(from seeds: [Router.Seed], memo: inout SearchSide, lengths: inout [UInt32],
                target: SearchSide, targetLengths: [UInt32], originalLengths: [UInt32],
                stack: inout [UInt32], gen: UInt32) -> Int {
        let finish: UInt32 = 1 << 31
        var count = 0
        for seed in seeds where memo.stamp[Int(seed.node)] != gen {
            stack.append(seed.node)
            while let top = stack.last {
                let v = Int(top & ~finish)
                let arcs = Int(upFirst[v])..<Int(upFirst[v + 1])
                if top & finish == 0 {
                    if memo.stamp[v] == gen { stack.removeLast(); continue }
                    memo.stamp[v] = gen; memo.parentNode[v] = 0
                    stack[stack.count - 1] = top | finish
                    for k in arcs where memo.stamp[Int(up[k].node)] != gen { stack.append(up[k].node) }
                    continue
                }
                stack.removeLast()
                var best = target.stamp[v] == gen ? target.dist[v] : .max
                var length = best == .max ? 0 : targetLengths[v]
                for k in arcs {
                    let a = up[k], x = Int(a.node)
                    // A neighbour still open lies on a cycle, which only a crafted file has.
                    guard memo.stamp[x] == gen, memo.parentNode[x] == 1, memo.dist[x] != .max else { continue }
                    let c = plus(a.weight, memo.dist[x])
                    if c < best { best = c; length = plus(lengthDm(of: a.edge, original: originalLengths), lengths[x]) }
                }
                memo.dist[v] = best; lengths[v] = length; memo.parentNode[v] = 1
                count += 1
            }
        }
        return count
    }
}
