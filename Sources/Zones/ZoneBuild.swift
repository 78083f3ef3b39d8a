import Foundation
import Geodesy
import GeoJSON
import Geometry
import Projection

extension ZoneImporter {
    /// Makes GEOS geometry of every source zone (validating, repairing, merging), checks the
    /// set in an equal-area frame, and builds the `ZoneSet` from the final rings.
    static func build(zones sources: [SourceZone], serviceAreas areaSources: [SourceZone]?, source: String,
                      options: ZoneImportOptions, progress: ((String) -> Void)?) throws(ZoneError) -> (ZoneSet, ZoneReport) {
        let context = GEOSContext()
        var report = ZoneReport()
        report.toleranceSquareMetres = options.toleranceSquareMetres
        let zoneGeometries = try geometries(of: sources, context: context, options: options,
                                            source: source, report: &report)
        progress?("built \(zoneGeometries.count) zones")

        // Final WGS84 rings; they define the ZoneSet.
        var zoneLayer = PolygonLayer()
        var zones: [Zone] = []
        var allZoneRings: [[[[Position]]]] = []
        for (i, g) in zoneGeometries.enumerated() {
            let rings: [[[Position]]]
            do { rings = try g.polygonRings() } catch {
                throw .badInput(place: "\(source): zone \(sources[i].id)", reason: error.description)
            }
            allZoneRings.append(rings)
            zoneLayer.append(polygons: rings)
            zones.append(Zone(index: i, id: sources[i].id, name: sources[i].name, properties: sources[i].properties))
        }

        var areaLayer = PolygonLayer()
        var areas: [Zone] = []
        var areaRings: [[[[Position]]]] = []
        if let areaSources {
            var areaReport = ZoneReport()
            let gs = try geometries(of: areaSources, context: context, options: options, source: "service areas", report: &areaReport)
            report.invalid += areaReport.invalid.map {
                .init(zone: "service area " + $0.zone, feature: $0.feature, reason: $0.reason, repaired: $0.repaired)
            }
            for (i, g) in gs.enumerated() {
                let rings: [[[Position]]]
                do { rings = try g.polygonRings() } catch {
                    throw .badInput(place: "service area \(areaSources[i].id)", reason: error.description)
                }
                areaRings.append(rings)
                areas.append(Zone(index: i, id: areaSources[i].id, name: areaSources[i].name, properties: areaSources[i].properties))
            }
        } else {
            // The union of the zones, holes filled: every hole becomes a reported gap.
            let union: Geometry
            do { union = try Geometry.collection(zoneGeometries, in: context).unaryUnion() } catch {
                throw .badInput(place: source, reason: "cannot union the zones: \(error)")
            }
            let rings = ((try? union.polygonRings()) ?? []).map { [$0[0]] }
            areaRings.append(rings)
            areas.append(Zone(index: 0, id: "1", name: URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent,
                              properties: "{}"))
        }
        for r in areaRings { areaLayer.append(polygons: r) }
        report.zones = zones.count
        report.serviceAreas = areas.count

        progress?("extracted rings")
        let adjacency = try checks(zoneRings: allZoneRings, areaRings: areaRings, zones: zones, options: options,
                                   source: source, report: &report, progress: progress)
        progress?("checked overlaps, gaps and adjacency")
        let set = ZoneSet(zones: zones, zoneLayer: zoneLayer, serviceAreas: areas, areaLayer: areaLayer,
                          adjacency: adjacency)
        progress?("built the cell cover")
        return (set, report)
    }

    /// One GEOS geometry per source zone: each feature validated (and repaired if asked),
    /// features sharing an id merged by union.
    static func geometries(of sources: [SourceZone], context: GEOSContext, options: ZoneImportOptions,
                           source: String, report: inout ZoneReport) throws(ZoneError) -> [Geometry] {
        var out: [Geometry] = []
        out.reserveCapacity(sources.count)
        for s in sources {
            var parts: [Geometry] = []
            for (k, part) in s.parts.enumerated() {
                let place = "\(source): feature \(s.features[k])"
                var g: Geometry
                do { g = try Geometry(part, in: context) } catch {
                    throw .badInput(place: place, reason: error.description)
                }
                if case let .invalid(reason) = g.validity {
                    report.invalid.append(.init(zone: s.id, feature: s.features[k], reason: reason, repaired: options.repair))
                    if options.repair {
                        do { g = try g.makeValid() } catch {
                            throw .badInput(place: place, reason: "cannot repair: \(error)")
                        }
                    }
                }
                parts.append(g)
            }
            if parts.count == 1 {
                out.append(parts[0])
            } else {
                report.merged.append((s.id, parts.count))
                do {
                    let merged = try Geometry.collection(parts, in: context).unaryUnion()
                    out.append(try merged.arealPart())
                } catch {
                    throw .badInput(place: "\(source): zone \(s.id)", reason: "cannot merge its \(parts.count) features: \(error)")
                }
            }
        }
        return out
    }

