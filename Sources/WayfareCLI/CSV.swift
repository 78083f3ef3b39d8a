import Foundation

/// A CLI failure: one line naming the file, line or field; exits nonzero.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A CSV table read whole: a header and rows (RFC 4180 quoting).
struct CSVTable {
    let path: String
    let header: [String]
    /// Each row with its 1-based line number in the file.
    let rows: [(line: Int, fields: [String])]

    /// Reads `path`; invalid UTF-8, a missing header or a ragged row is an error naming the line.
    init(path: String, required: [String]) throws(CLIError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError("\(path): \(FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")")
        }
        var lines: [(Int, [String])] = []
        var line = 1
        var start = 0
        let bytes = [UInt8](data)
        var k = 0
        // Split records, honouring quotes, then decode each as UTF-8.
        while start < bytes.count {
            var inQuotes = false
            k = start
            while k < bytes.count {
                let b = bytes[k]
                if b == UInt8(ascii: "\"") { inQuotes.toggle() }
                if b == 0x0A && !inQuotes { break }
                k += 1
            }
            var end = k
            if end > start && bytes[end - 1] == 0x0D { end -= 1 }
            let record = bytes[start..<end]
            guard let text = String(validating: record, as: UTF8.self) else {
                throw CLIError("\(path): line \(line): invalid UTF-8")
            }
            if !text.isEmpty { lines.append((line, try CSVTable.fields(text, path: path, line: line))) }
            line += 1 + record.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            start = k + 1
        }
        guard let first = lines.first else { throw CLIError("\(path): the file is empty (expected a header)") }
        header = first.1.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for r in required where !header.contains(r) {
            throw CLIError("\(path): line 1: the header has no column \"\(r)\" (expected \(required.joined(separator: ",")))")
        }
        for (n, f) in lines.dropFirst() where f.count != header.count {
            throw CLIError("\(path): line \(n): \(f.count) fields, the header has \(header.count)")
        }
        rows = Array(lines.dropFirst())
    }

    static func fields(_ text: String, path: String, line: Int) throws(CLIError) -> [String] {
        var out: [String] = []
        var field = ""
        var inQuotes = false
        var it = Array(text)[...]
        while let c = it.popFirst() {
            if inQuotes {
                if c == "\"" {
                    if it.first == "\"" { field.append("\""); it.removeFirst() } else { inQuotes = false }
                } else { field.append(c) }
            } else if c == "\"" {
                inQuotes = true
            } else if c == "," {
                out.append(field); field = ""
            } else {
                if c.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
                    throw CLIError("\(path): line \(line): control character in a field")
                }
                field.append(c)
            }
        }
        if inQuotes { throw CLIError("\(path): line \(line): unterminated quoted field") }
        out.append(field)
        return out
    }

    func column(_ name: String) -> Int { header.firstIndex(of: name)! }

    /// A numeric field, or an error naming the line and column.
    func number(_ row: (line: Int, fields: [String]), _ column: Int) throws(CLIError) -> Double {
        let text = row.fields[column].trimmingCharacters(in: .whitespaces)
        guard let v = Double(text), v.isFinite else {
            throw CLIError("\(path): line \(row.line): \(header[column]) \"\(text)\" is not a finite number")
        }
        return v
    }
}

/// Quotes a CSV field when it needs it.
func csvField(_ s: String) -> String {
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// Writes text atomically (temporary file, then rename); "-" means standard output.
func writeOutput(_ text: String, to path: String?) throws(CLIError) {
    guard let path, path != "-" else {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
    }
    do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
        throw CLIError("\(path): cannot write: \(error.localizedDescription)")
    }
}

/// Progress and notes for people go to standard error.
let startTime = Date()
func note(_ text: String) {
    let t = String(format: "[%6.2fs] ", Date().timeIntervalSince(startTime))
    FileHandle.standardError.write(Data((t + text + "\n").utf8))
}
