import BinaryFile
import Foundation
import Testing
import Geodesy
@testable import SpatialIndex

/// The street grid must give the tree's answer, bit for bit, everywhere: inside its cells,
/// on their edges, off the grid, and where a cell asks the tree.
@Suite struct SegmentGridTests {
    static func tree(around c: Coordinate, count: Int = 800, seed: UInt64 = 3) -> SegmentTree {
        let (lat, lon, start) = SegmentTreeTests.lines(around: c, count: count, seed: seed)
        return SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
    }

    /// Queries near the lines (the common case), far from them, and exactly on cell corners.
    static func queries(for grid: SegmentGrid, around c: Coordinate, seed: UInt64) -> [Coordinate] {
        var qs = points(1_500, around: c, spread: 0.04, clustered: true, seed: seed)
        qs += points(300, around: c, spread: 0.2, clustered: false, seed: seed + 1)
        let (row, col) = (SegmentGrid.row(c.latitude, grid.cellLat), SegmentGrid.col(c.longitude, grid.cellLon))
        for k in 0..<200 {
            let (r, cc) = (Double(row) + Double(k % 20 - 10), Double(col) + Double(k / 20 * 7 - 35))
            qs.append(Coordinate(unchecked: r * grid.cellLat - 90, cc * grid.cellLon - 180))
        }
        return qs
    }

    @Test(arguments: [Coordinate(unchecked: 43.73, 7.42), Coordinate(unchecked: 60.17, 24.94),
                      Coordinate(unchecked: 78.22, 15.65), Coordinate(unchecked: 0.01, -78.5)])
    func gridAnswersAreTheTreesAnswers(center: Coordinate) {
        let tree = Self.tree(around: center)
        let grid = SegmentGrid(tree)
        #expect(grid.cellCount > 1_000)
        for q in Self.queries(for: grid, around: center, seed: 17) {
            for limit in [1_000.0, 30] {
                #expect(grid.nearest(to: q, within: limit) == tree.nearest(to: q, within: limit), "\(q) within \(limit)")
            }
        }
    }

    @Test func gridMatchesBruteForce() {
        let center = Coordinate(unchecked: 60.17, 24.94)
        let tree = Self.tree(around: center, count: 300, seed: 9)
        let grid = SegmentGrid(tree, cellMetres: 35)
        for q in points(500, around: center, spread: 0.05, clustered: false, seed: 4) {
            let cosφ = cos(q.latitude * .pi / 180)
            let truth = (0..<tree.segmentPoint.count).map { tree.project(q, onSegment: $0, cosφ: cosφ).metres }.min()!
            #expect(grid.nearest(to: q, within: .infinity)?.metres == truth)
        }
    }

    @Test func longListsAndCappedCellsStillAnswerExactly() {
        let center = Coordinate(unchecked: 43.73, 7.42)
        let tree = Self.tree(around: center)
        // Lists of at most two segments: most cells ask the tree. Cells only within 5 m of a
        // segment: most points are in no cell. Big cells: long lists.
        for grid in [SegmentGrid(tree, maxList: 2), SegmentGrid(tree, coverage: 5), SegmentGrid(tree, cellMetres: 300, maxList: 10_000)] {
            for q in Self.queries(for: grid, around: center, seed: 5) {
                #expect(grid.nearest(to: q, within: 1_000) == tree.nearest(to: q, within: 1_000))
            }
        }
        #expect(SegmentGrid(tree, maxList: 2).cellCount < SegmentGrid(tree).cellCount / 2)
    }

