/// Why four numbers do not make a box.
public enum BoundingBoxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A corner is not a valid coordinate (not finite, or off the globe).
    case corner(CoordinateError)
    /// South is above north, or west is east of east (a box never crosses the antimeridian).
    case outOfOrder(south: Double, west: Double, north: Double, east: Double)

    /// The error in one line.
    public var description: String {
        switch self {
        case let .corner(e): "box corner: \(e)"
        case let .outOfOrder(s, w, n, e): "box corners out of order: south \(s), west \(w), north \(n), east \(e)"
        }
    }
}

/// A latitude/longitude box. It never crosses the antimeridian: `west <= east` always.
public struct BoundingBox: Hashable, Sendable, CustomStringConvertible {
    /// The southern edge, in degrees of latitude.
    public private(set) var south: Double
    /// The western edge, in degrees of longitude.
    public private(set) var west: Double
    /// The northern edge, in degrees of latitude.
    public private(set) var north: Double
    /// The eastern edge, in degrees of longitude.
    public private(set) var east: Double

    /// A box from its sides, checked: each corner on the globe, south ≤ north, west ≤ east.
    public init(south: Double, west: Double, north: Double, east: Double) throws(BoundingBoxError) {
        do {
            _ = try Coordinate(latitude: south, longitude: west)
            _ = try Coordinate(latitude: north, longitude: east)
        } catch { throw .corner(error) }
        guard south <= north, west <= east else { throw .outOfOrder(south: south, west: west, north: north, east: east) }
        self.init(unchecked: south, west, north, east)
    }

    /// For sides already known to be valid (the bounds of validated coordinates).
    package init(unchecked south: Double, _ west: Double, _ north: Double, _ east: Double) {
        self.south = south; self.west = west; self.north = north; self.east = east
    }

    /// The smallest box around `points`, or nil when there are none.
    public init?(around points: some Sequence<Coordinate>) {
        var it = points.makeIterator()
        guard let first = it.next() else { return nil }
        var box = BoundingBox(unchecked: first.latitude, first.longitude, first.latitude, first.longitude)
        while let p = it.next() { box.formUnion(p) }
        self = box
    }

    /// Grows the box to hold `p`.
    public mutating func formUnion(_ p: Coordinate) {
        south = min(south, p.latitude); north = max(north, p.latitude)
        west = min(west, p.longitude); east = max(east, p.longitude)
    }

    /// Grows the box to hold `other`.
    public mutating func formUnion(_ other: BoundingBox) {
        south = min(south, other.south); north = max(north, other.north)
        west = min(west, other.west); east = max(east, other.east)
    }

    /// Inclusive on every side.
    @inlinable
    public func contains(_ p: Coordinate) -> Bool {
        p.latitude >= south && p.latitude <= north && p.longitude >= west && p.longitude <= east
    }

    /// True when the two boxes share at least a point (sides included).
    public func intersects(_ other: BoundingBox) -> Bool {
        south <= other.north && other.south <= north && west <= other.east && other.west <= east
    }

    /// The point halfway between the sides.
    public var center: Coordinate {
        Coordinate(unchecked: (south + north) / 2, (west + east) / 2)
    }

    /// "[south,west .. north,east]".
    public var description: String { "[\(south),\(west) .. \(north),\(east)]" }
}
