/// The CSV import's node ids, each with the node it names.
///
/// Why not a `[String: UInt32]`: on the 1M-node grid the edges named 7.4 million ids, and
/// hashing each string (a hasher seeded and run per lookup) was a fifth of the CSV import.
/// Exports mostly number their nodes 0, 1, 2, … or by OSM id, so ids written as plain
/// decimal integers are kept as integers: in a table indexed by the id while the ids stay
/// dense, in an integer dictionary once one is far beyond the rest. The first id that is
/// not a plain integer ("a", "007", "-5", " 7") moves every id to a string dictionary for
/// good, so that each text names the node it named before, and "007" is not "7".
struct NodeIDIndex {
    private enum Storage {
        /// `table[id]` is the node (`absent`: none) for integer ids below `table.count`.
        case dense([UInt32])
        case sparse([Int64: UInt32])
        case text([String: UInt32])
    }

    private var storage = Storage.dense([])
    /// Ids held.
    private(set) var count = 0
    private static let absent = UInt32.max
    /// The table grows to at most this many slots per id held (plus `slack`), so that a
    /// few ids far apart do not make it large; past that the ids go to a dictionary.
    private static let slotsPerID = 4, slack = 1 << 16

    /// Adds `id` for `node`; false (and nothing added) when the id is already there.
    mutating func insert(_ id: String, node: UInt32) -> Bool {
        if case .text = storage {} else if let number = Self.integer(id) { return insert(number, node: node) } else { moveToText() }
        guard case .text(var names) = storage else { return false }
        storage = .dense([])  // so that `names` is the dictionary's only reference while it changes
        defer { storage = .text(names) }
        guard names[id] == nil else { return false }
        names[id] = node
        count += 1
        return true
    }

    /// The node `id` names, if any.
    func node(_ id: String) -> UInt32? {
        switch storage {
        case .dense(let table):
            guard let number = Self.integer(id), number < table.count, table[Int(number)] != Self.absent else { return nil }
            return table[Int(number)]
        case .sparse(let numbers):
            return Self.integer(id).flatMap { numbers[$0] }
        case .text(let names):
            return names[id]
        }
    }

    private mutating func insert(_ number: Int64, node: UInt32) -> Bool {
        switch storage {
        case .dense(var table):
            let limit = Self.slotsPerID * (count + 1) + Self.slack
            guard number < limit else {
                moveToSparse()
                return insert(number, node: node)
            }
            storage = .sparse([:])  // `table` the array's only reference while it changes
            defer { storage = .dense(table) }
            let i = Int(number)
            if i >= table.count {
                table.append(contentsOf: repeatElement(Self.absent, count: max(i + 1, 2 * table.count) - table.count))
            }
            guard table[i] == Self.absent else { return false }
            table[i] = node
        case .sparse(var numbers):
            storage = .dense([])
            defer { storage = .sparse(numbers) }
            guard numbers[number] == nil else { return false }
            numbers[number] = node
        case .text:
            return insert(String(number), node: node)
        }
        count += 1
        return true
    }

    private mutating func moveToSparse() {
        guard case .dense(let table) = storage else { return }
        var numbers: [Int64: UInt32] = [:]
        numbers.reserveCapacity(count * 2)
        for (id, node) in table.enumerated() where node != Self.absent { numbers[Int64(id)] = node }
        storage = .sparse(numbers)
    }

    private mutating func moveToText() {
        var names: [String: UInt32] = [:]
        names.reserveCapacity(count * 2)
        switch storage {
        case .dense(let table):
            for (id, node) in table.enumerated() where node != Self.absent { names[String(id)] = node }
        case .sparse(let numbers):
            for (id, node) in numbers { names[String(id)] = node }
        case .text:
            return
        }
        storage = .text(names)
    }

    /// `text` as an integer if it is written as `String(integer)` writes it: digits only, no
    /// sign, no leading zero (but "0"), at most 18 digits (so that it cannot overflow).
    static func integer(_ text: String) -> Int64? {
        var value: Int64 = 0, digits = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 18 else { return nil }
            if digits == 1 && value == 0 { return nil }  // a leading zero
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
