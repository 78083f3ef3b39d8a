import Foundation

/// A CSV problem, one line naming the file and line.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error in one line, naming the file and line.
    public let description: String
    /// An error with its one-line text.
    public init(_ description: String) { self.description = description }
}

/// A CSV table read whole: a header and rows (RFC 4180 quoting), parsed at the byte level
/// so million-row files read in about a second.
public struct CSVTable: Sendable {
    /// The file the table was read from, for error messages.
    public let path: String
    /// Column names, trimmed and lower-cased.
    public let header: [String]
    /// Each row with its 1-based line number in the file.
    public let rows: [Row]

    /// Reads `path`; invalid UTF-8, a missing header or a ragged row is an error naming the line.
    public init(path: String, required: [String]) throws(CSVError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CSVError("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
        }
        try self.init(bytes: [UInt8](data), path: path, required: required)
    }

    /// Parses CSV text already in memory; `path` names it in errors.
    public init(bytes: [UInt8], path: String, required: [String]) throws(CSVError) {
        var rows: [Row] = []
        var header: [String] = []
        do {
            header = try Self.parse(bytes: bytes, path: path, required: required) { rows.append($0) }
        } catch let e as CSVError { throw e } catch { throw CSVError("\(path): \(error)") }
        self.init(path: path, header: header, rows: rows)
    }

    /// One row: its 1-based line number in the file and its fields.
    public typealias Row = (line: Int, fields: [String])

    private init(path: String, header: [String], rows: [Row]) {
        self.path = path; self.header = header; self.rows = rows
    }

    /// Reads `path` row by row without keeping the rows: `body` gets a table holding only
    /// the header (for `column` and `number`) and each row in turn. Why: a million-row file
    /// kept whole as strings takes several times its size in memory. Errors are those of
    /// `init(path:required:)`, or whatever `body` throws.
    public static func forEachRow(path: String, required: [String], _ body: (_ table: CSVTable, _ row: Row) throws -> Void) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CSVError("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
        }
        var table: CSVTable?
        _ = try parse(bytes: [UInt8](data), path: path, required: required, header: { table = CSVTable(path: path, header: $0, rows: []) }) { row in
            try body(table!, row)  // the header comes before any row
        }
    }

    /// The parser: calls `header` once with the trimmed, lower-cased column names and then
    /// `record` for each row after checking its field count; returns the header.
    @discardableResult
    static func parse(bytes: [UInt8], path: String, required: [String], header tell: ([String]) -> Void = { _ in },
                      record: (Row) throws -> Void) throws -> [String] {
        var line = 1, k = 0
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline: UInt8 = 0x0A, cr: UInt8 = 0x0D
        var fields: [String] = [], field: [UInt8] = []
        var recordLine = 1
        var header: [String]?
        func finishField() throws(CSVError) {
            // ASCII is valid UTF-8 as it stands: `String(validating:)` went through generic
            // code that looked up type metadata for every field (a fifth of a million-row
            // import), where decoding ASCII is a copy.
            if field.allSatisfy({ $0 < 0x80 }) {
                fields.append(String(decoding: field, as: UTF8.self))
            } else {
                guard let s = String(validating: field, as: UTF8.self) else { throw CSVError("\(path): line \(recordLine): invalid UTF-8") }
                fields.append(s)
            }
            field.removeAll(keepingCapacity: true)
        }
        while k < bytes.count {
            // One record: fields separated by commas, newlines inside quotes kept.
            recordLine = line
            fields.removeAll(keepingCapacity: true)
            var inQuotes = false, empty = true
            while k < bytes.count {
                let b = bytes[k]
                k += 1
                if inQuotes {
                    if b == quote {
                        if k < bytes.count && bytes[k] == quote { field.append(quote); k += 1 } else { inQuotes = false }
                    } else {
                        if b == newline { line += 1 }
                        field.append(b)
                    }
                    continue
                }
                if b == newline { break }
                empty = false
                if b == quote { inQuotes = true }
                else if b == comma { try finishField() }
                else if b == cr && (k == bytes.count || bytes[k] == newline) { continue }
                else if b < 0x20 && b != 0x09 { throw CSVError("\(path): line \(line): control character in a field") }
                else { field.append(b) }
            }
            if inQuotes { throw CSVError("\(path): line \(recordLine): unterminated quoted field") }
            line += 1
            if empty && field.isEmpty { continue }
            try finishField()
            guard let header else {
                let names = fields.map { Self.trimmed($0).lowercased() }
                for r in required where !names.contains(r) {
                    throw CSVError("\(path): line 1: the header has no column \"\(r)\" (expected \(required.joined(separator: ",")))")
                }
                header = names
                tell(names)
                continue
            }
            guard fields.count == header.count else {
                throw CSVError("\(path): line \(recordLine): \(fields.count) fields, the header has \(header.count)")
            }
            try record((recordLine, fields))
        }
        guard let header else { throw CSVError("\(path): the file is empty (expected a header)") }
        return header
    }

    /// The index of a column (lower-case name), or an error naming the file when the
    /// header has none by that name.
    public func column(_ name: String) throws(CSVError) -> Int {
        guard let i = header.firstIndex(of: name) else {
            throw CSVError("\(path): line 1: the header has no column \"\(name)\"")
        }
        return i
    }

    /// The index of an optional column, or nil when the header has none by that name.
    public func optionalColumn(_ name: String) -> Int? { header.firstIndex(of: name) }

    /// A numeric field, or an error naming the line and column.
    public func number(_ row: Row, _ column: Int) throws(CSVError) -> Double {
        guard row.fields.indices.contains(column), header.indices.contains(column) else {
            throw CSVError("\(path): line \(row.line): no field \(column + 1)")
        }
        let raw = row.fields[column]
        if let v = Self.plainDecimal(raw) { return v }  // the common case: "128.30"
        if let v = Double(raw), v.isFinite { return v }  // no spaces
        let text = Self.trimmed(raw)
        guard let v = Double(text), v.isFinite else {
            throw CSVError("\(path): line \(row.line): \(header[column]) \"\(text)\" is not a finite number")
        }
        return v
    }
}

