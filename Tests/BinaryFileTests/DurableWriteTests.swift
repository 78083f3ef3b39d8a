import Foundation
import Testing
import TestSupport
import BinaryFile
import Synchronization

/// The steps of a durable write, each failed in turn through injected system calls.
@Suite struct DurableWriteTests {
    enum Step: String, CaseIterable, Sendable {
        case openTemporary, firstWrite, laterWrite, writeNoProgress, fsyncFile, closeFile, rename, openFolder, fsyncFolder
    }

    /// What the injected calls have seen; shared by the @Sendable closures.
    final class Probe: Sendable {
        let state = Mutex((fired: false, writes: 0, fsyncs: 0))
        /// True the first time only: the step fails once.
        func fire() -> Bool { state.withLock { s in if s.fired { return false }; s.fired = true; return true } }
        func countWrite() -> Int { state.withLock { s in s.writes += 1; return s.writes } }
        func countFsync() -> Int { state.withLock { s in s.fsyncs += 1; return s.fsyncs } }
        var fired: Bool { state.withLock { $0.fired } }
    }

    /// The real calls, except that `step` fails (with EIO, ENOSPC or EXDEV) once.
    func failing(_ step: Step, _ probe: Probe) -> FileSystemCalls {
        var io = FileSystemCalls.system
        let real = FileSystemCalls.system
        io.open = { path, flags, mode in
            let isFolder = flags & O_DIRECTORY != 0
            if (step == .openTemporary && !isFolder) || (step == .openFolder && isFolder), probe.fire() { errno = EIO; return -1 }
            return real.open(path, flags, mode)
        }
        io.write = { fd, p, n in
            let k = probe.countWrite()
            switch step {
            case .firstWrite where k == 1: if probe.fire() { errno = EIO; return -1 }
            case .laterWrite where k == 1: return real.write(fd, p, min(n, 1000))  // a short write, then…
            case .laterWrite where k == 2: if probe.fire() { errno = ENOSPC; return -1 }  // …the disk is full
            case .writeNoProgress: if probe.fire() { return 0 }
            default: break
            }
            return real.write(fd, p, n)
        }
        io.fsync = { fd in
            let k = probe.countFsync()
            if (step == .fsyncFile && k == 1) || (step == .fsyncFolder && k == 2), probe.fire() { errno = EIO; return -1 }
            return real.fsync(fd)
        }
        io.close = { fd in
            let r = real.close(fd)
            if step == .closeFile, probe.fire() { errno = EIO; return -1 }
            return r
        }
        io.rename = { a, b in
            if step == .rename, probe.fire() { errno = EXDEV; return -1 }
            return real.rename(a, b)
        }
        return io
    }

    @Test(arguments: Step.allCases) func aFailureAtAnyStepLeavesTheOldOrTheNewFile(_ step: Step) throws {
        let folder = TemporaryFolder()
        let old = [UInt8](repeating: 0xAA, count: 3000), new = [UInt8]((0..<5000).map { UInt8($0 % 251) })
        let path = folder.write("table.bin", bytes: old)
        let probe = Probe()
        let io = failing(step, probe)
        var error: BinaryFormatError?
        do { try BinaryFile.writeAtomically(new, to: path, io: io) } catch let e { error = e }
        #expect(probe.fired, "the injected failure at \(step) was never reached")
        let e = try #require(error, "\(step): a failed step must be reported")
        #expect(e.reason.hasPrefix("cannot write: "), "\(e.reason)")
        let now = [UInt8](FileManager.default.contents(atPath: path) ?? Data())
        // Before the rename the old file stays; from the rename on the new one is complete.
        if step == .openFolder || step == .fsyncFolder { #expect(now == new, "\(step)") } else { #expect(now == old, "\(step)") }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(left == ["table.bin"], "\(step): temporary files left behind: \(left)")
    }

    @Test func aWriteWithoutFailuresReplacesTheFile() throws {
        let folder = TemporaryFolder()
        let path = folder.write("t.bin", bytes: [1, 2, 3])
        try BinaryFile.writeAtomically([9, 8, 7, 6], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data([9, 8, 7, 6]))
        try BinaryFile.writeAtomically([], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["t.bin"])
    }

    /// A header and a payload written as two parts make the file `wrap` makes, so a large
    /// graph need not be copied behind its header; a failure in the second part leaves the
    /// old file.
    @Test func partsMakeTheSameFileAsTheirConcatenation() throws {
        let folder = TemporaryFolder()
        let container = BinaryFile(magic: "WFTEST\0\0", version: 1, kind: "test file")
        let payload = (0..<10_001).map { UInt8($0 % 253) }
        let a = folder.path("a.bin"), b = folder.path("b.bin")
        try BinaryFile.writeAtomically(container.wrap(payload), to: a)
        try BinaryFile.writeAtomically(parts: [container.header(for: payload), [], payload], to: b)
        #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b))
        let read = try BinaryFile.readBytes(path: b)
        _ = try container.reader(for: read)
        #expect(Array(read[BinaryFile.headerSize...]) == payload)

        let probe = Probe()
        #expect(throws: BinaryFormatError.self) {
            try BinaryFile.writeAtomically(parts: [[1, 2, 3], payload], to: a, io: failing(.laterWrite, probe))
        }
        #expect(probe.fired)
        #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b), "the old file stays")
    }

