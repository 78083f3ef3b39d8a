import Foundation
import Geodesy
import RoadGraph

/// `POST /v1/match`: a GPS trace to match to the roads.
public struct MatchRequest: Codable, Sendable, Equatable {
    /// The reports, in the order they were made.
    public var points: [Report]
    /// The GPS error's standard deviation, in metres (default 10).
    public var sigmaM: Double?

    /// The most reports in one trace: a day of one report a minute, or two hours of one every five seconds.
    public static let maximumPoints = 2000

    /// One report.
    public struct Report: Codable, Sendable, Equatable {
        /// Degrees north.
        public var lat: Double
        /// Degrees east.
        public var lon: Double
        /// When, in seconds on any clock (optional; never earlier than the report before).
        public var time: Double?

        /// A report from its fields.
        public init(lat: Double, lon: Double, time: Double? = nil) { self.lat = lat; self.lon = lon; self.time = time }

        enum CodingKeys: String, WireKey {
            case lat, lon, time
            var rule: FieldRule {
                switch self {
                case .lat: .number(-90...90)
                case .lon: .number(-180...180)
                case .time: .number(0...1e11)
                }
            }
        }
    }

    /// A request from its fields.
    public init(points: [Report], sigmaM: Double? = nil) { self.points = points; self.sigmaM = sigmaM }

    enum CodingKeys: String, WireKey {
        case points, sigmaM = "sigma_m"
        var rule: FieldRule { self == .points ? .list(maximum: MatchRequest.maximumPoints) : .number(1...100) }
    }

    /// The trace as the engine reads it. Throws naming the first report out of time order.
    public var trace: [TracePoint] {
        get throws(WireError) {
            var out: [TracePoint] = []
            out.reserveCapacity(points.count)
            for (i, p) in points.enumerated() {
                let c: Coordinate
                do { c = try Coordinate(latitude: p.lat, longitude: p.lon) } catch { throw WireError("points[\(i)]", error.description) }
                if let t = p.time, let before = out.last?.time, t < before {
                    throw WireError("points[\(i)].time", "is earlier than the report before it")
                }
                out.append(TracePoint(c, time: p.time))
            }
            return out
        }
    }
}

/// The answer to `POST /v1/match` and of `wayfare match`: the track driven, its length and
/// time, each report's place on it, and where it broke.
public struct MatchAnswer: Codable, Sendable, Equatable {
    /// The length of the track, in metres (gaps at breaks not counted).
    public var distanceM: Double
    /// Its driving time on the network's speeds, in seconds.
    public var durationS: Double
    /// The track. At a break the line jumps to the next piece; `pieces` has them apart.
    public var geometry: LineString
    /// The track's pieces, one per stretch between breaks.
    public var pieces: [LineString]
    /// Each report's match in order; null for an outlier.
    public var points: [Point?]
    /// The reports (indexes into `points`) where a new piece starts.
    public var breaks: [Int]

    /// Where one report was matched.
    public struct Point: Codable, Sendable, Equatable {
        /// Degrees north of the point on the road.
        public var lat: Double
        /// Degrees east.
        public var lon: Double
        /// Metres from the report.
        public var distanceM: Double
        /// The edge of the road graph, in the direction driven.
        public var edge: Int
        /// How sure the match is of this road, 0 to 1.
        public var confidence: Double

        /// A point from its fields.
        public init(lat: Double, lon: Double, distanceM: Double, edge: Int, confidence: Double) {
            self.lat = lat; self.lon = lon; self.distanceM = distanceM; self.edge = edge; self.confidence = confidence
        }

        enum CodingKeys: String, CodingKey { case lat, lon, distanceM = "distance_m", edge, confidence }
    }

    /// The answer from its fields.
    public init(distanceM: Double, durationS: Double, geometry: LineString, pieces: [LineString], points: [Point?], breaks: [Int]) {
        self.distanceM = distanceM; self.durationS = durationS; self.geometry = geometry; self.pieces = pieces
        self.points = points; self.breaks = breaks
    }

    /// The wire form of a match: metres and seconds to the decimetre and tenth, degrees to
    /// 1e-7 (a centimetre), confidences to three places.
    public init(_ match: MapMatch) {
        func tenth(_ x: Double) -> Double { (x * 10).rounded() / 10 }
        let e7 = degreesE7  // lines round their own coordinates
        self.init(distanceM: tenth(match.distanceMetres), durationS: tenth(match.durationSeconds),
                  geometry: LineString(match.pieces.flatMap { $0 }), pieces: match.pieces.map(LineString.init),
                  points: match.points.map { p in
                      p.map { Point(lat: e7($0.coordinate.latitude), lon: e7($0.coordinate.longitude), distanceM: tenth($0.metresFromReport),
                                    edge: $0.edge, confidence: ($0.confidence * 1000).rounded() / 1000) }
                  },
                  breaks: match.breaks)
    }

    enum CodingKeys: String, CodingKey { case distanceM = "distance_m", durationS = "duration_s", geometry, pieces, points, breaks }
}
