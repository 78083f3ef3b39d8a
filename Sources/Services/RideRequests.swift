import CityModel
import Essentials
import Fares
import Fleet
import Foundation
import Geodesy
import RoadGraph
import Storage

/// Where a ride request stands (002): open → accepted (by one or more drivers) → confirmed
/// (the rider picked one) → completed → paid; or cancelled before completion.
public enum RideRequestStatus: String, Sendable, Codable, CaseIterable {
    /// Waiting for drivers.
    case open
    /// At least one driver accepted; the rider has not picked yet.
    case accepted
    /// The rider picked a driver.
    case confirmed
    /// The ride took place.
    case completed
    /// The rider paid.
    case paid
    /// The rider cancelled.
    case cancelled
}

/// A rider's ride request as the phone sends it. `clientID` is made by the phone, so that a
/// phone that was offline can send its queue again without duplicating anything.
public struct RideRequestDraft: Sendable, Equatable {
    /// The rider's user id (a passenger).
    public var rider: Int64
    /// The phone's own id for this request: 1 to 64 of letters, digits, `-`, `_`, `:`.
    public var clientID: String
    /// Where from.
    public var source: Coordinate
    /// Where to.
    public var destination: Coordinate
    /// The source's address as the rider wrote it.
    public var sourceAddress: String
    /// The destination's address.
    public var destinationAddress: String
    /// What the rider says about the ride (luggage, pets, …).
    public var description: String
    /// The price the rider offers, in minor units (``RideRequests/suggestedFare(from:to:type:)`` offers one).
    public var fare: Int64

    /// A draft.
    public init(rider: Int64, clientID: String, source: Coordinate, destination: Coordinate, sourceAddress: String = "",
                destinationAddress: String = "", description: String = "", fare: Int64) {
        self.rider = rider; self.clientID = clientID; self.source = source; self.destination = destination
        self.sourceAddress = sourceAddress; self.destinationAddress = destinationAddress
        self.description = description; self.fare = fare
    }
}

/// A stored ride request.
public struct RideRequestRecord: Sendable, Equatable {
    /// The server's id.
    public var id: Int64
    /// The phone's id.
    public var clientID: String
    /// The rider.
    public var rider: Int64
    /// Where it stands.
    public var status: RideRequestStatus
    /// Where from.
    public var source: Coordinate
    /// Where to.
    public var destination: Coordinate
    /// The source's address.
    public var sourceAddress: String
    /// The destination's address.
    public var destinationAddress: String
    /// The rider's words.
    public var description: String
    /// The price offered, in minor units.
    public var fare: Int64
    /// The fastest route's length, in metres (for the price per km).
    public var metres: Int64
    /// The drivers who accepted, in order.
    public var acceptedBy: [Int64]
    /// The driver the rider confirmed.
    public var driver: Int64?
    /// When it was made.
    public var created: Date

    /// The price per kilometre of the routed trip, in minor units (rounded down).
    public var farePerKilometre: Int64 { metres > 0 ? fare * 1000 / metres : fare }
}

/// What a driver looks for. Every field is optional; `near` with `withinMetres` orders the
/// answer nearest first.
public struct RideSearch: Sendable, Equatable {
    /// The driver's position.
    public var near: Coordinate?
    /// How far from `near` a source may be (at most 50 km).
    public var withinMetres: Double
    /// Words that must all appear in the description or the addresses (case and accents ignored).
    public var keyword: String?
    /// Words that must all appear in the source or destination address.
    public var address: String?
    /// The fare's bounds, in minor units.
    public var minimumFare: Int64?, maximumFare: Int64?
    /// The price per km's bounds, in minor units.
    public var minimumPerKilometre: Int64?, maximumPerKilometre: Int64?
    /// The most answers (at most 200).
    public var limit: Int

