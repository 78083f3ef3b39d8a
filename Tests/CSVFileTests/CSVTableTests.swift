import Testing
import CSVFile

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
}
