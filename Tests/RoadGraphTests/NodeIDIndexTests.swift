import Testing
import Geodesy
@testable import RoadGraph

/// `NodeIDIndex` against the string dictionary it replaced, which is the oracle: the same
/// ids accepted, the same duplicates refused, the same node for every text looked up.
struct NodeIDIndexTests {
    /// Inserts `ids` into both, in order, and checks every answer along the way and at the
    /// end, for the ids and for `probes`.
    func agree(_ ids: [String], probes: [String] = []) {
        var index = NodeIDIndex(), oracle: [String: UInt32] = [:]
        for (k, id) in ids.enumerated() {
            let fresh = oracle[id] == nil
            if fresh { oracle[id] = UInt32(k) }
            #expect(index.insert(id, node: UInt32(k)) == fresh, "inserting \(id)")
        }
        #expect(index.count == oracle.count)
        for id in ids + probes { #expect(index.node(id) == oracle[id], "looking up \"\(id)\"") }
    }

    @Test func denseIntegersAsAnExportNumbersThem() {
        agree((0..<5_000).map(String.init), probes: ["5000", "-1", "", "00", "01", " 1", "1 ", "+1", "1e3", "x"])
        // Out of order, with gaps, and duplicates refused.
        agree(["7", "3", "9", "3", "0", "12", "7"], probes: ["8", "13"])
    }

    @Test func largeIdsAsOpenStreetMapNumbersThem() {
        var generator = SeededRandom(seed: 33)
        let ids = (0..<2_000).map { _ in String(generator.next() % 12_000_000_000) }
        agree(ids + ids.prefix(10), probes: ["999999999999999999", "9999999999999999999", "1", "0"])
        // Dense at first, then one far beyond the rest: moved to the integer dictionary.
        agree((0..<100).map(String.init) + ["11000000000", "100", "5", "11000000000"], probes: ["101", "10999999999"])
    }

    @Test func theFirstIdThatIsNoPlainIntegerMovesEveryIdToText() {
        // "007" is not 7, and "7" keeps naming the node it named.
        agree(["1", "7", "2", "007", "7", "a", "2"], probes: ["07", "007", "1", "3"])
        // From the integer dictionary as well.
        agree(["5", "123456789012", "n5", "123456789012", "5"], probes: ["n5", "123456789013"])
        // Signs, blanks and too many digits are text too.
        agree(["-5", "5", "+5", " 5", "1234567890123456789", "1234567890123456789"], probes: ["-5", "5"])
        agree(["a", "b", "1", "1", "2"], probes: ["0", "3"])
    }

    @Test func onlyWhatStringWritesIsAnInteger() {
        #expect(NodeIDIndex.integer("0") == 0)
        #expect(NodeIDIndex.integer("10") == 10)
        #expect(NodeIDIndex.integer("123456789012345678") == 123_456_789_012_345_678)
        for text in ["", "00", "01", "-1", "+1", " 1", "1 ", "1.0", "1e3", "１", "1234567890123456789"] {
            #expect(NodeIDIndex.integer(text) == nil, "\"\(text)\"")
        }
    }
}
