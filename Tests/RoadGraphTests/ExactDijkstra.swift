/// A Dijkstra over `Double` costs with its own binary heap, written apart from the router:
/// the oracle for tests that check routes against a file's own numbers (no integer units,
/// no hierarchy). Returns each node's cost from `source` and the edges on its path.
func exactDijkstra(adjacency: [[(to: Int, cost: Double)]], from source: Int) -> (cost: [Double], hops: [Int]) {
    var cost = [Double](repeating: .infinity, count: adjacency.count), hops = [Int](repeating: 0, count: adjacency.count)
    var heap: [(Double, Int)] = [(0, source)]
    cost[source] = 0
    func push(_ item: (Double, Int)) {
        heap.append(item)
        var i = heap.count - 1
        while i > 0, heap[(i - 1) / 2].0 > heap[i].0 { heap.swapAt(i, (i - 1) / 2); i = (i - 1) / 2 }
    }
    func pop() -> (Double, Int) {
        let top = heap[0]
        heap[0] = heap[heap.count - 1]; heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, heap[l].0 < heap[m].0 { m = l }
            if r < heap.count, heap[r].0 < heap[m].0 { m = r }
            if m == i { break }
            heap.swapAt(i, m); i = m
        }
        return top
    }
    while !heap.isEmpty {
        let (c, v) = pop()
        guard c <= cost[v] else { continue }
        for (w, x) in adjacency[v] where c + x < cost[w] {
            cost[w] = c + x; hops[w] = hops[v] + 1
            push((c + x, w))
        }
    }
    return (cost, hops)
}
