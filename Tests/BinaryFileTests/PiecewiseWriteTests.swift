import Foundation
import Testing
import TestSupport
import BinaryFile

/// A payload written piece by piece, its large arrays from where they lie, must make the same
/// file byte for byte as one written whole.
@Suite struct PiecewiseWriteTests {
    /// The sum of pieces of every size, cut anywhere, against the one-shot checksum (whose
    /// words and tail bytes are written out here apart from the streaming code).
    @Test func checksumOfPiecesIsTheChecksumOfTheWhole() {
        var rng = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1_000, 4_099] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // An independent reading of the rule: whole little-endian words, then the tail.
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(length)
            for k in stride(from: 0, to: length / 8 * 8, by: 8) {
                var w: UInt64 = 0
                for i in 0..<8 { w |= UInt64(bytes[k + i]) << (8 * UInt64(i)) }
                h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD; h ^= h >> 32
            }
            for k in (length / 8 * 8)..<length { h = (h ^ UInt64(bytes[k])) &* 0xC4CE_B9FE_1A85_EC53 }
            h ^= h >> 33
            #expect(BinaryFile.checksum(bytes) == h, "length \(length)")
            for _ in 0..<20 {
                var sum = BinaryFile.Checksum(length: length)
                var start = 0
                while start < length {
                    let end = min(length, start + Int.random(in: 0...11, using: &rng))
                    bytes[start..<end].withUnsafeBytes { sum.add($0) }
                    start = end
                }
                #expect(sum.value == h, "length \(length), cut at random")
            }
        }
    }

    /// The same values written by a writer that copies everything and by one that keeps the
    /// arrays over 16 bytes by reference: the same length, checksum and bytes, and the file
    /// written piece by piece reads back as the same container.
    @Test func keptArraysWriteTheSameFile() throws {
        func fill(_ w: inout BinaryWriter) {
            w.int(3)
            w.array([UInt32](0..<100))
            w.array([UInt8](repeating: 7, count: 5))  // small: copied
            w.string("Boulevard du Larvotto")
            w.array([Int64]())
            w.array((0..<33).map { Double($0) / 3 })
            w.int(12)
        }
        var whole = BinaryWriter()
        fill(&whole)
        var pieces = BinaryWriter(keepingArraysOver: 16)
        fill(&pieces)
        var joined: [UInt8] = []
        pieces.forEachPiece { joined += $0; return true }
        #expect(pieces.count == whole.bytes.count)
        #expect(joined == whole.bytes)
        #expect(pieces.checksum == BinaryFile.checksum(whole.bytes))
        #expect(pieces.bytes.count < whole.bytes.count)  // the large arrays were not copied

        let container = BinaryFile(magic: "WFTEST\0\0", version: 1, kind: "test file")
        let folder = TemporaryFolder()
        let path = folder.path("t.bin")
        try BinaryFile.writeAtomically(to: path) { write in
            guard container.header(length: pieces.count, checksum: pieces.checksum).withUnsafeBytes(write) else { return }
            pieces.forEachPiece(write)
        }
        let read = try BinaryFile.readBytes(path: path)
        #expect(read == container.wrap(whole.bytes))
        _ = try container.reader(for: read)
        #expect(Array(read[BinaryFile.headerSize...]) == whole.bytes)
    }

    /// A write that fails part way stops the pieces and leaves no file.
    @Test func aFailedPieceLeavesNoFile() {
        var pieces = BinaryWriter(keepingArraysOver: 16)
        pieces.array([UInt32](0..<1_000)); pieces.array([UInt32](0..<1_000))
        var io = FileSystemCalls.system
        io.write = { _, _, _ in errno = ENOSPC; return -1 }
        let folder = TemporaryFolder()
        let path = folder.path("t.bin")
        var handed = 0
        #expect(throws: BinaryFormatError.self) {
            try BinaryFile.writeAtomically(to: path, io: io) { write in
                pieces.forEachPiece { handed += 1; return write($0) }
            }
        }
        #expect(handed == 1)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path))?.isEmpty == true)
    }
}
