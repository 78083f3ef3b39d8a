import Geodesy
import Storage

/// Every statement of the favourites, in one place: values bound where they appear, rows
/// decoded by column name.
struct FavouriteStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A saved place as stored.
    struct Record: Decodable {
        let name: String
        let latE7: Int64
        let lonE7: Int64
        enum CodingKeys: String, CodingKey { case name, latE7 = "lat_e7", lonE7 = "lon_e7" }
    }

    /// The places of `passenger`, in the order they were saved.
    func places(of passenger: Int64) throws -> [Record] {
        try c.fetchAll(Record.self, "SELECT name, lat_e7, lon_e7 FROM favourites WHERE user_id = \(passenger) ORDER BY position")
    }

    /// Saves a place after the passenger's others.
    func insert(name: String, at location: Coordinate, for passenger: Int64) throws {
        let next = try c.fetchOne(RowCount.self, """
            SELECT CAST(COALESCE(MAX(position), 0) + 1 AS BIGINT) AS n FROM favourites WHERE user_id = \(passenger)
            """)?.n ?? 1
        let lat = Bookings.e7(location.latitude), lon = Bookings.e7(location.longitude)
        try c.execute("""
            INSERT INTO favourites (user_id, position, name, lat_e7, lon_e7)
            VALUES (\(passenger), \(next), \(name), \(lat), \(lon))
            """)
    }

    /// Removes the place named exactly `name`.
    func delete(named name: String, for passenger: Int64) throws {
        try c.execute("DELETE FROM favourites WHERE user_id = \(passenger) AND name = \(name)")
    }
}
