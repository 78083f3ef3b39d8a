import Foundation
import Testing
import CSVFile
import Geodesy

@Suite struct CSVTableTests {
    func table(_ text: String, required: [String] = []) throws(CSVError) -> CSVTable {
        try CSVTable(bytes: Array(text.utf8), path: "t.csv", required: required)
    }

    @Test func quotingNewlinesAndLineNumbers() throws {
        let t = try table("id,name\r\n1,\"a, \"\"b\"\"\"\n2,\"two\nlines\"\n\n3,c\n")
        #expect(t.header == ["id", "name"])
        #expect(t.rows.map(\.fields) == [["1", "a, \"b\""], ["2", "two\nlines"], ["3", "c"]])
        #expect(t.rows.map(\.line) == [2, 3, 6])
    }

    @Test func aColumnNotInTheHeaderIsAnErrorNotATrap() throws {
        let t = try table("lat,lon\n1,2\n")
        #expect(try t.column("lon") == 1)
        #expect(t.optionalColumn("wkt") == nil)
        #expect(throws: CSVError("t.csv: line 1: the header has no column \"id\"")) { try t.column("id") }
        #expect(throws: CSVError("t.csv: line 2: no field 8")) { try t.number(t.rows[0], 7) }
    }

    @Test func plainDecimalsReadAsDoubleReadsThem() {
        // The oracle is the standard library's reading (strtod), bit for bit (so -0 too).
        func agrees(_ s: String) -> Bool? {
            guard let fast = CSVTable.plainDecimal(s) else { return nil }
            return Double(s).map { $0.bitPattern == fast.bitPattern } ?? false
        }
        for s in ["128.30", "0", "-0", "-0.0", "5.", ".5", "-.5", "007.25", "0.1", "0.2", "0.3", "5.132",
                  "999999999999999", "0.00000000000000012345", "-123456789.012345", "1.79769313486231"] {
            #expect(agrees(s) == true, "\(s)")
        }
        // Not plain, or too long to be exact with one division: left to the standard library.
        for s in ["", "-", ".", "-.", "+5", "1e5", "1E-3", " 5", "5 ", "1.2.3", "--1", "1-", "0x10", "inf", "nan",
                  "1234567890123456", "0.00000000000000000000001", "1.7976931348623157", "١٢"] {
            #expect(CSVTable.plainDecimal(s) == nil, "\(s)")
        }
        // Seeded random decimals of every shape the fast path takes.
        var generator = SeededRandom(seed: 42)
        var checked = 0
        for _ in 0..<200_000 {
            let digits = Int(generator.next() % 17) + 1
            var s = generator.next() % 4 == 0 ? "-" : ""
            let point = Int(generator.next() % UInt64(digits + 2))
            for k in 0..<digits {
                if k == point { s += "." }
                s += String(generator.next() % 10)
            }
            if let ok = agrees(s) { #expect(ok, "\(s)"); checked += 1 }
        }
        #expect(checked > 100_000)
    }

    @Test func badInputNamesTheLine() {
        #expect(throws: CSVError("t.csv: line 3: 1 fields, the header has 2")) { try table("a,b\n1,2\n3\n") }
        #expect(throws: CSVError("t.csv: line 2: unterminated quoted field")) { try table("a\n\"x\n") }
        #expect(throws: CSVError("t.csv: the file is empty (expected a header)")) { try table("") }
        #expect(throws: CSVError("t.csv: line 1: the header has no column \"lat\" (expected lat)")) { try table("x\n1\n", required: ["lat"]) }
        #expect(throws: CSVError("t.csv: line 2: lat \"nan\" is not a finite number")) {
            let t = try table("lat\nnan\n"); _ = try t.number(t.rows[0], 0)
        }
        #expect(throws: CSVError("t.csv: line 2: invalid UTF-8")) { try CSVTable(bytes: [0x61, 0x0A, 0xFF, 0x0A], path: "t.csv", required: []) }
    }

    /// Trimming agrees with Foundation's `.whitespaces` (written apart from it, in pure Swift):
    /// tabs and every Unicode space separator go, line breaks and other characters stay.
    @Test func trimmingAgreesWithFoundation() throws {
        var samples = ["", " ", "\t", "42", " 42", "42\t", " \t 4 2 \t ", "\u{00A0}x\u{3000}", "\u{2009}é\u{202F}",
                       "\nx\n", "\u{200B}x", " \u{1F695} ", "\u{00A0}", "a\u{0301} ", "\u{FEFF}x\u{200C}", "\u{85}x\u{2028}"]
        // Every scalar of the Basic Multilingual Plane, alone and around a letter.
        for v in UInt32(0)...0xFFFF { if let u = Unicode.Scalar(v) { samples.append("\(u)a\(u)") } }
        for s in samples {
            if CSVTable.trimmed(s) != s.trimmingCharacters(in: .whitespaces) { Issue.record("\(s.unicodeScalars.map(\.value))") }
        }
        let t = try table("id,name\n 7 ,\t  Rue\u{00A0}de la Paix \n")
        #expect(t.text(t.rows[0], 0) == "7" && t.text(t.rows[0], 1) == "Rue\u{00A0}de la Paix" && t.text(t.rows[0], 5) == "")
        // Fields outside ASCII take the validating path, and keep what they hold.
        let u = try CSVTable(bytes: Array("name\nZürich\n\"東京\"\n".utf8), path: "t.csv", required: [])
        #expect(u.rows.map(\.fields) == [["Zürich"], ["東京"]])
        #expect(throws: CSVError("t.csv: line 2: invalid UTF-8")) { try CSVTable(bytes: [0x61, 0x0A, 0x62, 0xC3, 0x0A], path: "t.csv", required: []) }
    }

    /// Streaming gives the rows and the errors the whole-table reader gives, and passes on
    /// what the caller throws.
    @Test func streamingRowsMatchTheTable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wf-csv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String, _ text: String) -> String {
            let path = folder.appendingPathComponent(name).path
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            return path
        }
        let text = "id,name\r\n1,\"a, \"\"b\"\"\"\n2,\"two\nlines\"\n\n3,c\n"
        let path = write("t.csv", text)
        var streamed: [CSVTable.Row] = []
        try CSVTable.forEachRow(path: path, required: ["id"]) { table, row in
            #expect(table.header == ["id", "name"] && table.rows.isEmpty)
            let name = try table.column("name")
            #expect(name == 1)
            streamed.append(row)
        }
        let whole = try CSVTable(path: path, required: ["id"])
        #expect(streamed.map(\.fields) == whole.rows.map(\.fields) && streamed.map(\.line) == whole.rows.map(\.line))

        for (bad, message) in [("id,b\n1,2\n3\n", "line 3: 1 fields, the header has 2"), ("", "the file is empty (expected a header)"),
                               ("x\n1\n", "line 1: the header has no column \"id\" (expected id)")] {
            let p = write("bad.csv", bad)
            #expect(throws: CSVError("\(p): \(message)")) { try CSVTable.forEachRow(path: p, required: ["id"]) { _, _ in } }
        }
        struct Stop: Error, Equatable {}
        var seen = 0
        #expect(throws: Stop()) { try CSVTable.forEachRow(path: path, required: []) { _, _ in seen += 1; if seen == 2 { throw Stop() } } }
        #expect(seen == 2, "no row after the caller's error")
        #expect(throws: CSVError("/nonexistent-wayfare.csv: no such file")) { try CSVTable.forEachRow(path: "/nonexistent-wayfare.csv", required: []) { _, _ in } }
    }
}
