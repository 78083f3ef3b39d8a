import Foundation
import Geodesy
import Storage

/// Every statement of the ride requests and their acceptances, in one place: values bound
/// where they appear, rows decoded by column name.
struct RideRequestStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A ride request as stored.
    struct RequestRow: Decodable {
        let id: Int64
        let clientID: String
        let riderID: Int64
        let status: RideRequestStatus
        let sourceLatE7: Int64
        let sourceLonE7: Int64
        let destLatE7: Int64
        let destLonE7: Int64
        let sourceAddress: String
        let destAddress: String
        let description: String
        let fare: Int64
        let metres: Int64
        let driverID: Int64?
        let createdMs: Int64
        enum CodingKeys: String, CodingKey {
            case id, clientID = "client_id", riderID = "rider_id", status, sourceLatE7 = "source_lat_e7", sourceLonE7 = "source_lon_e7"
            case destLatE7 = "dest_lat_e7", destLonE7 = "dest_lon_e7", sourceAddress = "source_address", destAddress = "dest_address"
            case description, fare, metres, driverID = "driver_id", createdMs = "created_ms"
        }

        /// The request as the service answers it, with the drivers who accepted it.
        func record(acceptedBy drivers: [Int64]) -> RideRequestRecord {
            RideRequestRecord(id: id, clientID: clientID, rider: riderID, status: status,
                              source: Coordinate(unchecked: Double(sourceLatE7) / 1e7, Double(sourceLonE7) / 1e7),
                              destination: Coordinate(unchecked: Double(destLatE7) / 1e7, Double(destLonE7) / 1e7),
                              sourceAddress: sourceAddress, destinationAddress: destAddress, description: description,
                              fare: fare, metres: metres, acceptedBy: drivers, driver: driverID, created: date(milliseconds: createdMs))
        }
    }

    /// A request found by its rider's client id.
    struct ClientRow: Decodable {
        let id: Int64
        let fingerprint: String
    }

    private struct StatusRow: Decodable { let status: RideRequestStatus }
    private struct RequestID: Decodable {
        let requestID: Int64
        enum CodingKeys: String, CodingKey { case requestID = "request_id" }
    }
    private struct Acceptance: Decodable {
        let requestID: Int64
        let driverID: Int64
        enum CodingKeys: String, CodingKey { case requestID = "request_id", driverID = "driver_id" }
    }

    private static let columns: Statement = """
        id, client_id, rider_id, status, source_lat_e7, source_lon_e7, dest_lat_e7, dest_lon_e7, source_address, dest_address,
        description, fare, metres, driver_id, created_ms
        """

    // MARK: Requests

    func request(_ id: Int64) throws -> RequestRow? {
        try c.fetchOne(RequestRow.self, "SELECT \(sql: Self.columns) FROM ride_requests WHERE id = \(id)")
    }

    /// A request of `rider`'s (nil for another rider's, as for an unknown one).
    func request(_ id: Int64, of rider: Int64) throws -> RequestRow? {
        try c.fetchOne(RequestRow.self, "SELECT \(sql: Self.columns) FROM ride_requests WHERE id = \(id) AND rider_id = \(rider)")
    }

    func request(rider: Int64, clientID: String) throws -> ClientRow? {
        try c.fetchOne(ClientRow.self, "SELECT id, fingerprint FROM ride_requests WHERE rider_id = \(rider) AND client_id = \(clientID)")
    }

    func status(of id: Int64) throws -> RideRequestStatus? {
        try c.fetchOne(StatusRow.self, "SELECT status FROM ride_requests WHERE id = \(id)")?.status
    }

    /// Open and accepted requests, newest first (at most 5,000), whose source lies in one of
    /// `cells` (when given) and whose fare lies within the bounds.
    func searchable(cells: [ClosedRange<Int64>]?, minimumFare: Int64?, maximumFare: Int64?) throws -> [RequestRow] {
        var query: Statement = "SELECT \(sql: Self.columns) FROM ride_requests WHERE status IN ('open', 'accepted')"
        if let cells {
            let ranges = cells.map { r -> Statement in "cell BETWEEN \(r.lowerBound) AND \(r.upperBound)" }
            query.append(" AND (\(sql: .joined(ranges, separator: " OR ")))")
        }
        if let v = minimumFare { query.append(" AND fare >= \(v)") }
        if let v = maximumFare { query.append(" AND fare <= \(v)") }
        query.append(" ORDER BY created_ms DESC, id DESC LIMIT 5000")
        return try c.fetchAll(RequestRow.self, query)
    }

    /// Stores a new open request; returns its id.
    func insert(_ draft: RideRequestDraft, fingerprint: String, cell: Int64, sourceAddress: String, destinationAddress: String,
                description: String, metres: Int64, at now: Int64) throws -> Int64 {
        try c.insertReturningID("""
            INSERT INTO ride_requests (client_id, fingerprint, rider_id, status, source_lat_e7, source_lon_e7, dest_lat_e7, dest_lon_e7,
                cell, source_address, dest_address, description, fare, metres, created_ms, updated_ms)
            VALUES (\(draft.clientID), \(fingerprint), \(draft.rider), 'open',
                \(Bookings.e7(draft.source.latitude)), \(Bookings.e7(draft.source.longitude)),
                \(Bookings.e7(draft.destination.latitude)), \(Bookings.e7(draft.destination.longitude)),
                \(cell), \(sourceAddress), \(destinationAddress), \(description), \(draft.fare), \(metres),
                \(now), \(now)) RETURNING id
            """, into: "ride_requests")
    }

    func setStatus(_ id: Int64, to status: RideRequestStatus, at now: Int64) throws {
        try c.execute("UPDATE ride_requests SET status = \(status.rawValue), updated_ms = \(now) WHERE id = \(id)")
    }

    func confirm(_ id: Int64, driver: Int64, at now: Int64) throws {
        try c.execute("UPDATE ride_requests SET status = 'confirmed', driver_id = \(driver), updated_ms = \(now) WHERE id = \(id)")
    }

    // MARK: Acceptances

    /// The request a driver's acceptance with `clientID` was for.
    func acceptedRequest(driver: Int64, clientID: String) throws -> Int64? {
        try c.fetchOne(RequestID.self, "SELECT request_id FROM ride_acceptances WHERE driver_id = \(driver) AND client_id = \(clientID)")?
            .requestID
    }

    func hasAccepted(_ id: Int64, driver: Int64) throws -> Bool {
        try c.first("SELECT driver_id FROM ride_acceptances WHERE request_id = \(id) AND driver_id = \(driver)") != nil
    }

    func insertAcceptance(_ id: Int64, driver: Int64, clientID: String, at now: Int64) throws {
        try c.execute("""
            INSERT INTO ride_acceptances (request_id, driver_id, client_id, created_ms)
            VALUES (\(id), \(driver), \(clientID), \(now))
            """)
    }

    /// The drivers who accepted each request, in order, in one query.
    func acceptances(of ids: [Int64]) throws -> [Int64: [Int64]] {
        guard !ids.isEmpty else { return [:] }
        let list = Statement.joined(ids.map { id -> Statement in "\(id)" }, separator: ", ")
        var out: [Int64: [Int64]] = [:]
        for row in try c.fetchAll(Acceptance.self, """
            SELECT request_id, driver_id FROM ride_acceptances WHERE request_id IN (\(sql: list)) ORDER BY created_ms, driver_id
            """) {
            out[row.requestID, default: []].append(row.driverID)
        }
        return out
    }
}
