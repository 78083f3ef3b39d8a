// The child process of the ledger crash test (Tests/ServicesTests/LedgerCrashTests.swift):
// it pays and pays until the test kills it with SIGKILL, printing one line per payment
// after the payment's transaction committed and its call returned. Every printed line is
// a promise the store must keep across the kill.
//
//   LedgerCrashWorker ADDRESS SEED DRIVER PASSENGER...
//
// ADDRESS is sqlite:PATH or a postgres:// address of a migrated database.
import Foundation
import PostgresStorage
import SQLiteStorage
import Services
import Storage

let arguments = CommandLine.arguments
guard arguments.count >= 5, let seed = UInt64(arguments[2]), let driver = Int64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: LedgerCrashWorker ADDRESS SEED DRIVER PASSENGER...\n".utf8))
    exit(2)
}
let passengers = arguments[4...].compactMap { Int64($0) }
let store: any SQLStore
do {
    if arguments[1].hasPrefix("sqlite:") {
        store = try SQLiteStore(path: String(arguments[1].dropFirst("sqlite:".count)))
    } else {
        store = try PostgresStore(url: arguments[1])
    }
} catch {
    FileHandle.standardError.write(Data("LedgerCrashWorker: \(error)\n".utf8))
    exit(1)
}
let wallet = Wallet(store: store, gateway: TestModeGateway())

/// One line, written with one write(2) call: a line is printed whole or not at all.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run(seed: UInt64) async throws {
var state = seed
func random(_ n: UInt64) -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return (z ^ (z >> 31)) % n
}

var held: [String] = []
var i = 0
while true {
    i += 1
    let key = try IdempotencyKey("w\(seed)-\(i)")
    let passenger = passengers[Int(random(UInt64(passengers.count)))]
    do {
        let choice = random(4)
        if choice == 0 {
            let amount = Int64(1_000 + random(9_000))
            let result = try await wallet.refill(passenger: passenger, amount: amount, paymentToken: "tok_visa", key: key)
            say("ACK refill \(key) \(passenger) \(amount) \(result)")
        } else if choice == 1, !held.isEmpty {
            let reference = held.removeFirst()
            let paid = try await wallet.settleFare(reference: reference, fare: Int64(200 + random(4_000)), driver: driver, key: key)
            say("ACK settle \(key) \(reference) \(paid.fare)")
        } else {
            let reference = "w\(seed)-trip-\(i)"
            let hold = try await wallet.holdFare(reference: reference, passenger: passenger, estimate: Int64(500 + random(3_000)), key: key)
            held.append(reference)
            say("ACK hold \(key) \(reference) \(hold)")
            if random(3) == 0 {
                let victim = held.removeLast()
                let releaseKey = try IdempotencyKey("w\(seed)-\(i)-release")
                try await wallet.releaseFare(reference: victim, key: releaseKey)
                say("ACK release \(releaseKey) \(victim)")
            }
        }
    } catch {
        say("ERR \(key) \(error)")
    }
}
}

try await run(seed: seed)
