import Essentials
import Foundation
import Geodesy
import Testing
import TestSupport

/// The heap against a sorted array: every pop gives what a sort says comes next.
@Suite("Essentials: the one heap")
struct HeapTests {
    enum Descending: HeapOrder {
        static func precedes(_ a: Int, _ b: Int) -> Bool { a > b }
    }

    @Test("pushes and pops in any interleaving come out in sorted order, duplicates included")
    func matchesSorting() {
        var rng = SeededRandom(seed: 7)
        for round in 0..<200 {
            var heap = Heap<Ascending<Int>>()
            var model: [Int] = []
            for _ in 0..<Int.random(in: 0...300, using: &rng) {
                if model.isEmpty || Int.random(in: 0..<3, using: &rng) > 0 {
                    let x = Int.random(in: 0...(round % 2 == 0 ? 20 : 1_000_000), using: &rng)
                    heap.push(x)
                    model.append(x)
                } else {
                    model.sort()
                    #expect(heap.pop() == model.removeFirst())
                }
                #expect(heap.count == model.count && heap.top == model.min())
            }
            model.sort()
            var drained: [Int] = []
            while let x = heap.pop() { drained.append(x) }
            #expect(drained == model)
            #expect(heap.isEmpty && heap.pop() == nil)
        }
    }

    @Test("a bounded best-k with the worst on top keeps exactly the k smallest")
    func boundedBestK() {
        var rng = SeededRandom(seed: 11)
        for k in [1, 2, 5, 17] {
            var best = Heap<Descending>()
            var all: [Int] = []
            for _ in 0..<1_000 {
                let x = Int.random(in: 0...5_000, using: &rng)
                all.append(x)
                if best.count < k { best.push(x) } else if let worst = best.top, x < worst { best.replaceTop(with: x) }
            }
            #expect(best.unordered.sorted() == Array(all.sorted().prefix(k)))
        }
    }

    @Test("filter keeps what it accepts, still a heap; removeAll empties")
    func filterAndRemoveAll() {
        var heap = Heap<Ascending<Int>>()
        for x in (0..<100).reversed() { heap.push(x) }
        heap.filter { $0 % 3 == 0 }
        var out: [Int] = []
        while let x = heap.pop() { out.append(x) }
        #expect(out == Array(stride(from: 0, to: 100, by: 3)))
        heap.push(1)
        heap.removeAll()
        #expect(heap.isEmpty)
    }
}

@Suite("Essentials: percentile and times")
struct PercentileAndTimeTests {
    @Test("nearest rank: the smallest value with at least p of the values at or below it")
    func nearestRank() {
        #expect(percentile(0.5, ofSorted: []) == nil)
        #expect(percentile(0.5, ofSorted: [7]) == 7)
        #expect(percentile(0.5, ofSorted: [1, 2, 3, 4]) == 2)
        #expect(percentile(0.5, ofSorted: [1, 2, 3, 4, 5]) == 3)
        let hundred = (1...100).map(Double.init)
        #expect(percentile(0.99, ofSorted: hundred) == 99)
        #expect(percentile(0.95, ofSorted: hundred) == 95)
        #expect(percentile(1, ofSorted: hundred) == 100)
        #expect(percentile(0, ofSorted: hundred) == 1)
        // By brute force over p: at least p of the values are at or below the answer, and
        // fewer than p are strictly below it.
        for p in stride(from: 0.01, through: 1.0, by: 0.01) {
            let v = percentile(p, ofSorted: hundred)!
            #expect(Double(hundred.filter { $0 <= v }.count) >= p * 100 - 1e-9)
            #expect(Double(hundred.filter { $0 < v }.count) < p * 100 + 1e-9)
        }
    }

    @Test("times are written in UTC to the nearest millisecond and read back with or without fractions")
    func iso8601() {
        let t = Date(timeIntervalSince1970: 1_795_631_400.123)
        #expect(ISO8601.string(t) == "2026-11-25T18:30:00.123Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_795_631_400.9996)) == "2026-11-25T18:30:01.000Z")
        #expect(ISO8601.seconds(t) == "2026-11-25T18:30:00Z")
        #expect(ISO8601.date("2026-11-25T18:30:00Z") == Date(timeIntervalSince1970: 1_795_631_400))
        #expect(ISO8601.date("2026-11-25T19:30:00.5+01:00") == Date(timeIntervalSince1970: 1_795_631_400.5))
        #expect(ISO8601.date("tomorrow") == nil)
        #expect(ISO8601.date(String(repeating: "9", count: 41)) == nil)
    }

    @Test("a manual clock moves only when told")
    func manualClock() {
        let clock = ManualClock(Date(timeIntervalSince1970: 0))
        clock.advance(by: 90)
        #expect(clock.now() == Date(timeIntervalSince1970: 90))
        clock.set(Date(timeIntervalSince1970: 5))
        #expect(clock.now() == Date(timeIntervalSince1970: 5))
    }
}

/// Large arrays on huge pages: the same contents as an ordinary array, and the advice seen
/// by the kernel (its flags for the array's mapping), for large arrays only.
@Suite("Essentials: large arrays on huge pages")
struct HugePagesTests {
    @Test("an array made on huge pages holds what an ordinary one does, at every size around the threshold")
    func sameContents() {
        let element = SIMD4<UInt32>(1, 2, 3, 4), stride = MemoryLayout<SIMD4<UInt32>>.stride
        for count in [0, 1, 7, HugePages.threshold / stride - 1, HugePages.threshold / stride, HugePages.threshold / stride + 3] {
            let array = [SIMD4<UInt32>](onHugePages: element, count: count)
            #expect(array == [SIMD4<UInt32>](repeating: element, count: count), "count \(count)")
        }
    }

    @Test("a large array's mapping is advised for huge pages",
          .enabled(if: HugePageAdvice.isSupported, "no transparent huge pages on this kernel"))
    func advised() {
        let large = [UInt32](onHugePages: 7, count: 3 * HugePages.threshold / 4)
        large.withUnsafeBytes { bytes in
            // The middle of the array: its first and last pages may share a mapping left alone.
            // (That a small array is not advised cannot be checked this way: other tests'
            // large arrays, advised and freed, leave their pages' flags for what comes next.)
            #expect(HugePageAdvice.isAdvised(bytes.baseAddress! + bytes.count / 2) == true)
        }
    }

    @Test("advice on no memory, a few bytes or an unaligned range is harmless")
    func harmless() {
        HugePages.advise(nil, byteCount: 1 << 30)
        var bytes = [UInt8](repeating: 1, count: 100)
        bytes.withUnsafeMutableBytes { HugePages.advise($0.baseAddress! + 3, byteCount: 97) }
        let unaligned = UnsafeMutableRawPointer.allocate(byteCount: HugePages.threshold + 4_099, alignment: 8)
        defer { unaligned.deallocate() }
        HugePages.advise(unaligned + 5, byteCount: HugePages.threshold + 4_090)
        unaligned.storeBytes(of: 9, toByteOffset: 5, as: UInt8.self)
        #expect(bytes.allSatisfy { $0 == 1 } && unaligned.load(fromByteOffset: 5, as: UInt8.self) == 9)
    }
}
