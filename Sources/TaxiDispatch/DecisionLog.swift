import Essentials
import Fleet
import Foundation

/// One step of a request's life, as the dispatcher decided or observed it.
public struct DecisionRecord: Sendable, Equatable, Codable {
    /// What happened.
    public enum Kind: Sendable, Equatable, Codable {
        /// A customer asked for a cab (pickup zone index, -1 outside every zone).
        case requested(customer: String, latitude: Double, longitude: Double, zone: Int, type: String?, seats: Int)
        /// The candidates found, in offering order, with their ETAs in seconds.
        case candidates(cabs: [String], etaSeconds: [Double])
        /// An offer to a driver, with the ETA and how many times this cab has been asked.
        case offered(cab: String, etaSeconds: Double, attempt: Int)
        /// The driver accepted.
        case accepted(cab: String)
        /// The driver declined.
        case declined(cab: String)
        /// The driver did not answer in time.
        case timedOut(cab: String)
        /// The request got its cab.
        case assigned(cab: String, etaSeconds: Double)
        /// The search ended without a cab.
        case notServed(reason: NotServedReason)
        /// The customer cancelled.
        case cancelled
    }
    /// When, on the dispatcher's clock.
    public let time: Date
    /// The request it belongs to.
    public let request: UInt64
    /// What happened.
    public let kind: Kind

    /// A record.
    public init(time: Date, request: UInt64, kind: Kind) { self.time = time; self.request = request; self.kind = kind }
}

/// Why a request ended without a cab: "the service will not be delivered".
public enum NotServedReason: String, Sendable, Equatable, Codable, CaseIterable {
    /// In the whole search no eligible cab could arrive within the ETA limit.
    case noTaxiAvailable = "no_taxi_available"
    /// Cabs were offered the request, and none accepted within the search limit.
    case noTaxiAccepted = "no_taxi_accepted"
}

/// Where a dispatcher appends its decisions, in order. The store of the services will be
/// one; this module has an in-memory log and an append-only file.
public protocol DecisionLog: Sendable {
    /// Appends one record. Called under the dispatcher's lock, in decision order.
    func append(_ record: DecisionRecord)
}

/// Records kept in memory (tests, simulations).
///
/// `Sendable`: the records sit behind a lock.
public final class InMemoryDecisionLog: DecisionLog {
    private let storage = Locked<[DecisionRecord]>([])
    /// An empty log.
    public init() {}
    /// Appends a record.
    public func append(_ record: DecisionRecord) { storage.withLock { $0.append(record) } }
    /// Every record so far, in order.
    public var records: [DecisionRecord] { storage.withLock { $0 } }
}

/// An append-only file of JSON lines, one record per line.
///
/// Each record is one `write(2)` of a whole line at the end of the file (opened with
/// `O_APPEND`), so a crash leaves whole lines and at most a torn last one, which `read`
/// reports by line number. `sync()` forces the lines to disk; a service that must not lose
/// an acknowledged decision calls it before acknowledging. A failed write is counted in
/// `failedWrites` (a decision is never held up by its log).
///
/// `Sendable`: the descriptor is written under a lock.
public final class FileDecisionLog: DecisionLog {
    /// Why a log cannot be opened or read.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// One line naming the file (and line).
        public let description: String
    }
    private struct State { var fd: Int32; var failed = 0 }
    private let state: Locked<State>
    /// The file's path.
    public let path: String

    /// Opens (creating if needed) the log at `path` for appending.
    public init(path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        self.path = path
        state = Locked(State(fd: fd))
    }

    deinit { closeFile() }

    /// Writes one line.
    public func append(_ record: DecisionRecord) {
        var line = (try? Self.encoder.encode(record)) ?? Data()
        line.append(0x0A)
        state.withLock { s in
            let ok = line.withUnsafeBytes { b -> Bool in
                var done = 0
                while done < b.count {
                    let n = write(s.fd, b.baseAddress! + done, b.count - done)
                    if n < 0 { if errno == EINTR { continue }; return false }
                    done += n
                }
                return true
            }
            if !ok { s.failed += 1 }
        }
    }

    /// Lines that could not be written.
    public var failedWrites: Int { state.withLock { $0.failed } }

    /// Forces every appended line to disk (`fsync`).
    public func sync() throws(Failure) {
        let r = state.withLock { fsync($0.fd) }
        if r != 0 { throw Failure(description: "\(path): fsync: \(String(cString: strerror(errno)))") }
    }

    /// Closes the file; later appends count as failed.
    public func closeFile() { state.withLock { s in if s.fd >= 0 { _ = close(s.fd); s.fd = -1 } } }

    /// Reads a log back: a line that is not a record is an error naming it.
    public static func read(path: String) throws(Failure) -> [DecisionRecord] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "\(path): cannot read") }
        var out: [DecisionRecord] = []
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        for (i, line) in data.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            do { out.append(try decoder.decode(DecisionRecord.self, from: Data(line))) } catch {
                throw Failure(description: "\(path): line \(i + 1): not a decision record")
            }
        }
        return out
    }

    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode((date.timeIntervalSince1970 * 1000).rounded() / 1000)
        }
        return e
    }()
}
