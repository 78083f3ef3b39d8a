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
    public let rows: [(line: Int, fields: [String])]

    /// Reads `path`; invalid UTF-8, a missing header or a ragged row is an error naming the line.
    public init(path: String, required: [String]) throws(CSVError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CSVError("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
        }
        try self.init(bytes: [UInt8](data), path: path, required: required)
    }

    /// Parses CSV text already in memory; `path` names it in errors.
    public init(bytes: [UInt8], path: String, required: [String]) throws(CSVError) {
        self.path = path
        var lines: [(Int, [String])] = []
        var line = 1, k = 0
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline: UInt8 = 0x0A, cr: UInt8 = 0x0D
        var fields: [String] = [], field: [UInt8] = []
        var recordLine = 1
        func finishField() throws(CSVError) {
            guard let s = String(validating: field, as: UTF8.self) else { throw CSVError("\(path): line \(recordLine): invalid UTF-8") }
            fields.append(s); field.removeAll(keepingCapacity: true)
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
            lines.append((recordLine, fields))
        }
        guard let first = lines.first else { throw CSVError("\(path): the file is empty (expected a header)") }
        header = first.1.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for r in required where !header.contains(r) {
            throw CSVError("\(path): line 1: the header has no column \"\(r)\" (expected \(required.joined(separator: ",")))")
        }
        for (n, f) in lines.dropFirst() where f.count != header.count {
            throw CSVError("\(path): line \(n): \(f.count) fields, the header has \(header.count)")
        }
        rows = Array(lines.dropFirst())
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
    public func number(_ row: (line: Int, fields: [String]), _ column: Int) throws(CSVError) -> Double {
        guard row.fields.indices.contains(column), header.indices.contains(column) else {
            throw CSVError("\(path): line \(row.line): no field \(column + 1)")
        }
        let raw = row.fields[column]
        if let v = Double(raw), v.isFinite { return v }  // the common case: no spaces
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard let v = Double(text), v.isFinite else {
            throw CSVError("\(path): line \(row.line): \(header[column]) \"\(text)\" is not a finite number")
        }
        return v
    }
}

/// Quotes a CSV field when it needs it.
public func csvField(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
