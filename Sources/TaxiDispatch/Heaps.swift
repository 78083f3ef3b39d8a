import Essentials
import Foundation

/// Timed items on the project's one heap (`Essentials.Heap`): the dispatcher's deadlines
/// and the virtual scheduler's work. Ties pop in push order, which a counter gives.
struct TimedHeap<What> {
    struct Entry { var date: Date; var order: UInt64; var what: What }
    enum EarliestFirst: HeapOrder {
        static func precedes(_ a: Entry, _ b: Entry) -> Bool { a.date < b.date || (a.date == b.date && a.order < b.order) }
    }
    private var heap = Heap<EarliestFirst>()
    private var order: UInt64 = 0

    var first: Entry? { heap.top }
    var count: Int { heap.count }

    mutating func push(_ date: Date, _ what: What) {
        order += 1
        heap.push(Entry(date: date, order: order, what: what))
    }

    @discardableResult
    mutating func pop() -> Entry? { heap.pop() }

    /// Keeps only the entries `isIncluded` accepts.
    mutating func filter(_ isIncluded: (Entry) -> Bool) { heap.filter(isIncluded) }
}

/// When cabs go stale: one entry per applied report (the cab's slot and that report's
/// time). An entry whose report is no longer the cab's latest is skipped when it surfaces;
/// so the heap never needs a decrease-key, and it is rebuilt from the live entries when
/// leftovers outnumber them.
struct StaleHeap {
    struct Item { var slot: Int; var report: Date }
    private var heap = TimedHeap<Item>()

    var first: (date: Date, slot: Int, report: Date)? { heap.first.map { ($0.date, $0.what.slot, $0.what.report) } }
    var count: Int { heap.count }

    mutating func push(_ date: Date, slot: Int, report: Date) { heap.push(date, Item(slot: slot, report: report)) }
    mutating func pop() { heap.pop() }

    /// Keeps only the entries `isLatest` accepts (one per cab): called when leftovers
    /// dominate.
    mutating func compact(isLatest: (Item) -> Bool) { heap.filter { isLatest($0.what) } }
}