    /// A pipe (like `/dev/null` or `/dev/stdout`, which a test cannot risk) is written
    /// through, not replaced by a file renamed over it; a folder is refused.
    @Test func aPipeIsWrittenThroughAndStaysAPipe() throws {
        let folder = TemporaryFolder()
        let path = folder.path("pipe")
        #expect(mkfifo(path, 0o600) == 0)
        // A reader first, so that the writer's open does not wait; four bytes fit the pipe.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        try BinaryFile.writeAtomically(parts: [[9, 8], [7, 6]], to: path)
        var got = [UInt8](repeating: 0, count: 8)
        let n = got.withUnsafeMutableBytes { read(reader, $0.baseAddress!, $0.count) }
        #expect(n == 4 && Array(got.prefix(4)) == [9, 8, 7, 6])
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still a pipe")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["pipe"], "no temporary file left")
        #expect(throws: BinaryFormatError.self) { try BinaryFile.writeAtomically([1], to: folder.url.path) }
    }

    @Test func aMissingFolderIsAnErrorNamingTheStep() {
        #expect(throws: BinaryFormatError.self) { try BinaryFile.writeAtomically([1], to: "/nonexistent-wayfare/x.bin") }
    }
}

@Suite struct ValidateTests {
    @Test func offsetArrays() {
        #expect(Validate.offsets([0, 2, 2, 5] as [UInt32], count: 3, limit: 5))
        #expect(!Validate.offsets([0, 2, 2, 5] as [UInt32], count: 3, limit: 5, minimumStep: 1))
        #expect(!Validate.offsets([0, 3, 2, 5] as [UInt32], limit: 5))          // decreasing
        #expect(!Validate.offsets([1, 2, 5] as [UInt32], limit: 5))             // not from 0
        #expect(!Validate.offsets([0, 2, 4] as [UInt32], limit: 5))             // not to the end
        #expect(!Validate.offsets([0, 5] as [UInt32], count: 2, limit: 5))      // wrong count
        #expect(!Validate.offsets([] as [UInt32], limit: 0))
        #expect(!Validate.offsets([0, -1, 5] as [Int32], limit: 5))
        #expect(Validate.offsets([0, 2, 4] as [Int32], limit: 4, minimumStep: 2))
    }

    @Test func permutations() {
        #expect(Validate.permutation([2, 0, 1] as [UInt32], count: 3) && Validate.permutation([] as [UInt32], count: 0))
        #expect(!Validate.permutation([0, 0, 1] as [UInt32], count: 3))    // one twice, one missing
        #expect(!Validate.permutation([0, 1, 3] as [UInt32], count: 3))    // past the end
        #expect(!Validate.permutation([0, 1] as [UInt32], count: 3))       // too few
        #expect(!Validate.permutation([1, -1, 0] as [Int32], count: 3))    // negative
    }

    @Test func indicesFloatsAndCoordinates() {
        #expect(Validate.indices([0, 4] as [Int32], below: 5) && !Validate.indices([0, 5] as [Int32], below: 5))
        #expect(!Validate.indices([-1] as [Int32], below: 5) && !Validate.indices([UInt32.max], below: Int(Int32.max)))
        #expect(Validate.finite([1.0, -2]) && !Validate.finite([1.0, .nan]) && !Validate.finite([Double.infinity]))
        #expect(Validate.coordinates(latitudes: [90, -90], longitudes: [180, -180]))
        #expect(!Validate.coordinates(latitudes: [.nan], longitudes: [0]) && !Validate.coordinates(latitudes: [0], longitudes: [180.1]))
        #expect(!Validate.coordinates(latitudes: [0, 1], longitudes: [0]))
        #expect(Validate.coordinates(latitudesE7: [900_000_000], longitudesE7: [-1_800_000_000]))
        #expect(!Validate.coordinates(latitudesE7: [900_000_001], longitudesE7: [0]) && !Validate.coordinates(latitudesE7: [0], longitudesE7: [Int32.min]))
    }
}
