import Foundation
import Testing
import TestSupport

/// The README's Swift example: it runs on Monaco's files, links no GEOS or PROJ, and every
/// ```swift block of the README and of `docs/` is part of an example, so their code stays true.
@Suite(.serialized) struct ExampleTests {
    let folder = TemporaryFolder()

    @Test func theReadmeExampleRunsOnMonaco() throws {
        let zones = folder.path("monaco.wfz"), graph = folder.path("monaco.wfg"), table = folder.path("monaco.wfgc")
        for command in [["zones", "import", "Data/monaco/wards.geojson", "--service-area", "Data/monaco/communes.geojson", "--out", zones],
                        ["graph", "import", "Data/monaco/monaco.osm.pbf", "--out", graph],
                        ["geocoder", "build", "--osm", "Data/monaco/monaco.osm.pbf", "--out", table]] {
            let r = try runWayfare(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
        }
        let r = try runBuilt("wayfare-example", [zones, graph, table])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "zone: Monte-Carlo, service area: Monaco", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("route: ") && $0.contains("Place du Casino") }, "\(lines)")
        // Two cabs with an ETA each, nearest first.
        #expect(lines.filter { $0.hasPrefix("cab MC-") && $0.contains("ETA") && !$0.hasSuffix("none") }.count == 2, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("geocode: ") && $0.contains("Casino") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("dispatch: MC-04, ETA ") }, "\(lines)")
        // A missing file is a one-line error and exit 1.
        let bad = try runBuilt("wayfare-example", [folder.path("nothing.wfz"), graph, table])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("Error: ") && bad.stderr.contains("nothing.wfz"), "\(bad.stderr)")
    }

    @Test func theExampleLinksNeitherGEOSNorPROJ() throws {
        let exe = try builtExecutable("wayfare-example")
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [exe.path]
        let out = Pipe()
        ldd.standardOutput = out
        try ldd.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        #expect(text.contains("libswiftCore"), "ldd gave: \(text)")   // the check itself works
        #expect(!text.contains("libgeos") && !text.contains("libproj"), "\(text)")
        // The wayfare CLI, which imports zones, does link them: the check can fail.
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        cli.arguments = [try builtExecutable("wayfare").path]
        let cliOut = Pipe()
        cli.standardOutput = cliOut
        try cli.run()
        let cliText = String(decoding: cliOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cli.waitUntilExit()
        #expect(cliText.contains("libgeos") && cliText.contains("libproj"))
    }

    @Test func everySwiftBlockOfTheReadmeIsInTheExample() throws {
        // The README and the pages of docs/: every ```swift block of them.
        let docs = SharedData.projectRoot.appendingPathComponent("docs")
        let pages = ["README.md"] + (try FileManager.default.contentsOfDirectory(atPath: docs.path)).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let readme = try pages.map { try String(contentsOf: SharedData.projectRoot.appendingPathComponent($0), encoding: .utf8) }.joined(separator: "\n")
        let example = try ["Examples/BackendExample/main.swift", "Examples/ServicesExample/main.swift"].map {
            try String(contentsOf: SharedData.projectRoot.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        let exampleLines = example.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var blocks: [[String]] = [], current: [String]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```swift") { current = [] }
            else if line.hasPrefix("```"), let c = current { blocks.append(c); current = nil }
            else if current != nil {
                let t = line.trimmingCharacters(in: .whitespaces)
                if !t.isEmpty { current!.append(t) }
            }
        }
        #expect(blocks.count >= 6, "the README and docs/swift.md have a block per question")
        for block in blocks {
            let found: Bool = exampleLines.indices.contains { (i: Int) -> Bool in
                guard i + block.count <= exampleLines.count else { return false }
                let window: [String] = Array(exampleLines[i..<(i + block.count)])
                return window == block
            }
            #expect(found, "README block not in Examples/*/main.swift:\n\(block.joined(separator: "\n"))")
        }
    }

    @Test func theServicesExampleRunsOnSQLite() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("wf-services-example-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try runBuilt("wayfare-services-example", [dir.appendingPathComponent("example.sqlite").path])
        #expect(run.status == 0, "\(run.stderr)")
        // 25,350 × 20 % = 5,070; 50,000 − 25,350 = 24,650 left.
        #expect(run.stdout.contains("paid: fare 25350, wallet 25350, cash 0, commission 5070"), "\(run.stdout)")
        // The booking in Monaco, billed the booked route (no reports during the trip): 2,893 m
        // in a sedan, 5,000 + 2.893 × 1,200 = 8,472, less the first ride's 10 % (847): 7,625
        // from the wallet, which keeps 24,650 − 7,625.
        #expect(run.stdout.contains("trip: fare 7625 (base 5000, distance 3472, first ride -847), paid by wallet"), "\(run.stdout)")
        #expect(run.stdout.contains("balance: 17025"), "\(run.stdout)")
        #expect(run.stdout.contains("sound: true"), "\(run.stdout)")
        // A second run on the same file: the number is taken, so no code reaches the phone (the
        // owner is told someone tried) and verifying fails: a one-line error and exit 1.
        let again = try runBuilt("wayfare-services-example", [dir.appendingPathComponent("example.sqlite").path])
        #expect(again.status == 1 && again.stderr.hasPrefix("Error: ") && again.stderr.contains("invalid or expired code"), "\(again.stderr)")
    }
}
