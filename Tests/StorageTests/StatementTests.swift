import Foundation
import Storage
import TestSupport
import Testing

/// Statements with their values bound where they appear, and rows decoded by column name,
/// on both stores.
@Suite("Storage: interpolated statements and Decodable rows")
struct StatementTests {
    @Test("each interpolated value is a placeholder and an argument, fragments keep their own in order")
    func interpolation() {
        let id: Int64 = 7, name = "Ann", none: String? = nil, seats: Int? = 4
        let s: Statement = "UPDATE users SET name = \(name), note = \(none), seats = \(seats) WHERE id = \(id) AND active = \(true)"
        #expect(s.text == "UPDATE users SET name = ?, note = ?, seats = ? WHERE id = ? AND active = ?")
        #expect(s.arguments == [.text("Ann"), .null, .integer(4), .integer(7), .integer(1)])
        let filter: Statement = "kind = \("invoice")"
        let whole: Statement = "SELECT id FROM outbox WHERE user_id = \(id) AND \(sql: filter) LIMIT \(5)"
        #expect(whole.text == "SELECT id FROM outbox WHERE user_id = ? AND kind = ? LIMIT ?")
        #expect(whole.arguments == [.integer(7), .text("invoice"), .integer(5)])
    }

    struct Person: Decodable, Equatable {
        enum Kind: String, Decodable { case rider, driver }
        let id: Int64
        let name: String
        let kind: Kind
        let seats: Int32
        let note: String?
        let active: Bool
    }

    @Test("a value that looks like SQL is stored as text; rows decode by name in any order; a bad column is named, never trapped on",
          arguments: Engine.allCases)
    func roundTrip(engine: Engine) throws {
        guard let scratch = try ScratchStore.make(engine, migrate: false) else { return }
        let hostile = "x'); DROP TABLE people; --"
        let people = try scratch.store.blockingWrite { c -> [Person] in
            try c.execute("CREATE TABLE people (id BIGINT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, seats BIGINT NOT NULL, note TEXT, active BIGINT NOT NULL)")
            for (id, name, seats, note) in [(1 as Int64, hostile, 4 as Int64, nil as String?), (2, "Bo", 3_000_000_000, "big")] {
                try c.execute("INSERT INTO people (id, name, kind, seats, note, active) VALUES (\(id), \(name), \("driver"), \(seats), \(note), \(id == 1))")
            }
            return try c.fetchAll(Person.self, "SELECT active, note, seats, kind, name, id FROM people WHERE id = \(Int64(1))")
        }
        #expect(people == [Person(id: 1, name: hostile, kind: .driver, seats: 4, note: nil, active: true)])
        try scratch.store.blockingRead { c throws -> Void in
            // 3,000,000,000 does not fit an Int32: a decoding error naming the column.
            #expect(throws: StoreError.decoding(column: "seats", expected: "a whole number that fits Int32")) {
                _ = try c.fetchOne(Person.self, "SELECT id, name, kind, seats, note, active FROM people WHERE id = \(2)")
            }
            // A column the record needs and the query does not give.
            #expect(throws: StoreError.self) { _ = try c.fetchOne(Person.self, "SELECT id, name FROM people WHERE id = \(1)") }
            #expect(try c.fetchOne(Person.self, "SELECT id, name, kind, seats, note, active FROM people WHERE id = \(99)") == nil)
        }
    }
}