    /// A search.
    public init(near: Coordinate? = nil, withinMetres: Double = 5_000, keyword: String? = nil, address: String? = nil,
                minimumFare: Int64? = nil, maximumFare: Int64? = nil, minimumPerKilometre: Int64? = nil,
                maximumPerKilometre: Int64? = nil, limit: Int = 50) {
        self.near = near; self.withinMetres = withinMetres; self.keyword = keyword; self.address = address
        self.minimumFare = minimumFare; self.maximumFare = maximumFare
        self.minimumPerKilometre = minimumPerKilometre; self.maximumPerKilometre = maximumPerKilometre; self.limit = limit
    }
}

/// One answer of a search: the request and how far its source is from the driver.
public struct RideMatch: Sendable, Equatable {
    /// The request.
    public var request: RideRequestRecord
    /// Great-circle metres from the driver to the source (nil when the search had no position).
    public var metres: Double?
}

/// Ride requests in the manner of the Carrier use cases (002): riders post a trip and a
/// price, drivers search and accept, the rider confirms one driver, the ride is completed
/// and paid.
///
/// The spatial search runs in the store, on an index of grid cells: each request's source
/// falls in a cell of 0.01° of latitude by 0.01° of longitude, numbered row by row, and
/// `(status, cell)` is indexed, so a search reads one index range per row of cells that
/// the search circle's bounding box covers, then keeps what lies within the distance. Why
/// in the store and not in memory: every replica of the server sees the same requests
/// without a cache to keep in step.
///
/// Offline replay: a request is unique per (rider, client id) and an acceptance per
/// (driver, client id); sending either again returns what the first one made. Conflicts are
/// answered in words: "ride request 12 was cancelled".
///
/// `Sendable`: immutable `Sendable` properties and a locked router pool.
public struct RideRequests: Sendable {
    let store: any SQLStore
    let city: City
    let clock: any FleetClock
    let commissionPercent: Int64
    let routers: RouterPool

    /// The ride requests of `city` on `store` (migrated to ``ServiceSchema``).
    public init(store: any SQLStore, city: City, clock: any FleetClock = SystemClock(), wallet: WalletSettings = WalletSettings()) {
        self.store = store; self.city = city; self.clock = clock
        commissionPercent = wallet.commissionPercent
        routers = RouterPool(network: city.network)
    }

    /// The widest search, in metres.
    public static let maximumSearchMetres = 50_000.0

    /// A fare to offer for a trip: the city's estimate for `type`.
    public func suggestedFare(from source: Coordinate, to destination: Coordinate, type: CabType = .sedan) throws(ServiceError) -> Int64 {
        let result: Result<Int64, FareError> = routers.with { router in
            Result { () throws(FareError) -> Int64 in
                try city.fares.estimate(from: source, to: destination, type: type, in: city.zones, router: router, tolls: city.tolls).fare.total
            }
        }
        switch result {
        case let .success(fare): return fare
        case .failure(.outOfServiceArea): throw .invalid(field: "source", reason: "present location is out of bounds of any service area")
        case let .failure(error): throw .invalid(field: "destination", reason: error.description)
        }
    }

