/// Which of two elements a ``Heap`` gives out first.
///
/// An order is a type, not a closure, so a heap of it is specialised and its comparisons
/// inlined: the road router and the R-tree run heaps millions of times a second.
public protocol HeapOrder {
    /// What the heap holds.
    associatedtype Element
    /// Whether `a` comes out before `b`.
    static func precedes(_ a: Element, _ b: Element) -> Bool
}

/// Smallest first, by `<`.
public enum Ascending<Element: Comparable>: HeapOrder {
    /// `a < b`.
    @inlinable public static func precedes(_ a: Element, _ b: Element) -> Bool { a < b }
}

/// The project's one binary heap: the dispatcher's deadlines, the router's searches and the
/// R-tree's nearest neighbours all use it, each with its own ``HeapOrder``.
///
/// Elements live in one contiguous array. The sifts move a hole instead of swapping (one
/// write per level) and run on the array's buffer without bounds checks; the indices stay
/// inside `0..<count` by construction, which `HeapTests` checks against a sorted array.
public struct Heap<Order: HeapOrder> {
    @usableFromInline var storage: [Order.Element]

    /// An empty heap.
    @inlinable public init() { storage = [] }

    /// An empty heap with room for `capacity` elements.
    @inlinable public init(capacity: Int) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// How many elements it holds.
    @inlinable public var count: Int { storage.count }
    /// Whether it holds nothing.
    @inlinable public var isEmpty: Bool { storage.isEmpty }
    /// The element that comes out next.
    @inlinable public var top: Order.Element? { storage.first }
    /// The elements in the heap's own order (not sorted).
    @inlinable public var unordered: [Order.Element] { storage }

    /// Empties the heap and keeps its capacity.
    @inlinable public mutating func removeAll() { storage.removeAll(keepingCapacity: true) }

    /// Adds `element`.
    @inlinable public mutating func push(_ element: Order.Element) {
        storage.append(element)
        storage.withUnsafeMutableBufferPointer { items in
            var i = items.count - 1
            while i > 0 {
                let parent = (i - 1) >> 1
                guard Order.precedes(element, items[parent]) else { break }
                items[i] = items[parent]
                i = parent
            }
            items[i] = element
        }
    }

    /// Removes and returns the element that comes out first.
    @inlinable public mutating func pop() -> Order.Element? {
        guard let first = storage.first else { return nil }
        let last = storage.removeLast()
        if !storage.isEmpty { siftDown(last) }
        return first
    }

    /// Replaces the top with `element` in one sift (a bounded best-k keeps its worst on top
    /// and replaces it when a better one comes).
    /// - Precondition: the heap is not empty.
    @inlinable public mutating func replaceTop(with element: Order.Element) {
        precondition(!storage.isEmpty, "replaceTop on an empty heap")
        siftDown(element)
    }

    /// Puts `element` at the root and sifts it down.
    @inlinable mutating func siftDown(_ element: Order.Element) {
        storage.withUnsafeMutableBufferPointer { items in
            let n = items.count
            var i = 0
            while true {
                var child = 2 * i + 1
                guard child < n else { break }
                if child + 1 < n && Order.precedes(items[child + 1], items[child]) { child += 1 }
                guard Order.precedes(items[child], element) else { break }
                items[i] = items[child]
                i = child
            }
            items[i] = element
        }
    }

    /// Keeps only the elements `isIncluded` accepts, and restores the heap.
    @inlinable public mutating func filter(_ isIncluded: (Order.Element) -> Bool) {
        let kept = storage.filter(isIncluded)
        storage.removeAll(keepingCapacity: true)
        for element in kept { push(element) }
    }
}

extension Heap: Sendable where Order.Element: Sendable {}
