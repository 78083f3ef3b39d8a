/// A point's coordinates rounded to `Float`: the space that the R-tree's cells divide.
///
/// Why rounded: cells are kept in single precision (half the memory an update walks
/// through), and the bulk load partitions 16-byte records instead of 40-byte ones. Rounding
/// is monotone, so cells cut at rounded values tile this space exactly, and every part of
/// the tree (bulk load, insert, move, split) decides membership on the same rounded values.
struct CellKey: Sendable {
    var x, y, z: Float

    @inline(__always)
    init(_ p: SpherePoint) { x = Float(p.x); y = Float(p.y); z = Float(p.z) }

    @inline(__always)
    init(x: Double, y: Double, z: Double) { self.x = Float(x); self.y = Float(y); self.z = Float(z) }

    @inline(__always)
    subscript(axis: Int) -> Float { axis == 0 ? x : (axis == 1 ? y : z) }
}

/// A node's cell: a closed box of keys. The children's cells tile their parent's; a point
/// on a wall may sit on either side.
struct Cell: Equatable, Sendable {
    var minX, minY, minZ, maxX, maxY, maxZ: Float

    /// All of space: the root's cell.
    static let everything = Cell(minX: -.infinity, minY: -.infinity, minZ: -.infinity,
                                 maxX: .infinity, maxY: .infinity, maxZ: .infinity)
    /// Holds nothing; grows with `include`.
    static let empty = Cell(minX: .infinity, minY: .infinity, minZ: .infinity,
                            maxX: -.infinity, maxY: -.infinity, maxZ: -.infinity)

    @inline(__always)
    func contains(_ k: CellKey) -> Bool {
        k.x >= minX && k.x <= maxX && k.y >= minY && k.y <= maxY && k.z >= minZ && k.z <= maxZ
    }

    @inline(__always)
    mutating func include(_ k: CellKey) {
        minX = Swift.min(minX, k.x); minY = Swift.min(minY, k.y); minZ = Swift.min(minZ, k.z)
        maxX = Swift.max(maxX, k.x); maxY = Swift.max(maxY, k.y); maxZ = Swift.max(maxZ, k.z)
    }

    /// True when `c` lies inside this cell (walls included).
    func holds(_ c: Cell) -> Bool {
        minX <= c.minX && minY <= c.minY && minZ <= c.minZ && c.maxX <= maxX && c.maxY <= maxY && c.maxZ <= maxZ
    }

    /// True when the insides of the cells meet (sharing a wall is not overlapping).
    func overlapsInside(_ c: Cell) -> Bool {
        minX < c.maxX && c.minX < maxX && minY < c.maxY && c.minY < maxY && minZ < c.maxZ && c.minZ < maxZ
    }

    /// The axis (0, 1, 2: x, y, z) along which the cell is widest.
    var widestAxis: Int {
        let ex = maxX - minX, ey = maxY - minY, ez = maxZ - minZ
        return ex >= ey && ex >= ez ? 0 : (ey >= ez ? 1 : 2)
    }

    /// The cell's bound along `axis` on the low or the high side.
    subscript(low axis: Int) -> Float {
        get { axis == 0 ? minX : (axis == 1 ? minY : minZ) }
        set { if axis == 0 { minX = newValue } else if axis == 1 { minY = newValue } else { minZ = newValue } }
    }
    subscript(high axis: Int) -> Float {
        get { axis == 0 ? maxX : (axis == 1 ? maxY : maxZ) }
        set { if axis == 0 { maxX = newValue } else if axis == 1 { maxY = newValue } else { maxZ = newValue } }
    }
}