    /// Posts a request; the same (rider, client id) again returns the first one.
    /// - Throws: `invalid` naming the field (source and destination required and different,
    ///   a fare from 1 to 10^10, texts bounded); `idempotencyKeyReused` when the client id
    ///   came back with a different request.
    public func post(_ draft: RideRequestDraft) async throws(ServiceError) -> RideRequestRecord {
        try Validate.reference(draft.clientID, field: "clientID")
        let source = try Validate.text(draft.sourceAddress, field: "sourceAddress", maximum: 200, required: false)
        let destination = try Validate.text(draft.destinationAddress, field: "destinationAddress", maximum: 200, required: false)
        let description = try Validate.text(draft.description, field: "description", maximum: 500, required: false)
        guard draft.fare > 0, draft.fare <= FareLimits.maximumFare else {
            throw .invalid(field: "fare", reason: "must be between 1 and \(FareLimits.maximumFare) minor units")
        }
        guard draft.source.distance(to: draft.destination) >= city.settings.minimumTripMetres else {
            throw .invalid(field: "destination", reason: "must differ from the source by at least \(Int(city.settings.minimumTripMetres)) m")
        }
        guard city.zones.isServed(draft.source) else {
            throw .invalid(field: "source", reason: "present location is out of bounds of any service area")
        }
        let route: Route? = routers.with { try? $0.route(from: draft.source, to: draft.destination) }
        guard let route else { throw .invalid(field: "destination", reason: "no route by road from the source") }
        let metres = Int64(route.distanceMetres.rounded()), now = milliseconds(clock.now())
        let fingerprint = "\(Bookings.e7(draft.source))|\(Bookings.e7(draft.destination))|\(draft.fare)|\(source)|\(destination)|\(description)"
        let id: Int64 = try await serviceCall {
            try await store.write { c in
                let requests = RideRequestStatements(c)
                if let existing = try requests.request(rider: draft.rider, clientID: draft.clientID) {
                    guard existing.fingerprint == Idempotency.hash(fingerprint) else { throw ServiceError.idempotencyKeyReused(draft.clientID) }
                    return existing.id
                }
                try Users.require(c, draft.rider, role: .passenger)
                return try requests.insert(draft, fingerprint: Idempotency.hash(fingerprint), cell: Self.cell(draft.source),
                                           sourceAddress: source, destinationAddress: destination, description: description,
                                           metres: metres, at: now)
            }
        }
        return try await request(id)
    }

    /// One request, with its acceptances.
    public func request(_ id: Int64) async throws(ServiceError) -> RideRequestRecord {
        try await serviceCall {
            try await store.read { c in
                let requests = RideRequestStatements(c)
                guard let row = try requests.request(id) else { throw ServiceError.notFound("ride request \(id)") }
                return row.record(acceptedBy: try requests.acceptances(of: [id])[id] ?? [])
            }
        }
    }

    /// Open and accepted requests matching `search`: nearest first when it has a position,
    /// else newest first.
    public func search(_ search: RideSearch) async throws(ServiceError) -> [RideMatch] {
        guard (1...200).contains(search.limit) else { throw .invalid(field: "limit", reason: "must be between 1 and 200") }
        guard search.withinMetres > 0, search.withinMetres <= Self.maximumSearchMetres else {
            throw .invalid(field: "withinMetres", reason: "must be more than 0 and at most \(Int(Self.maximumSearchMetres))")
        }
        let keyword = try search.keyword.map { k throws(ServiceError) in try Validate.text(k, field: "keyword", maximum: 100) }
        let address = try search.address.map { a throws(ServiceError) in try Validate.text(a, field: "address", maximum: 200) }
        let cells = search.near.map { Self.cellRanges(around: $0, metres: search.withinMetres) }
        // Acceptances are read only for the answers kept, not for every candidate row.
        let rows: [RideRequestRecord] = try await serviceCall {
            try await store.read { c in
                try RideRequestStatements(c).searchable(cells: cells, minimumFare: search.minimumFare, maximumFare: search.maximumFare)
                    .map { $0.record(acceptedBy: []) }
            }
        }
        let words = { (text: String?) in text.map(Self.words) ?? [] }
        let keywordWords = words(keyword), addressWords = words(address)
        var matches: [RideMatch] = []
        for r in rows {
            var metres: Double?
            if let near = search.near {
                let d = near.distance(to: r.source)
                guard d <= search.withinMetres else { continue }
                metres = d
            }
            if let v = search.minimumPerKilometre, r.farePerKilometre < v { continue }
            if let v = search.maximumPerKilometre, r.farePerKilometre > v { continue }
            if !keywordWords.isEmpty {
                let text = Self.fold(r.description + " " + r.sourceAddress + " " + r.destinationAddress)
                guard keywordWords.allSatisfy(text.contains) else { continue }
            }
            if !addressWords.isEmpty {
                let text = Self.fold(r.sourceAddress + " " + r.destinationAddress)
                guard addressWords.allSatisfy(text.contains) else { continue }
            }
            matches.append(RideMatch(request: r, metres: metres))
        }
        if search.near != nil { matches.sort { ($0.metres!, $0.request.id) < ($1.metres!, $1.request.id) } }
        var answers = Array(matches.prefix(search.limit))
        let ids = answers.map(\.request.id)
        let accepted: [Int64: [Int64]] = try await serviceCall {
            try await store.read { c in try RideRequestStatements(c).acceptances(of: ids) }
        }
        for k in answers.indices { answers[k].request.acceptedBy = accepted[answers[k].request.id] ?? [] }
        return answers
    }