    /// Overlaps, gaps, outside zones and adjacency, computed in a Lambert equal-area frame
    /// centred on the data, so that areas are m² and distances metres.
    static func checks(zoneRings: [[[[Position]]]], areaRings: [[[[Position]]]], zones: [Zone],
                       options: ZoneImportOptions, source: String,
                       report: inout ZoneReport, progress: ((String) -> Void)?) throws(ZoneError) -> [[Int]] {
        var box: BoundingBox?
        for rings in zoneRings { for poly in rings { for p in poly[0] {
            let c = Coordinate(unchecked: p.y, p.x)
            if box == nil { box = BoundingBox(south: c.latitude, west: c.longitude, north: c.latitude, east: c.longitude) }
            else { box!.formUnion(c) }
        } } }
        guard let box else { return [] }
        let forward: Transformer, inverse: Transformer
        do {
            forward = try Transformer.equalArea(around: box.center)
            inverse = try Transformer(from: forward.target, to: "EPSG:4326")
        } catch {
            throw .badInput(place: source, reason: "cannot build an equal-area frame: \(error)")
        }
        let context = GEOSContext()
        func metric(_ rings: [[[Position]]]) throws(ZoneError) -> Geometry {
            var xs: [Double] = [], ys: [Double] = []
            for poly in rings { for ring in poly { for p in ring { xs.append(p.x); ys.append(p.y) } } }
            do { try forward.transform(x: &xs, y: &ys) } catch {
                throw .badInput(place: source, reason: error.description)
            }
            var k = 0
            let projected: [[[Position]]] = rings.map { poly in poly.map { ring in ring.map { _ in
                defer { k += 1 }
                return Position(x: xs[k], y: ys[k])
            } } }
            do {
                return try Geometry(projected.count == 1 ? .polygon(projected[0]) : .multiPolygon(projected), in: context)
            } catch { throw .badInput(place: source, reason: error.description) }
        }
        var metricZones: [Geometry] = []
        for r in zoneRings { metricZones.append(try metric(r)) }
        var metricAreas: [Geometry] = []
        for r in areaRings { metricAreas.append(try metric(r)) }

        let tolerance = options.toleranceSquareMetres
        var adjacency = [[Int]](repeating: [], count: zones.count)
        let tree = EnvelopeTree(in: context)
        for (i, g) in metricZones.enumerated() { tree.insert(g, item: i) }
        var candidates: [Int] = []
        var overlaps: [ZoneReport.Overlap] = []
        for (i, a) in metricZones.enumerated() {
            let prepared = try? a.prepared()
            tree.query(a, into: &candidates)
            for j in candidates.sorted() where j > i {
                let b = metricZones[j]
                if a.isWithin(distance: options.adjacencyMetres, of: b) {
                    adjacency[i].append(j); adjacency[j].append(i)
                    report.adjacentPairs += 1
                }
                guard prepared?.intersects(b) ?? a.intersects(b) else { continue }
                let area: Double
                do { area = try a.intersection(b).area } catch {
                    throw .badInput(place: source, reason: "cannot intersect zones \(zones[i].id) and \(zones[j].id): \(error)")
                }
                if area > tolerance {
                    overlaps.append(.init(a: zones[i].id, b: zones[j].id, squareMetres: area))
                } else if area > 0 {
                    report.sliverCount += 1
                    report.sliverSquareMetres += area
                }
            }
        }
        progress?("pairs checked")
        report.overlaps = overlaps.sorted { $0.squareMetres > $1.squareMetres }
        for k in adjacency.indices { adjacency[k].sort() }

        // Gaps: parts of a service area that no zone covers.
        do {
            let union = try Geometry.collection(metricZones, in: context).unaryUnion()
            for area in metricAreas {
                let gaps = try area.difference(union)
                for part in gaps.parts where !part.isEmpty {
                    let a = part.area
                    if a > tolerance {
                        var p = part.pointOnSurface
                        let (x, y) = try inverse.transform(x: p.x, y: p.y)
                        p = (x, y)
                        report.gaps.append(.init(squareMetres: a, near: Coordinate(unchecked: p.y, p.x)))
                    } else if a > 0 {
                        report.gapSliverCount += 1
                    }
                }
            }
            report.gaps.sort { $0.squareMetres > $1.squareMetres }
            progress?("gaps checked")
            // Zones outside every service area.
            let served = try Geometry.collection(metricAreas, in: context).unaryUnion()
            for (i, z) in metricZones.enumerated() where try z.difference(served).area > tolerance {
                report.outside.append(zones[i].id)
            }
        } catch {
            throw .badInput(place: source, reason: "the gap check failed: \(error)")
        }
        return adjacency
    }
}
