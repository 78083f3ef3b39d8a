import ArgumentParser
import CityFolder
import Essentials
import Fleet
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import Logging
import ServiceLifecycle
import Services
import Storage
import WayfareAPI
import WayfareDemo
import WayfareServer

/// `wayfare serve`: the HTTP JSON API of one city.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a city folder's HTTP JSON API (engine and services) until SIGINT or SIGTERM.",
        discussion: """
            The store is migrated to the services' schema first. An empty store has no admin: \
            make the first with `wayfare admin create` (drivers are created by an admin). \
            SIGINT or SIGTERM shuts down gracefully: the listener closes, requests in flight \
            finish, then the process exits. Logs go to stderr, one line per request with its \
            request id; never a token, a password or a request body.
            """)
    @Option(help: "The city folder (made by `wayfare city build`).") var city: String
    @Option(help: "sqlite:PATH (the default: sqlite:wayfare.sqlite) or postgres://user@host:port/database[?sslmode=verify-full&sslrootcert=PATH].")
    var store = "sqlite:wayfare.sqlite"
    @Option(name: .customLong("store-password-file"), help: "A file whose first line is the PostgreSQL password (else WAYFARE_STORE_PASSWORD; never in --store).")
    var storePasswordFile: String?
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0: any free port).") var port = 8080
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(name: .customLong("rate-limit"), help: "Requests per second each client may sustain (by bearer token, else by address); 0: no limit.")
    var rateLimit = 20.0
    @Option(name: .customLong("rate-burst"), help: "Requests a client may make at once.") var rateBurst = 120.0
    @Option(name: .customLong("trusted-proxy"), help: "The address of a reverse proxy whose X-Forwarded-For names the client (repeatable); from any other peer the header is ignored.")
    var trustedProxies: [String] = []
    @Option(help: "The payment gateway: `test` is the test-mode gateway (no card is charged, no money moves; said in /health and on the page). No live gateway is built in, so serving needs --payments test.")
    var payments: String?
    @Option(help: "Where registration codes go: `test` returns them in the registration's answer (no text is sent; said in /health). Without it they go to the notifier (the log, which never shows a code): no SMS provider is built in.")
    var sms: String?
    @Option(name: .customLong("gateway-secret-file"), help: "A file whose first line is the secret the payment gateway signs its callbacks with (POST /v1/payments/callbacks; without it the route answers 404).")
    var gatewaySecretFile: String?
    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may bring no request (or no whole request head) before it is closed.")
    var idleTimeout = 15.0
    @Option(name: .customLong("max-connections"), help: "Connections open at once; past it new ones wait in the kernel's backlog.")
    var maxConnections = 10_000
    @Option(name: .customLong("replica-url"), help: "This process's URL, when it is one of several replicas of the city on one PostgreSQL store: the replicas share a lease on the city, its owner runs the live fleet and dispatch, the others redirect the fleet's routes to it.")
    var replicaURL: String?
    @Option(name: .customLong("tls-cert"), help: "A PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert.") var tlsKey: String?

    func run() throws {
        guard (0...65_535).contains(port) else { throw CLIError("--port must be from 0 to 65535") }
        guard rateLimit.isFinite, rateLimit >= 0, rateBurst.isFinite, rateBurst >= 1 else {
            throw CLIError("--rate-limit must be 0 or more and --rate-burst 1 or more")
        }
        for proxy in trustedProxies where !(proxy.utf8.count <= 45 && !proxy.isEmpty && proxy.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })) {
            throw CLIError("--trusted-proxy must be an IPv4 or IPv6 address, not \"\(proxy.prefix(60))\"")
        }
        guard let level = Logger.Level(rawValue: logLevel) else { throw CLIError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
        guard idleTimeout.isFinite, (0.1...3_600).contains(idleTimeout) else { throw CLIError("--idle-timeout must be from 0.1 to 3600 seconds") }
        guard (16...1_000_000).contains(maxConnections) else { throw CLIError("--max-connections must be from 16 to 1000000") }
        var tlsConfiguration: TLSConfiguration?
        switch (tlsCert, tlsKey) {
        case (nil, nil): tlsConfiguration = nil
        case let (cert?, key?):
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(cert).map { NIOSSLCertificateSource.certificate($0) }
                guard !chain.isEmpty else { throw CLIError("\(cert): no certificate in the file") }
                let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
                var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
                tls.minimumTLSVersion = .tlsv12
                tlsConfiguration = tls
            } catch let error as CLIError { throw error } catch {
                throw CLIError("--tls-cert/--tls-key: cannot load \(cert) and \(key): \(error)")
            }
        default: throw CLIError("--tls-cert and --tls-key go together")
        }
        let scheme = tlsCert == nil ? "http" : "https"
        let address = try StoreAddress(parsing: self.store, passwordFile: storePasswordFile)
        let folder: CityFolder
        do { folder = try CityFolder.load(city) } catch { throw CLIError(error.description) }
        switch payments {
        case "test": break
        case nil: throw CLIError("--payments: no live payment gateway is configured in this build; give --payments test to serve on the test-mode gateway (no money moves)")
        case let other?: throw CLIError("--payments must be test (the only gateway in this build), not \"\(other.prefix(20))\"")
        }
        guard sms == nil || sms == "test" else { throw CLIError("--sms must be test (the only SMS sender in this build), not \"\(sms!.prefix(20))\"") }
        let callbackSecret = try gatewaySecretFile.map { file throws(CLIError) in
            Array(try secret(firstLineOf: file, option: "--gateway-secret-file", minimum: 16).utf8)
        }
        let store = try address.open()
        defer { store.close() }
        do { try store.migrate(ServiceSchema.migrations) } catch { throw CLIError("--store: \(error)") }
        var logger = Logger(label: "wayfare")
        logger.logLevel = level
        let server: WayfareServer
        let limit = rateLimit == 0 ? nil : RateLimit(burst: rateBurst, perSecond: rateLimit)
        if let replicaURL {
            guard let url = URL(string: replicaURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, replicaURL.utf8.count <= 200 else {
                throw CLIError("--replica-url must be an http:// or https:// URL, not \"\(replicaURL.prefix(60))\"")
            }
        }
        var guards = ClientGuards(rateLimit: limit)
        guards.trustedProxies = Set(trustedProxies)
        guards.idleTimeout = .milliseconds(Int64((idleTimeout * 1000).rounded()))
        guards.maximumConnections = maxConnections
        do {
            server = try WayfareServer(city: folder, store: store, logger: logger, guards: guards, replicaURL: replicaURL,
                                       callbackSecret: callbackSecret, sms: sms == "test" ? .test : .notifier)
        } catch { throw CLIError("\(error)") }
        logger.notice("payments: the test-mode gateway; no card is charged and no money moves")
        let http: HTTPServerBuilder
        if let tlsConfiguration {
            do { http = try .tls(server.httpServer(), tlsConfiguration: tlsConfiguration) } catch {
                throw CLIError("--tls-cert/--tls-key: \(error)")
            }
        } else {
            http = server.httpServer()
        }
        let (host, port) = (self.host, self.port)
        let groupLogger = logger
        try runBlocking {
            let app = server.application(host: host, port: port, server: http) { bound in
                note("wayfare: serving \(folder.settings.name) on \(scheme)://\(host):\(bound)")
            }
            let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: groupLogger))
            try await group.run()
        }
    }
}