    /// A driver accepts a request; several drivers may. The same (driver, client id) again
    /// returns the request as it is.
    /// - Throws: `conflict` when the request was cancelled, confirmed or is over.
    public func accept(_ id: Int64, driver: Int64, clientID: String) async throws(ServiceError) -> RideRequestRecord {
        try Validate.reference(clientID, field: "clientID")
        let now = milliseconds(clock.now())
        try await serviceCall {
            try await store.write { c in
                let requests = RideRequestStatements(c)
                if let accepted = try requests.acceptedRequest(driver: driver, clientID: clientID) {
                    guard accepted == id else { throw ServiceError.idempotencyKeyReused(clientID) }
                    return
                }
                try Users.require(c, driver, role: .driver)
                guard let status = try requests.status(of: id) else { throw ServiceError.notFound("ride request \(id)") }
                if status == .confirmed { throw ServiceError.conflict("ride request \(id) is already confirmed with another driver") }
                guard status == .open || status == .accepted else { throw Self.conflict(id, status) }
                if try requests.hasAccepted(id, driver: driver) { return }
                try requests.insertAcceptance(id, driver: driver, clientID: clientID, at: now)
                try requests.setStatus(id, to: .accepted, at: now)
            }
        }
        return try await request(id)
    }

    /// The rider picks one of the drivers who accepted.
    public func confirm(_ id: Int64, rider: Int64, driver: Int64) async throws(ServiceError) -> RideRequestRecord {
        let now = milliseconds(clock.now())
        try await serviceCall {
            try await store.write { c in
                let requests = RideRequestStatements(c)
                let row = try Self.ridersRow(requests, id, rider)
                if row.status == .confirmed, row.driverID == driver { return }
                guard row.status == .accepted else { throw Self.conflict(id, row.status) }
                guard try requests.hasAccepted(id, driver: driver) else {
                    throw ServiceError.invalid(field: "driver", reason: "driver \(driver) did not accept ride request \(id)")
                }
                try requests.confirm(id, driver: driver, at: now)
            }
        }
        return try await request(id)
    }

    /// The confirmed driver reports the ride done.
    public func complete(_ id: Int64, driver: Int64) async throws(ServiceError) -> RideRequestRecord {
        let now = milliseconds(clock.now())
        try await serviceCall {
            try await store.write { c in
                let requests = RideRequestStatements(c)
                guard let row = try requests.request(id), row.driverID == driver else { throw ServiceError.notFound("ride request \(id)") }
                if row.status == .completed { return }
                guard row.status == .confirmed else { throw Self.conflict(id, row.status) }
                try requests.setStatus(id, to: .completed, at: now)
            }
        }
        return try await request(id)
    }

    /// The rider pays the agreed fare: from the wallet when it holds enough, else recorded
    /// as cash to the driver; the commission split as for bookings. Idempotent by `key`.
    public func pay(_ id: Int64, rider: Int64, key: IdempotencyKey) async throws(ServiceError) -> TripPayment {
        let now = milliseconds(clock.now()), percent = commissionPercent
        return try await serviceCall {
            try await store.write(locking: Ledger.turns(for: "ride:\(id)")) { c in
                try Idempotency.once(c, key: key, operation: "ride-pay", request: "\(id)|\(rider)", now: now) {
                    let requests = RideRequestStatements(c)
                    let row = try Self.ridersRow(requests, id, rider)
                    guard row.status == .completed, let driver = row.driverID else { throw Self.conflict(id, row.status) }
                    let fare = row.fare
                    let reference = "ride:\(id)"
                    try Users.require(c, rider, role: .passenger)
                    try Users.require(c, driver, role: .driver)
                    _ = try Wallet.holdFare(c, reference: reference, passenger: rider, estimate: fare, now: now)
                    let paid = try Wallet.settleFare(c, reference: reference, fare: fare, driver: driver, commissionPercent: percent, now: now)
                    try requests.setStatus(id, to: .paid, at: now)
                    return paid
                }
            }
        }
    }

