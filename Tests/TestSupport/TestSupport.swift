import Foundation
import Synchronization

/// Where the project's real test data lives (`../shared/data`), and whether it is there.
/// Tests that need it are `.enabled(if: SharedData.isAvailable, SharedData.skipMessage)`.
public enum SharedData {
    /// The project root, found from this file's path (Tests/TestSupport/TestSupport.swift).
    public static let projectRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let root: URL = projectRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: root.path) }

    public static let skipMessage: Comment = "skipped: ../shared/data is missing (the real-data tests run whenever it is present)"

    /// The path of a file under `../shared/data`.
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// A fresh temporary folder, removed when the value is released.
public final class TemporaryFolder {
    public let url: URL
    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wayfare-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    /// A folder for a fixture built once per test process (in a `static let`), removed when
    /// the process exits. Why not a plain folder: a static is never released, so its
    /// `deinit` would never run and every test run would leave the fixture in /tmp.
    public static func untilExit(_ prefix: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let first = removedAtExit.withLock { paths in
            paths.append(url.path)
            return paths.count == 1
        }
        if first {
            atexit {
                for path in TemporaryFolder.removedAtExit.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
            }
        }
        return url
    }

    /// The folders ``untilExit(_:)`` made; the handler it registers once removes them.
    private static let removedAtExit = Mutex<[String]>([])

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(text.utf8))
        return p
    }

    /// Writes raw bytes to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }
}

/// The result of running the `wayfare` executable.
public struct CommandResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status; self.stdout = stdout; self.stderr = stderr
    }
}

/// Runs the built `wayfare` binary (it sits next to the test bundle). With
/// `fileSizeLimitBlocks`, it runs under `ulimit -f` (512-byte blocks in POSIX sh), so
/// that a test can make a real write fail partway, even as root.
public func runWayfare(_ arguments: [String], fileSizeLimitBlocks: Int? = nil) throws -> CommandResult {
    try runBuilt("wayfare", arguments, fileSizeLimitBlocks: fileSizeLimitBlocks)
}

/// The path of an executable product built next to the test bundle.
public func builtExecutable(_ name: String) throws -> URL {
    let binary = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
    let candidates = [binary,
                      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)]
    guard let exe = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw NSError(domain: "wayfare", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) binary not found"])
    }
    return exe
}

/// Runs an executable product built next to the test bundle, from the project root.
public func runBuilt(_ name: String, _ arguments: [String], fileSizeLimitBlocks: Int? = nil) throws -> CommandResult {
    let exe = try builtExecutable(name)
    let process = Process()
    if let blocks = fileSizeLimitBlocks {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -f \(blocks) && exec \"$0\" \"$@\"", exe.path] + arguments
    } else {
        process.executableURL = exe
        process.arguments = arguments
    }
    process.currentDirectoryURL = SharedData.projectRoot
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes before waiting so a large output cannot block the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 request to a server on 127.0.0.1 over a plain socket, read until the server
/// closes (`Connection: close`): the status and the body. Written for the tests of
/// `wayfare serve`, so that they need no HTTP client library and no `curl`.
public func httpRequest(port: Int, _ method: String, _ path: String, headers: [String: String] = [:],
                        body: String? = nil, sent: (() -> Void)? = nil) throws -> (status: Int, body: String) {
    let r = try httpRequestWithHeaders(port: port, method, path, headers: headers, body: body, sent: sent)
    return (r.status, r.body)
}

/// ``httpRequest(port:_:_:headers:body:sent:)`` with the response's headers (names lower-cased).
public func httpRequestWithHeaders(port: Int, _ method: String, _ path: String, headers: [String: String] = [:],
                                   body: String? = nil, sent: (() -> Void)? = nil) throws -> (status: Int, headers: [String: String], body: String) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw NSError(domain: "http", code: 1, userInfo: [NSLocalizedDescriptionKey: "socket failed"]) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw NSError(domain: "http", code: 2, userInfo: [NSLocalizedDescriptionKey: "connect to \(port) failed"]) }
    var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
    for (name, value) in headers { request += "\(name): \(value)\r\n" }
    if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
    request += "\r\n" + (body ?? "")
    let bytes = Array(request.utf8)
    let afterSending = sent
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBufferPointer { send(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw NSError(domain: "http", code: 3, userInfo: [NSLocalizedDescriptionKey: "send failed"]) }
        sent += n
    }
    afterSending?()
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = buffer.withUnsafeMutableBufferPointer { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        response += buffer[0..<n]
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let headerEnd = text.range(of: "\r\n\r\n"), let status = Int(text.split(separator: " ").dropFirst().first ?? "") else {
        throw NSError(domain: "http", code: 4, userInfo: [NSLocalizedDescriptionKey: "no HTTP response: \(text.prefix(200))"])
    }
    var responseHeaders: [String: String] = [:]
    for line in text[..<headerEnd.lowerBound].split(separator: "\r\n").dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        responseHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var payload = String(text[headerEnd.upperBound...])
    if text[..<headerEnd.lowerBound].lowercased().contains("transfer-encoding: chunked") {
        // De-chunk: size line, data, CRLF, until the 0 chunk.
        var out = "", rest = Substring(payload)
        while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
            let start = line.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            out += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        payload = out
    }
    return (status, responseHeaders, payload)
}

/// Runs the built `wayfare` with `input` on its stdin.
public func runWayfareWithInput(_ arguments: [String], input: String) throws -> CommandResult {
    let process = Process()
    process.executableURL = try builtExecutable("wayfare")
    process.arguments = arguments
    process.currentDirectoryURL = SharedData.projectRoot
    let stdin = Pipe(), out = Pipe(), err = Pipe()
    process.standardInput = stdin
    process.standardOutput = out
    process.standardError = err
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CommandResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}