/// `wayfare admin create`: the first admin of a store.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "admin", abstract: "Administer a store's accounts.",
                                                    subcommands: [AdminCreate.self])
}

struct AdminCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an admin account; the password is read from the first line of stdin.",
        discussion: """
            The first admin of a store needs nothing else; later ones are made by an admin \
            over the API. The password needs at least 10 characters with letters, digits and \
            symbols (004). It is read from stdin so that it is never in the shell's history \
            or the process list.
            """)
    @Option(help: "sqlite:PATH or postgres://user@host:port/database.") var store: String
    @Option(name: .customLong("store-password-file"), help: "A file whose first line is the PostgreSQL password (else WAYFARE_STORE_PASSWORD; never in --store).")
    var storePasswordFile: String?
    @Option(help: "The admin's name.") var name: String
    @Option(help: "A 10-digit mobile number (the login).") var mobile: String
    @Option(help: "An e-mail address.") var email: String

    func run() throws {
        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw CLIError("stdin: give the password on the first line")
        }
        let store = try StoreAddress(parsing: self.store, passwordFile: storePasswordFile).open(connections: 1)
        // Closed before the process ends: a PostgreSQL connection must be closed, not dropped.
        defer { store.close() }
        do { try store.migrate(ServiceSchema.migrations) } catch { throw CLIError("--store: \(error)") }
        let accounts = Accounts(store: store, notifier: DiscardingNotifier())
        let registration = Registration(name: name, mobile: mobile, email: email, password: password, confirmation: password)
        try runBlocking {
            do {
                let user = try await accounts.createAdmin(registration, adminSession: nil)
                printJSONLine(UserAnswer(user))
            } catch { throw CLIError("\(error)") }
        }
    }
}