    /// The rider cancels before the ride is completed; the same call again is harmless.
    public func cancel(_ id: Int64, rider: Int64) async throws(ServiceError) -> RideRequestRecord {
        let now = milliseconds(clock.now())
        try await serviceCall {
            try await store.write { c in
                let requests = RideRequestStatements(c)
                let status = try Self.ridersRow(requests, id, rider).status
                if status == .cancelled { return }
                guard [.open, .accepted, .confirmed].contains(status) else { throw Self.conflict(id, status) }
                try requests.setStatus(id, to: .cancelled, at: now)
            }
        }
        return try await request(id)
    }

    // MARK: Pieces

    static func conflict(_ id: Int64, _ status: RideRequestStatus) -> ServiceError {
        switch status {
        case .cancelled: .conflict("ride request \(id) was cancelled")
        case .open: .conflict("ride request \(id) has no accepting driver yet")
        default: .conflict("ride request \(id) is already \(status.rawValue)")
        }
    }

    /// A request of `rider`'s; another rider's is `notFound`, as an unknown one is.
    static func ridersRow(_ requests: RideRequestStatements, _ id: Int64, _ rider: Int64) throws -> RideRequestStatements.RequestRow {
        guard let row = try requests.request(id, of: rider) else { throw ServiceError.notFound("ride request \(id)") }
        return row
    }

    /// Cells of 0.01° × 0.01°: row (latitude) × 36,000 + column (longitude).
    static let cellsPerRow: Int64 = 36_000

    static func cell(_ c: Coordinate) -> Int64 {
        let row = Int64(((c.latitude + 90) * 100).rounded(.down)), column = Int64(((c.longitude + 180) * 100).rounded(.down))
        return row * cellsPerRow + min(column, cellsPerRow - 1)
    }

    /// One range of cell numbers per row of cells that the circle's bounding box covers.
    /// Near the antimeridian the box is split in two; near a pole it takes whole rows.
    static func cellRanges(around p: Coordinate, metres: Double) -> [ClosedRange<Int64>] {
        let dLat = metres / 111_000 + 0.01  // a degree of latitude is at least 110.57 km; a cell of margin
        let cosine = cos(min(89.0, abs(p.latitude) + dLat) * .pi / 180)
        let dLon = min(180, metres / (111_320 * cosine) + 0.01)
        let south = max(-90, p.latitude - dLat), north = min(89.999_999, p.latitude + dLat)
        let firstRow = Int64(((south + 90) * 100).rounded(.down)), lastRow = Int64(((north + 90) * 100).rounded(.down))
        var columns: [ClosedRange<Int64>] = []
        if dLon >= 180 {
            columns = [0...(cellsPerRow - 1)]
        } else {
            let west = p.longitude - dLon, east = p.longitude + dLon
            func column(_ lon: Double) -> Int64 { min(cellsPerRow - 1, max(0, Int64(((lon + 180) * 100).rounded(.down)))) }
            if west < -180 { columns = [column(west + 360)...(cellsPerRow - 1), 0...column(east)] }
            else if east > 180 { columns = [column(west)...(cellsPerRow - 1), 0...column(east - 360)] }
            else { columns = [column(west)...column(east)] }
        }
        var ranges: [ClosedRange<Int64>] = []
        for row in firstRow...lastRow {
            for c in columns { ranges.append((row * cellsPerRow + c.lowerBound)...(row * cellsPerRow + c.upperBound)) }
        }
        return ranges
    }

    /// Lower-cased, without accents.
    static func fold(_ s: String) -> String { s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }

    static func words(_ s: String) -> [String] { fold(s).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init) }
}
