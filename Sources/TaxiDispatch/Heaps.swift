import Foundation

/// A binary min-heap of timed items: the dispatcher's deadlines. Ties pop in push order.
struct TimedHeap<What> {
    struct Entry { var date: Date; var order: UInt64; var what: What }
    private(set) var entries: [Entry] = []
    private var order: UInt64 = 0

    var first: Entry? { entries.first }
    var count: Int { entries.count }

    mutating func push(_ date: Date, _ what: What) {
        order += 1
        entries.append(Entry(date: date, order: order, what: what))
        var i = entries.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard Self.before(entries[i], entries[p]) else { break }
            entries.swapAt(i, p); i = p
        }
    }

    @discardableResult
    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        let top = entries[0], last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < entries.count, Self.before(entries[l], entries[m]) { m = l }
                if r < entries.count, Self.before(entries[r], entries[m]) { m = r }
                if m == i { break }
                entries.swapAt(i, m); i = m
            }
        }
        return top
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool { a.date < b.date || (a.date == b.date && a.order < b.order) }
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
    mutating func compact(isLatest: (Item) -> Bool) {
        var fresh = TimedHeap<Item>()
        for e in heap.entries where isLatest(e.what) { fresh.push(e.date, e.what) }
        heap = fresh
    }
}
