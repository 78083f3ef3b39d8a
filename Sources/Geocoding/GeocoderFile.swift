import BinaryFile
import SpatialIndex
import Foundation

/// The binary geocoder table written by `wayfare geocoder build`.
///
/// A `BinaryFile` container (magic "WFGEOCO\0") holding every array of the
/// `GeocoderTable`: entries, streets, addresses, street lines, the token dictionary with
/// its postings, the typo index, and the spatial indexes as they lie in memory (so loading
/// builds nothing). Every index a search can follow is checked on load.
public enum GeocoderFile {
    package static let container = BinaryFile(magic: "WFGEOCO\0", version: 3, kind: "geocoder table")
    /// The payload layout version this build reads and writes.
    public static var version: UInt32 { container.version }

    /// Serialises a table.
    public static func encode(_ t: GeocoderTable) -> [UInt8] {
        container.wrap(payload(t).bytes)
    }

    /// The payload before it is wrapped, with the layout of its fields (for the fuzz tests).
    package static func payload(_ t: GeocoderTable) -> BinaryWriter {
        var w = BinaryWriter()
        func strings(_ a: [String]) { w.int(a.count); for s in a { w.string(s) } }
        strings(t.entryLabel); w.array(t.entryKind); w.array(t.entryLat); w.array(t.entryLon)
        w.array(t.entryTokenStart); w.array(t.entryTokens); w.array(t.entryStreet)
        w.array(t.streetAddressStart); w.array(t.streetLineStart); w.array(t.streetEntry)
        strings(t.addressNumber); strings(t.addressForm); w.array(t.addressNumeric); w.array(t.addressLat); w.array(t.addressLon)
        strings(t.addressLabel); w.array(t.addressStreet)
        w.array(t.lineStart); w.array(t.pointLatE7); w.array(t.pointLonE7); w.array(t.lineStreet)
        strings(t.tokens); w.array(t.tokenEntryStart); w.array(t.tokenEntries)
        w.array(t.deletionHash); w.array(t.deletionToken)
        t.addressTree.write(to: &w); t.cityTree.write(to: &w); t.streets.write(to: &w)
        return w
    }

    /// Reads a table back, checking every index a search can follow; a foreign, truncated,
    /// corrupt or other-version file is an error naming `path`.
    public static func decode(_ bytes: [UInt8], path: String) throws(GeocoderError) -> GeocoderTable {
        var r: BinaryReader
        do { r = try container.reader(for: bytes) } catch { throw GeocoderError("\(path): \(error.reason)") }
        do {
            func strings() throws(BinaryReader.Failure) -> [String] {
                let n = try r.int()
                var out: [String] = []
                for _ in 0..<n { out.append(try r.string()) }
                return out
            }
            var t = GeocoderTable()
            t.entryLabel = try strings(); t.entryKind = try r.array(); t.entryLat = try r.array(); t.entryLon = try r.array()
            t.entryTokenStart = try r.array(); t.entryTokens = try r.array(); t.entryStreet = try r.array()
            t.streetAddressStart = try r.array(); t.streetLineStart = try r.array(); t.streetEntry = try r.array()
            t.addressNumber = try strings(); t.addressForm = try strings(); t.addressNumeric = try r.array(); t.addressLat = try r.array(); t.addressLon = try r.array()
            t.addressLabel = try strings(); t.addressStreet = try r.array()
            t.lineStart = try r.array(); t.pointLatE7 = try r.array(); t.pointLonE7 = try r.array(); t.lineStreet = try r.array()
            t.tokens = try strings(); t.tokenEntryStart = try r.array(); t.tokenEntries = try r.array()
            t.deletionHash = try r.array(); t.deletionToken = try r.array()
            guard t.isConsistent else { throw BinaryReader.Failure.inconsistent }
            t.cityEntries = t.cityEntryIDs
            t.addressTree = try PointTree(reading: &r, count: t.addressLabel.count)
            t.cityTree = try PointTree(reading: &r, count: t.cityEntries.count)
            t.streets = try SegmentGrid(reading: &r, pointCount: t.pointLatE7.count, lineCount: t.lineStreet.count)
            guard r.isAtEnd else { throw BinaryReader.Failure.inconsistent }
            return t
        } catch {
            throw GeocoderError("\(path): geocoder table is corrupt (\(error))")
        }
    }

    /// Loads a table file from disk.
    public static func read(path: String) throws(GeocoderError) -> GeocoderTable {
        let bytes: [UInt8]
        do { bytes = try BinaryFile.readBytes(path: path) } catch { throw GeocoderError("\(path): \(error.reason)") }
        return try decode(bytes, path: path)
    }

    /// Writes a table file durably: a temporary file, fsync, rename, fsync of the folder.
    public static func write(_ t: GeocoderTable, to path: String) throws(GeocoderError) {
        do { try BinaryFile.writeAtomically(encode(t), to: path) } catch { throw GeocoderError("\(path): \(error.reason)") }
    }
}

extension GeocoderTable {
    /// Whether every stored index is in bounds and every offset array monotone.
    var isConsistent: Bool {
        func offsets(_ a: [UInt32], count: Int, limit: Int, minimumStep: Int = 0) -> Bool {
            Validate.offsets(a, count: count, limit: limit, minimumStep: minimumStep)
        }
        let e = entryLabel.count, s = streetEntry.count, a = addressLabel.count, l = lineStreet.count, k = tokens.count
        return entryKind.count == e && entryLat.count == e && entryLon.count == e && entryStreet.count == e
            && entryKind.allSatisfy { PlaceKind(rawValue: $0) != nil }
            && Validate.coordinates(latitudes: entryLat, longitudes: entryLon)
            && Validate.coordinates(latitudes: addressLat, longitudes: addressLon)
            && Validate.coordinates(latitudesE7: pointLatE7, longitudesE7: pointLonE7)
            && offsets(entryTokenStart, count: e, limit: entryTokens.count) && entryTokens.allSatisfy { Int($0) < k }
            && entryStreet.allSatisfy { $0 == Self.none || Int($0) < s } && streetEntry.allSatisfy { Int($0) < e }
            && offsets(streetAddressStart, count: s, limit: a) && offsets(streetLineStart, count: s, limit: l)
            && addressNumber.count == a && addressForm.count == a && addressNumeric.count == a && addressLat.count == a && addressLon.count == a
            && addressStreet.allSatisfy { Int($0) < s } && addressStreet.count == a
            && offsets(lineStart, count: l, limit: pointLatE7.count, minimumStep: 2) && lineStreet.allSatisfy { Int($0) < s }
            && offsets(tokenEntryStart, count: k, limit: tokenEntries.count) && tokenEntries.allSatisfy { Int($0) < e }
            && deletionHash.count == deletionToken.count && deletionToken.allSatisfy { Int($0) < k }
            && zip(deletionHash, deletionHash.dropFirst()).allSatisfy { $0 <= $1 }
            && zip(tokens, tokens.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