/// `wayfare demo`: Monaco at work, served and simulated over HTTP.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build Monaco from Data/ (once), serve it on loopback, run a simulated city against it over HTTP, and write summary.json and map.svg.",
        discussion: """
            The city folder is built into OUT-DIR/city unless it is there already; the server \
            uses a new SQLite store (OUT-DIR/demo.sqlite) and a virtual clock that the \
            simulation moves, so an hour takes about a minute. Simulated drivers report every \
            5 s, passengers book now and for later, drivers answer offers, and trips are paid \
            from wallets or in cash, all through the HTTP API. The last line on stdout is the \
            summary. With --serve the server stays up afterwards (until Ctrl-C) and its URL is \
            printed.
            """)
    @Option(name: .customLong("out-dir"), help: "The folder for the city, the store, summary.json and map.svg.") var outDir = "demo"
    @Option(help: "Simulated minutes.") var minutes = 60
    @Option(help: "Cabs on shift.") var cabs = 40
    @Option(help: "Random seed.") var seed: UInt64 = 42
    @Option(help: "The server's port (0: any free port).") var port = 0
    @Option(help: "The folder with monaco.osm.pbf, wards.geojson, communes.geojson, fares.json and tolls.json.") var data = "Data/monaco"
    @Flag(help: "Keep the server running afterwards and print its URL.") var serve = false

    func run() throws {
        guard (1...24 * 60).contains(minutes) else { throw CLIError("--minutes must be from 1 to 1440") }
        guard (1...2000).contains(cabs) else { throw CLIError("--cabs must be from 1 to 2000") }
        guard (0...65_535).contains(port) else { throw CLIError("--port must be from 0 to 65535") }
        try createFolder(outDir)
        let cityDir = (outDir as NSString).appendingPathComponent("city")
        if FileManager.default.fileExists(atPath: (cityDir as NSString).appendingPathComponent(CityFolder.settingsFile)) {
            note("city: \(cityDir) (built before)")
        } else {
            try? FileManager.default.removeItem(atPath: cityDir)
            note("city: building \(cityDir) from \(data)")
            func source(_ name: String) -> String { (data as NSString).appendingPathComponent(name) }
            for name in ["monaco.osm.pbf", "wards.geojson", "communes.geojson", "fares.json", "tolls.json"]
            where !FileManager.default.fileExists(atPath: source(name)) {
                throw CLIError("\(source(name)): missing; run from the checkout or give --data")
            }
            var build = try CityBuild.parse(["--osm", source("monaco.osm.pbf"), "--zones", source("wards.geojson"),
                                             "--service-area", source("communes.geojson"), "--fares", source("fares.json"),
                                             "--tolls", source("tolls.json"), "--name", "Monaco", "--out", cityDir])
            try build.validate()
            try build.run()
        }
        var options = Demo.Options(city: cityDir, outDir: outDir)
        options.minutes = minutes
        options.cabs = cabs
        options.seed = seed
        options.port = port
        let demo = Demo(options, progress: { note($0) })
        let serve = self.serve
        let summary = Locked<Demo.Summary?>(nil)
        try runBlocking {
            let result = try await demo.run(serve: serve) { url in
                note("serving \(url) — the live page; Ctrl-C to stop")
            }
            summary.withLock { $0 = result }
        }
        guard let s = summary.withLock({ $0 }) else { return }
        note("map: \((outDir as NSString).appendingPathComponent("map.svg"))")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let line = String(decoding: (try? encoder.encode(Headline(s))) ?? Data(), as: UTF8.self)
        print(line)
    }
}

/// The summary's headline figures, printed as the demo's last line (summary.json has all).
struct Headline: Encodable {
    let city: String, minutes: Int, requests: Int, served: Int
    let mean_pickup_eta_s: Double?, dispatch_p50_ms: Double?, dispatch_p99_ms: Double?
    let revenue: Int64, currency: String, ledger_balanced: Bool, http_requests: Int, wall_seconds: Double

    init(_ s: Demo.Summary) {
        city = s.city; minutes = s.minutes; requests = s.requests; served = s.served
        mean_pickup_eta_s = s.meanPickupETASeconds; dispatch_p50_ms = s.dispatchP50Milliseconds; dispatch_p99_ms = s.dispatchP99Milliseconds
        revenue = s.revenue; currency = s.currency; ledger_balanced = s.ledgerBalanced; http_requests = s.httpRequests
        wall_seconds = s.simulation.wallSeconds
    }
}