    @Test func twoCitiesFarApartHoldCellsNearTheirStreetsOnly() {
        // Monaco and Helsinki in one network, and one straight 2,000 km line between them.
        let (la, oa, sa) = SegmentTreeTests.lines(around: Coordinate(unchecked: 43.73, 7.42), count: 300, seed: 1)
        let (lb, ob, sb) = SegmentTreeTests.lines(around: Coordinate(unchecked: 60.17, 24.94), count: 300, seed: 2)
        let lat = la + lb + [437_300_000, 601_700_000], lon = oa + ob + [74_200_000, 249_400_000]
        let start = sa + sb.dropFirst().map { $0 + UInt32(la.count) } + [UInt32(lat.count)]
        let tree = SegmentTree(latE7: lat, lonE7: lon, lineStart: start)
        let grid = SegmentGrid(tree, cellMetres: 100, coverage: 100)
        // The bounding box holds some 4·10^8 cells of 100 m; the grid, cells near streets only.
        #expect(grid.cellCount < 150_000)
        for c in [Coordinate(unchecked: 43.73, 7.42), Coordinate(unchecked: 60.17, 24.94), Coordinate(unchecked: 52, 16.2)] {
            for q in points(400, around: c, spread: 0.05, clustered: false, seed: 3) {
                #expect(grid.nearest(to: q, within: 1_000) == tree.nearest(to: q, within: 1_000), "\(q)")
            }
        }
    }

    @Test func emptyAndSingleSegmentGrids() {
        #expect(SegmentGrid().nearest(to: Coordinate(unchecked: 0, 0), within: .infinity) == nil)
        let one = SegmentTree(latE7: [437_300_000, 437_310_000], lonE7: [74_200_000, 74_210_000], lineStart: [0, 2])
        let grid = SegmentGrid(one)
        let q = Coordinate(unchecked: 43.7301, 7.4209)
        #expect(grid.nearest(to: q, within: 1_000) == one.nearest(to: q, within: 1_000))
        #expect(grid.nearest(to: q, within: 1_000)!.metres > 0)
    }

    @Test func storedGridReadsBackAndCorruptionIsCaught() throws {
        let center = Coordinate(unchecked: 43.73, 7.42)
        let (lat, lon, start) = SegmentTreeTests.lines(around: center, count: 200, seed: 2)
        let grid = SegmentGrid(SegmentTree(latE7: lat, lonE7: lon, lineStart: start))
        var w = BinaryWriter()
        grid.write(to: &w)
        var r = BinaryReader(bytes: w.bytes)
        let back = try SegmentGrid(reading: &r, pointCount: lat.count, lineCount: start.count - 1)
        #expect(r.isAtEnd)
        for q in Self.queries(for: grid, around: center, seed: 8) {
            #expect(back.nearest(to: q, within: 1_000) == grid.nearest(to: q, within: 1_000))
        }
        // Fewer points than the segments name, and a list entry past the last segment.
        var short = BinaryReader(bytes: w.bytes)
        #expect(throws: BinaryReader.Failure.self) { try SegmentGrid(reading: &short, pointCount: 10, lineCount: start.count - 1) }
        var bytes = w.bytes
        let last = bytes.count - 4  // the last list's last segment id, a UInt32
        bytes.replaceSubrange(last..<(last + 4), with: [0xFE, 0xFF, 0xFF, 0x7F])
        var bad = BinaryReader(bytes: bytes)
        #expect(throws: BinaryReader.Failure.self) { try SegmentGrid(reading: &bad, pointCount: lat.count, lineCount: start.count - 1) }
    }

    @Test func storedPointTreeReadsBackAndCorruptionIsCaught() throws {
        let pts = points(2_000, around: Coordinate(unchecked: 60.17, 24.94), spread: 0.3, clustered: true, seed: 6)
        let tree = PointTree(pts)
        var w = BinaryWriter()
        tree.write(to: &w)
        var r = BinaryReader(bytes: w.bytes)
        let back = try PointTree(reading: &r, count: pts.count)
        for q in points(100, around: Coordinate(unchecked: 60.17, 24.94), spread: 0.4, clustered: false, seed: 7) {
            #expect(back.nearest(to: q)! == tree.nearest(to: q)!)
        }
        var wrongCount = BinaryReader(bytes: w.bytes)
        #expect(throws: BinaryReader.Failure.self) { try PointTree(reading: &wrongCount, count: pts.count + 1) }
        // A duplicated id: the first id overwritten by the second.
        var bytes = w.bytes
        let idsAt = 8 + pts.count * 3 * 8 + 8
        bytes.replaceSubrange(idsAt..<(idsAt + 4), with: bytes[(idsAt + 4)..<(idsAt + 8)])
        var dup = BinaryReader(bytes: bytes)
        #expect(throws: BinaryReader.Failure.self) { try PointTree(reading: &dup, count: pts.count) }
    }
}
