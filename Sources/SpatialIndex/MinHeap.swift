/// A binary min-heap of (key, node) packed into one UInt64, so a comparison is one integer
/// compare; stale entries are skipped by the caller (lazy deletion). Shared by the segment
/// tree's nearest search and the road router's searches, which run it millions of times a
/// second, hence `@inlinable` (measured: without it a Monaco route query is slower).
public struct MinHeap: Sendable {
    /// An empty heap.
    public init() {}
    @usableFromInline var items: [UInt64] = []

    /// The number of elements.
    /// Whether the heap holds nothing.
    @inlinable public var isEmpty: Bool { items.isEmpty }
    @inlinable public var count: Int { items.count }
    /// The smallest key, if any.
    @inlinable public var peekKey: UInt32? { items.first.map { UInt32($0 >> 32) } }

    /// Empties the heap and keeps its capacity.
    @inlinable public mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    /// Adds `node` with `key`.
    @inlinable public mutating func push(_ key: UInt32, _ node: Int) {
        var i = items.count
        let item = UInt64(key) << 32 | UInt64(node)
        items.append(item)
        while i > 0 {
            let parent = (i - 1) >> 1
            guard items[parent] > item else { break }
            items[i] = items[parent]; i = parent
        }
        items[i] = item
    }

    /// Removes and returns the entry with the smallest key (ties: the smaller node).
    @inlinable public mutating func pop() -> (UInt32, Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            var i = 0
            let n = items.count
            while true {
                var child = 2 * i + 1
                guard child < n else { break }
                if child + 1 < n && items[child + 1] < items[child] { child += 1 }
                guard items[child] < last else { break }
                items[i] = items[child]; i = child
            }
            items[i] = last
        }
        return (UInt32(top >> 32), Int(top & 0xFFFF_FFFF))
    }
}