extension CSVTable {
    /// The value of `s` when it is a plain decimal (an optional "-", digits, an optional
    /// "." and digits) of at most 15 significant digits, else nil. Why: `Double(String)`
    /// goes through `strtod`, a fifth of reading a million-row file. The result is the one
    /// `Double(s)` gives: the digits as an integer below 2^53 and a power of ten up to
    /// 10^22 are both exact, so one division rounds once, correctly (Clinger's fast path).
    package static func plainDecimal(_ s: String) -> Double? {
        var mantissa: UInt64 = 0, digits = 0, fraction = 0, seenPoint = false, seenDigit = false, negative = false
        for (i, b) in s.utf8.enumerated() {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                seenDigit = true
                if mantissa > 0 || b != UInt8(ascii: "0") { digits += 1 }  // leading zeros are not significant
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(b - UInt8(ascii: "0"))
                if seenPoint { fraction += 1 }
            case UInt8(ascii: "."):
                guard !seenPoint else { return nil }
                seenPoint = true
            case UInt8(ascii: "-") where i == 0:
                negative = true
            default:
                return nil
            }
        }
        // A lone "-", "." or "-." has no digit.
        guard seenDigit, fraction <= 22 else { return nil }
        let value = Double(mantissa) / Self.powersOfTen[fraction]
        return negative ? -value : value
    }

    /// 10^0 … 10^22, each exact as a `Double`.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { x, _ in x * 10 } }

    /// A text field without the blanks around it (tabs and Unicode spaces, as Foundation's
    /// `CharacterSet.whitespaces` has them); "" for a column the row does not have.
    public func text(_ row: Row, _ column: Int) -> String {
        row.fields.indices.contains(column) ? Self.trimmed(row.fields[column]) : ""
    }

    /// `s` without the blanks around it, as `trimmingCharacters(in: .whitespaces)` gives it,
    /// in pure Swift: Foundation's went through `NSString` for every field. A field with
    /// nothing to trim (nearly all) is returned as it is.
    public static func trimmed(_ s: String) -> String {
        let scalars = s.unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isBlank(first) || isBlank(last) else { return s }
        var lo = scalars.startIndex, hi = scalars.endIndex
        while lo < hi, isBlank(scalars[lo]) { lo = scalars.index(after: lo) }
        while hi > lo, isBlank(scalars[scalars.index(before: hi)]) { hi = scalars.index(before: hi) }
        return String(scalars[lo..<hi])
    }

    /// What Foundation's `CharacterSet.whitespaces` holds: the tab, the space separators
    /// (Unicode category Zs) and, as Core Foundation has it, the zero-width space U+200B.
    private static func isBlank(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }
}

/// Quotes a CSV field when it needs it.
public func csvField(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
