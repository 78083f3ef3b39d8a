/// A latitude/longitude box. It never crosses the antimeridian: `west <= east` always.
public struct BoundingBox: Hashable, Sendable, CustomStringConvertible {
    public var south: Double
    public var west: Double
    public var north: Double
    public var east: Double

    public init(south: Double, west: Double, north: Double, east: Double) {
        precondition(south <= north && west <= east, "box corners out of order")
        self.south = south; self.west = west; self.north = north; self.east = east
    }

    /// The smallest box around `points`, or nil when there are none.
    public init?(around points: some Sequence<Coordinate>) {
        var it = points.makeIterator()
        guard let first = it.next() else { return nil }
        var box = BoundingBox(south: first.latitude, west: first.longitude,
                              north: first.latitude, east: first.longitude)
        while let p = it.next() { box.formUnion(p) }
        self = box
    }

    public mutating func formUnion(_ p: Coordinate) {
        south = min(south, p.latitude); north = max(north, p.latitude)
        west = min(west, p.longitude); east = max(east, p.longitude)
    }

    public mutating func formUnion(_ other: BoundingBox) {
        south = min(south, other.south); north = max(north, other.north)
        west = min(west, other.west); east = max(east, other.east)
    }

    /// Inclusive on every side.
    @inlinable
    public func contains(_ p: Coordinate) -> Bool {
        p.latitude >= south && p.latitude <= north && p.longitude >= west && p.longitude <= east
    }

    public func intersects(_ other: BoundingBox) -> Bool {
        south <= other.north && other.south <= north && west <= other.east && other.west <= east
    }

    public var center: Coordinate {
        Coordinate(unchecked: (south + north) / 2, (west + east) / 2)
    }

    public var description: String { "[\(south),\(west) .. \(north),\(east)]" }
}
