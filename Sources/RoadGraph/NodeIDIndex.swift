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
    /// Where the ids are: one of the three below holds them all.
    private enum Mode { case dense, sparse, text }
    private var mode = Mode.dense
    /// `table[id]` is the node (`absent`: none) for integer ids below `table.count`.
    private var table: [UInt32] = []
    private var numbers: [Int64: UInt32] = [:]
    private var names: [String: UInt32] = [:]
    /// Ids held.
    private(set) var count = 0
    private static let absent = UInt32.max
    /// The table grows to at most this many slots per id held (plus `slack`), so that a
    /// few ids far apart do not make it large; past that the ids go to a dictionary.
    private static let slotsPerID = 4, slack = 1 << 16

    /// Adds `id` for `node`; false (and nothing added) when the id is already there.
    mutating func insert(_ id: String, node: UInt32) -> Bool {
        if mode != .text, let number = Self.integer(id) { return insert(number, node: node) }
        moveToText()
        guard names[id] == nil else { return false }
        names[id] = node
        count += 1
        return true
    }

    /// The node `id` names, if any.
    func node(_ id: String) -> UInt32? {
        switch mode {
        case .dense:
            guard let number = Self.integer(id), number < table.count, table[Int(number)] != Self.absent else { return nil }
            return table[Int(number)]
        case .sparse:
            return Self.integer(id).flatMap { numbers[$0] }
        case .text:
            return names[id]
        }
    }

    private mutating func insert(_ number: Int64, node: UInt32) -> Bool {
        if mode == .dense && number >= Self.slotsPerID * (count + 1) + Self.slack { moveToSparse() }
        switch mode {
        case .dense:
            let i = Int(number)
            if i >= table.count {
                table.append(contentsOf: repeatElement(Self.absent, count: max(i + 1, 2 * table.count) - table.count))
            }
            guard table[i] == Self.absent else { return false }
            table[i] = node
        case .sparse:
            guard numbers[number] == nil else { return false }
            numbers[number] = node
        case .text:
            return insert(String(number), node: node)
        }
        count += 1
        return true
    }

    private mutating func moveToSparse() {
        numbers.reserveCapacity(count * 2)
        for (id, node) in table.enumerated() where node != Self.absent { numbers[Int64(id)] = node }
        table = []
        mode = .sparse
    }

    /// Moves every id to `names`, once: from then on each is looked up as it is written.
    private mutating func moveToText() {
        guard mode != .text else { return }
        names.reserveCapacity(count * 2)
        for (id, node) in table.enumerated() where node != Self.absent { names[String(id)] = node }
        for (id, node) in numbers { names[String(id)] = node }
        table = []; numbers = [:]
        mode = .text
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
