import Storage

/// Every statement of the city leases, in one place: values bound where they appear, rows
/// decoded by column name.
struct LeaseStatements {
    let c: any SQLConnection
    init(_ c: any SQLConnection) { self.c = c }

    /// A city's lease as stored.
    struct Record: Decodable {
        let owner: String
        let url: String
        let token: Int64
        let expiresMs: Int64
        enum CodingKeys: String, CodingKey { case owner, url, token, expiresMs = "expires_ms" }
    }

    func lease(of city: String) throws -> Record? {
        try c.fetchOne(Record.self, "SELECT owner, url, token, expires_ms FROM city_leases WHERE city = \(city)")
    }

    private struct Token: Decodable { let token: Int64 }

    /// The token of `city`'s lease, read `FOR SHARE` on PostgreSQL so that a takeover
    /// (which updates the row) waits until the reading transaction ends.
    func token(of city: String) throws -> Int64? {
        try c.fetchOne(Token.self, "SELECT token FROM city_leases WHERE city = \(city)\(sql: c.forShare)")?.token
    }

    /// The first lease of a city: token 1.
    func insert(city: String, owner: String, url: String, until: Int64) throws {
        try c.execute("INSERT INTO city_leases (city, owner, url, token, expires_ms) VALUES (\(city), \(owner), \(url), 1, \(until))")
    }

    /// The holder keeps the lease (and its token) a while longer.
    func renew(city: String, url: String, until: Int64) throws {
        try c.execute("UPDATE city_leases SET expires_ms = \(until), url = \(url) WHERE city = \(city)")
    }

    /// Another replica takes a lapsed lease with the next token, which fences the former owner.
    func take(city: String, owner: String, url: String, token: Int64, until: Int64) throws {
        try c.execute("UPDATE city_leases SET owner = \(owner), url = \(url), token = \(token), expires_ms = \(until) WHERE city = \(city)")
    }
}
