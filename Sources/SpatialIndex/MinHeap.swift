import Essentials

/// A min-heap of (key, node) packed into one UInt64, so a comparison is one integer compare;
/// stale entries are skipped by the caller (lazy deletion). The road router's searches and
/// the segment tree's nearest search run it millions of times a second; it is the project's
/// one `Heap`, specialised to `UInt64` and inlined.
public struct MinHeap: Sendable {
    @usableFromInline var heap = Heap<Ascending<UInt64>>()

    /// An empty heap.
    public init() {}

    /// Whether the heap holds nothing.
    @inlinable public var isEmpty: Bool { heap.isEmpty }
    /// The number of elements.
    @inlinable public var count: Int { heap.count }
    /// The node with the smallest key, if any.
    @inlinable public var peekNode: Int? { heap.top.map { Int($0 & 0xFFFF_FFFF) } }
    /// The smallest key, if any.
    @inlinable public var peekKey: UInt32? { heap.top.map { UInt32($0 >> 32) } }

    /// Empties the heap and keeps its capacity.
    @inlinable public mutating func removeAll() { heap.removeAll() }

    /// Adds `node` with `key`.
    @inlinable public mutating func push(_ key: UInt32, _ node: Int) {
        heap.push(UInt64(key) << 32 | UInt64(truncatingIfNeeded: node))
    }

    /// Removes and returns the entry with the smallest key (ties: the smaller node).
    @inlinable public mutating func pop() -> (UInt32, Int)? {
        guard let top = heap.pop() else { return nil }
        return (UInt32(top >> 32), Int(top & 0xFFFF_FFFF))
    }
}
