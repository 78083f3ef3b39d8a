import Foundation
import Testing
import TestSupport
import BinaryFile

/// Reading a file back: the bytes as written, whatever kind of path, and a reader that starts
/// at the payload after the container's checks.
@Suite struct ReadTests {
    /// A regular file of every awkward size reads back byte for byte, the same as Foundation
    /// reads it; a missing file and a folder say what they are.
    @Test func readsWhatWasWritten() throws {
        let folder = TemporaryFolder()
        var rng = SystemRandomNumberGenerator()
        for size in [0, 1, 4_095, 4_096, 65_537, 1 << 20 + 3] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let path = folder.write("f\(size).bin", bytes: bytes)
            let read = try BinaryFile.readBytes(path: path)
            #expect(read == bytes, "size \(size)")
            #expect(read == [UInt8](FileManager.default.contents(atPath: path) ?? Data()), "size \(size)")
        }
        #expect(throws: BinaryFormatError("no such file")) { try BinaryFile.readBytes(path: folder.path("missing.bin")) }
        #expect(throws: BinaryFormatError("cannot be read")) { try BinaryFile.readBytes(path: folder.url.path) }
    }

    /// An array large enough for huge pages reads back the same, on memory advised for them
    /// (a route reads such arrays at random: `HugePages`).
    @Test func largeArraysAreReadOntoHugePages() throws {
        let container = BinaryFile(magic: "WFTEST\0\0", version: 2, kind: "test file")
        let values = (0..<UInt32(3_000_000)).map { $0 &* 2_654_435_761 }
        var w = BinaryWriter()
        w.array([UInt32](1..<5)); w.array(values)
        var r = try container.reader(for: container.wrap(w.bytes))
        let small: [UInt32] = try r.array(), large: [UInt32] = try r.array()
        #expect(small == [1, 2, 3, 4] && large == values)
        if HugePageAdvice.isSupported {
            large.withUnsafeBytes { #expect(HugePageAdvice.isAdvised($0.baseAddress! + $0.count / 2) == true) }
        }
    }

    /// The reader starts where the payload does and ends with it; a file that fails a check
    /// is refused with the reason, in words.
    @Test func theReaderStartsAtThePayload() throws {
        let container = BinaryFile(magic: "WFTEST\0\0", version: 2, kind: "test file")
        var w = BinaryWriter()
        w.array([UInt32](10..<20)); w.int(7)
        let file = container.wrap(w.bytes)
        var r = try container.reader(for: file)
        #expect(try r.array() == [UInt32](10..<20))
        #expect(try r.int() == 7)
        #expect(r.isAtEnd)

        var corrupt = file
        corrupt[corrupt.count - 1] ^= 1
        let cases: [([UInt8], String)] = [
            (Array(file.prefix(20)), "truncated test file (20 bytes)"),
            (Array(repeating: 0, count: 40), "not a Wayfare test file (bad magic number)"),
            (file + [0], "truncated or extended test file: payload is \(w.bytes.count + 1) bytes, header says \(w.bytes.count)"),
            (corrupt, "test file is corrupt (checksum mismatch)"),
            (BinaryFile(magic: "WFTEST\0\0", version: 1, kind: "test file").wrap(w.bytes), "test file format version 1; this Wayfare reads version 2"),
        ]
        for (bytes, reason) in cases {
            #expect(throws: BinaryFormatError(reason)) { _ = try container.reader(for: bytes) }
        }
    }
}
