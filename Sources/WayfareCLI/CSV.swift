import BinaryFile
import CSVFile
import Foundation
import Geodesy
import GeoJSON

/// A CLI failure: one line naming the file, line or field; exits nonzero.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension CSVTable {
    /// Reads a table, failing with a CLI error.
    init(reading path: String, required: [String]) throws(CLIError) {
        do { self = try CSVTable(path: path, required: required) } catch { throw CLIError(error.description) }
    }

    /// A column's index, failing with a CLI error.
    func index(of name: String) throws(CLIError) -> Int {
        do { return try column(name) } catch { throw CLIError(error.description) }
    }

    /// A numeric field, failing with a CLI error.
    func value(_ row: (line: Int, fields: [String]), _ column: Int) throws(CLIError) -> Double {
        do { return try number(row, column) } catch { throw CLIError(error.description) }
    }
}

/// Writes text atomically (temporary file, then rename); "-" means standard output.
func writeOutput(_ text: String, to path: String?) throws(CLIError) {
    guard let path, path != "-" else {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
    }
    // Durable and atomic: readers see the old file or the whole new one, even after a crash.
    do { try BinaryFile.writeAtomically(Array(text.utf8), to: path) } catch {
        throw CLIError("\(path): \(error.reason)")
    }
}

/// Creates an output folder (and its parents) unless it exists.
func createFolder(_ path: String) throws(CLIError) {
    do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
        throw CLIError("\(path): cannot create the folder: \(error.localizedDescription)")
    }
}

/// Progress and notes for people go to standard error.
let startTime = Date()
func note(_ text: String) {
    let t = String(format: "[%6.2fs] ", Date().timeIntervalSince(startTime))
    FileHandle.standardError.write(Data((t + text + "\n").utf8))
}

/// A coordinate in degrees as output text: at most 7 decimals (1 cm), trailing zeros
/// dropped. Why 7: it is the precision OSM stores, and anything longer is float noise
/// (`7.425472399999999`).
func degreesText(_ v: Double) -> String {
    var s = String(format: "%.7f", v)
    while s.hasSuffix("0") { s.removeLast() }
    if s.hasSuffix(".") { s.removeLast() }
    return s == "-0" ? "0" : s
}

/// The same, as a JSON number.
func degreesJSON(_ v: Double) -> JSONValue { .number(Coordinate.sevenDecimals(v)) }

/// "lat,lon" with at most 7 decimals each.
func coordinateText(_ c: Coordinate) -> String { degreesText(c.latitude) + "," + degreesText(c.longitude) }
