import Foundation
import SQLiteStorage
import Storage
import Testing

/// What only the SQLite store does: its file.
@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test("a file that cannot be opened, or is no database, is refused naming the path")
    func unavailable() throws {
        #expect(throws: StoreError.self) { try SQLiteStore(path: "/nonexistent-dir/x/wayfare.sqlite") }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wf-notadb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteStore(path: path)
            Issue.record("a file of garbage opened as a database")
        } catch {
            guard case .unavailable(let why) = error else { Issue.record("\(error)"); return }
            #expect(why.contains("garbage.sqlite"))
        }
    }
}
