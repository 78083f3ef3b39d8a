import Essentials
import Fleet
import Foundation
import GeoJSON
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `wayfare admin create`, `wayfare serve` over a real socket with SIGTERM, and `wayfare demo`.
@Suite struct ServeCLITests {
    @Test func serveAnswersOverTheNetworkAndStopsGracefullyOnSIGTERM() throws {
        let folder = TemporaryFolder()
        let city = folder.path("monaco")
        let built = try runWayfare(["city", "build"] + CityCLITests.sources + ["--name", "Monaco", "--no-geocoder", "--out", city])
        try #require(built.status == 0, "\(built.stderr)")
        let store = "sqlite:" + folder.path("store.sqlite")

        // The first admin, the password on stdin; a second without a session is refused.
        func createAdmin(_ mobile: String, _ password: String) throws -> CommandResult {
            let p = Process()
            p.executableURL = try builtExecutable("wayfare")
            p.arguments = ["admin", "create", "--store", store, "--name", "Ops", "--mobile", mobile, "--email", "ops\(mobile)@example.com"]
            let input = Pipe(), out = Pipe(), err = Pipe()
            p.standardInput = input; p.standardOutput = out; p.standardError = err
            try p.run()
            input.fileHandleForWriting.write(Data((password + "\n").utf8))
            try input.fileHandleForWriting.close()
            p.waitUntilExit()
            return CommandResult(status: p.terminationStatus,
                                 stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                                 stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        let weak = try createAdmin("9000000001", "short")
        #expect(weak.status != 0 && weak.stderr.contains("password"), "\(weak.stderr)")
        let admin = try createAdmin("9000000001", "Ops!admin-2026x")
        #expect(admin.status == 0 && admin.stdout.contains("\"role\":\"admin\""), "\(admin.stderr)")
        let second = try createAdmin("9000000002", "Ops!admin-2026y")
        #expect(second.status != 0 && second.stderr.contains("only an admin"), "\(second.stderr)")

        let server = try RunningServer(["--city", city, "--store", store, "--port", "0", "--log-level", "warning"])
        defer { server.kill9() }
        let p = server.port

        let health = try httpRequest(port: p, "GET", "/health")
        #expect(health.status == 200 && health.body.contains("ok"))
        let ready = try httpRequest(port: p, "GET", "/ready")
        #expect(ready.status == 200 && ready.body.contains("Monaco"), "\(ready)")
        let zone = try httpRequest(port: p, "GET", "/v1/zone?at=43.7393,7.4277")
        #expect(zone.status == 200, "\(zone)")
        let login = try httpRequest(port: p, "POST", "/v1/sessions", body: #"{"mobile":"9000000001","password":"Ops!admin-2026x"}"#)
        #expect(login.status == 201, "\(login)")
        let token = try #require(try JSONParser.parse(Array(login.body.utf8))["token"]?.stringValue)
        let ledger = try httpRequest(port: p, "GET", "/v1/admin/ledger", headers: ["Authorization": "Bearer \(token)"])
        #expect(ledger.status == 200 && ledger.body.contains("\"sound\":true"), "\(ledger)")
        let anonymous = try httpRequest(port: p, "GET", "/v1/admin/ledger")
        #expect(anonymous.status == 401)
        let malformed = try httpRequest(port: p, "POST", "/v1/sessions", body: #"{"mobile":"#)
        #expect(malformed.status == 400 && malformed.body.contains("\"code\":\"invalid\""), "\(malformed)")

        // A driver's app holds an offer stream open: stopping must end it, not wait for it.
        let made = try httpRequest(port: p, "POST", "/v1/drivers", headers: ["Authorization": "Bearer \(token)"],
                                   body: #"{"name":"Ravi","mobile":"9000000003","email":"ravi@example.com","password":"steady wheels 7","confirmation":"steady wheels 7"}"#)
        #expect(made.status == 201, "\(made)")
        let driverLogin = try httpRequest(port: p, "POST", "/v1/sessions", body: #"{"mobile":"9000000003","password":"steady wheels 7"}"#)
        let driverToken = try #require(try JSONParser.parse(Array(driverLogin.body.utf8))["token"]?.stringValue)
        let streamed = Locked<(status: Int, body: String)?>(nil)
        let listening = Thread {
            let r = try? httpRequest(port: p, "GET", "/v1/driver/offers/stream", headers: ["Authorization": "Bearer \(driverToken)"])
            streamed.withLock { $0 = r }
        }
        listening.start()
        usleep(300_000)

        // Graceful: a registration in flight (scrypt makes it take a while) when SIGTERM
        // arrives still finishes, is answered, and is there after a restart.
        let answer = Locked<(status: Int, body: String)?>(nil)
        let requestSent = DispatchSemaphore(value: 0)
        let inFlight = Thread {
            let r = try? httpRequest(port: p, "POST", "/v1/accounts",
                                     body: #"{"name":"Late","mobile":"9111111111","email":"late@example.com","password":"in flight 2026","confirmation":"in flight 2026"}"#,
                                     sent: { requestSent.signal() })
            answer.withLock { $0 = r }
        }
        inFlight.start()
        #expect(requestSent.wait(timeout: .now() + 30) == .success)
        usleep(50_000)  // the server reads it and starts hashing (scrypt takes longer than this)
        #expect(server.stop() == 0, "the server exits 0 after SIGTERM")
        while answer.withLock({ $0 }) == nil, inFlight.isExecuting { usleep(10_000) }
        let late = answer.withLock { $0 }
        #expect(late?.status == 202, "the request in flight was answered: \(String(describing: late))")
        while streamed.withLock({ $0 }) == nil, listening.isExecuting { usleep(10_000) }
        let stream = streamed.withLock { $0 }
        #expect(stream?.status == 200 && stream?.body.hasPrefix(": offers for driver") == true, "the offer stream ended cleanly: \(String(describing: stream))")

        let again = try RunningServer(["--city", city, "--store", store, "--port", "0", "--log-level", "warning"])
        defer { again.kill9() }
        // The registration answered before the stop is there after it: its code still works.
        let code = (try? JSONParser.parse(Array((late?.body ?? "").utf8)))?["test_code"]?.stringValue ?? ""
        let verified = try httpRequest(port: again.port, "POST", "/v1/accounts/verify", body: #"{"mobile":"9111111111","code":"\#(code)"}"#)
        #expect(verified.status == 201, "\(verified)")
        let relogin = try httpRequest(port: again.port, "POST", "/v1/sessions", body: #"{"mobile":"9111111111","password":"in flight 2026"}"#)
        #expect(relogin.status == 201, "the account answered before the stop is there after it: \(relogin)")
        #expect(again.stop() == 0)
    }

    @Test func serveSpeaksTLSWhenGivenACertificateAndKey() throws {
        let folder = TemporaryFolder()
        let city = folder.path("monaco")
        let built = try runWayfare(["city", "build"] + CityCLITests.sources + ["--name", "Monaco", "--no-geocoder", "--out", city])
        try #require(built.status == 0, "\(built.stderr)")
        // A self-signed certificate for 127.0.0.1, made with openssl for this test.
        let cert = folder.path("cert.pem"), key = folder.path("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl made the certificate")

        let server = try RunningServer(["--city", city, "--store", "sqlite:" + folder.path("s.sqlite"), "--port", "0",
                                        "--tls-cert", cert, "--tls-key", key, "--log-level", "warning"], scheme: "https")
        defer { server.kill9() }
        let p = server.port
        // Python's TLS client, trusting exactly this certificate.
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = ["python3", "-c", """
            import ssl, sys, urllib.request
            context = ssl.create_default_context(cafile=sys.argv[1])
            print(urllib.request.urlopen("https://127.0.0.1:" + sys.argv[2] + "/health", context=context).read().decode())
            """, cert, String(p)]
        let out = Pipe()
        client.standardOutput = out
        client.standardError = out
        try client.run()
        client.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(client.terminationStatus == 0 && text.contains("\"ok\""), "\(text)")
        // Plain HTTP to the TLS port gets no answer.
        #expect((try? httpRequest(port: p, "GET", "/health")) == nil)
        #expect(server.stop() == 0)

        for (arguments, message) in [(["--tls-cert", cert], "go together"), (["--tls-cert", folder.path("none.pem"), "--tls-key", key], "none.pem")] {
            let r = try runWayfare(["serve", "--city", city, "--port", "0"] + arguments)
            #expect(r.status != 0 && r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        }
    }

    /// A TCP connection to 127.0.0.1:`port`, or -1.
    static func connectTo(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if ok != 0 { close(fd); return -1 }
        return fd
    }

    @Test func idleAndSlowClientsCannotHoldTheServer() throws {
        let folder = TemporaryFolder()
        let city = folder.path("monaco")
        let built = try runWayfare(["city", "build"] + CityCLITests.sources + ["--name", "Monaco", "--no-geocoder", "--out", city])
        try #require(built.status == 0, "\(built.stderr)")
        let server = try RunningServer(["--city", city, "--store", "sqlite:" + folder.path("s.sqlite"), "--port", "0",
                                        "--idle-timeout", "3", "--rate-limit", "0", "--log-level", "warning"])
        defer { server.kill9() }
        let p = server.port, pid = server.process.processIdentifier
        func openFiles() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1 }
        #expect(try httpRequest(port: p, "GET", "/health").status == 200)
        let baseline = openFiles()
        // 1,000 connections that say nothing, and 50 that send a request a byte a second.
        let idle = (0..<1000).map { _ in Self.connectTo(p) }
        let slow = (0..<50).map { _ in Self.connectTo(p) }
        defer { for fd in idle + slow where fd >= 0 { close(fd) } }
        #expect(!(idle + slow).contains(-1), "every connection was accepted by the kernel")
        // The server takes them from the kernel's backlog within moments.
        var held = openFiles()
        for _ in 0..<30 where held <= baseline + 1000 {
            usleep(50_000)
            held = max(held, openFiles())
        }
        #expect(held > baseline + 1000, "the server holds the connections: \(held) open files, \(baseline) before")
        let request = Array("GET /health HTTP/1.1\r\nHost: wayfare\r\n\r\n".utf8)
        var slowest = 0.0
        for second in 0..<6 {
            for fd in slow { var byte = request[second]; _ = send(fd, &byte, 1, Int32(MSG_NOSIGNAL)) }
            let start = Date()
            let health = try httpRequest(port: p, "GET", "/health")
            slowest = max(slowest, Date().timeIntervalSince(start))
            #expect(health.status == 200)
            usleep(1_000_000)
        }
        #expect(slowest < 0.1, "/health answered within 100 ms throughout (slowest \(slowest) s)")
        // Past the idle timeout the server closed them all: its open files are back where they were.
        var now = openFiles()
        for _ in 0..<100 where now > baseline + 2 {
            usleep(100_000)
            now = openFiles()
        }
        #expect(now <= baseline + 2, "open files \(now), before \(baseline)")
        var byte: UInt8 = 0
        #expect(recv(slow[0], &byte, 1, 0) == 0, "the slow client's connection was closed by the server")
        #expect(try httpRequest(port: p, "GET", "/health").status == 200)
    }

    /// Monaco's city folder, built once for the tests that need a city that loads (inside a
    /// new folder: `city build` refuses one that exists).
    static let monaco: String = {
        let dir = TemporaryFolder.untilExit("wf-serve-city").appendingPathComponent("city").path
        let built = try? runWayfare(["city", "build"] + CityCLITests.sources + ["--name", "Monaco", "--no-geocoder", "--out", dir])
        precondition(built?.status == 0, "Monaco's city folder could not be built: \(built?.stderr ?? "")")
        return dir
    }()

    @Test func serveRefusesBadArgumentsInOneLine() throws {
        let folder = TemporaryFolder()
        for (arguments, message) in [
            (["serve", "--city", folder.path("nowhere")], "nowhere"),
            (["serve", "--city", folder.url.path, "--port", "70000"], "--port"),
            (["serve", "--city", folder.url.path, "--store", "mysql://x"], "--store"),
            // A password on the command line is in every user's ps: refused, and not echoed.
            (["serve", "--city", folder.url.path, "--store", "postgres://wayfare:s3cret-pw@127.0.0.1:5432/w"], "no password in the URL"),
            (["serve", "--city", folder.url.path, "--store", "postgres://wayfare@127.0.0.1:5432/w", "--store-password-file", folder.path("none")],
             "--store-password-file"),
            (["serve", "--city", folder.url.path, "--trusted-proxy", "any"], "--trusted-proxy"),
            (["serve", "--city", Self.monaco], "--payments test"),
            (["serve", "--city", Self.monaco, "--payments", "live"], "--payments must be test"),
            (["serve", "--city", Self.monaco, "--payments", "test", "--sms", "carrier-pigeon"], "--sms must be test"),
            (["serve", "--city", Self.monaco, "--payments", "test", "--idle-timeout", "0"], "--idle-timeout"),
            (["serve", "--city", Self.monaco, "--payments", "test", "--idle-timeout", "nan"], "--idle-timeout"),
            (["serve", "--city", Self.monaco, "--payments", "test", "--max-connections", "1"], "--max-connections"),
            (["serve", "--city", Self.monaco, "--payments", "test", "--gateway-secret-file", folder.path("none")], "--gateway-secret-file"),
        ] {
            let r = try runWayfare(arguments)
            #expect(r.status != 0 && r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(arguments): \(r.stderr)")
            #expect(!r.stderr.contains("s3cret-pw"))
        }
    }

    @Test func demoBuildsTheCityOnceAndPrintsItsSummaryLast() throws {
        let folder = TemporaryFolder()
        let out = folder.path("demo")
        let first = try runWayfare(["demo", "--out-dir", out, "--minutes", "4", "--cabs", "6"])
        #expect(first.status == 0, "\(first.stderr)")
        let last = try JSONParser.parse(Array(try #require(first.stdout.split(separator: "\n").last).utf8))
        #expect(last["city"]?.stringValue == "Monaco" && last["ledger_balanced"] == .bool(true), "\(first.stdout)")
        #expect((last["http_requests"]?.numberValue ?? 0) > 0 && last["requests"]?.numberValue != nil)
        for name in ["summary.json", "map.svg", "city/city.json", "demo.sqlite"] {
            #expect(FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent(name)), "\(name)")
        }
        let second = try runWayfare(["demo", "--out-dir", out, "--minutes", "2", "--cabs", "3"])
        #expect(second.status == 0 && second.stderr.contains("built before"), "\(second.stderr)")
        let bad = try runWayfare(["demo", "--out-dir", out, "--minutes", "0"])
        #expect(bad.status != 0 && bad.stderr.contains("--minutes"), "\(bad.stderr)")
    }
}

/// A `wayfare serve` process started for a test, and the port it reported.
struct RunningServer {
    let process: Process
    let port: Int
    let startup: String

    /// Starts `wayfare serve` with `arguments` (add `--port 0`) and reads its stderr until the
    /// line with the URL (`scheme`://127.0.0.1:PORT).
    init(_ arguments: [String], scheme: String = "http") throws {
        process = Process()
        process.executableURL = try builtExecutable("wayfare")
        // The test-mode gateway: no live one is built in.
        process.arguments = ["serve", "--payments", "test", "--sms", "test"] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = "", found: Int?
        while found == nil {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: "\(scheme)://127.0.0.1:") { found = Int(seen[range.upperBound...].prefix(while: \.isNumber)) }
        }
        startup = seen
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw NSError(domain: "wayfare", code: 1, userInfo: [NSLocalizedDescriptionKey: "no serving line: \(seen)"])
        }
        port = found
    }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : -1
    }

    /// SIGKILL when still running (a failed test's cleanup).
    func kill9() { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}
