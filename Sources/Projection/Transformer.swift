import CPROJ
import Geodesy

/// Why PROJ refused a CRS or a transform.
public enum ProjectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// PROJ could not create a context.
    case noContext
    /// PROJ does not know the CRS.
    case unknownCRS(String, reason: String)
    /// A point could not be transformed; `index` is its place in the batch.
    case transformFailed(index: Int, x: Double, y: Double, reason: String)
    /// The x and y arrays differ in length.
    case mismatchedArrays(Int, Int)

    /// The PROJ message, in one line.
    public var description: String {
        switch self {
        case .noContext: "PROJ could not create a context"
        case let .unknownCRS(crs, reason): "unknown or unusable CRS \"\(crs)\": \(reason)"
        case let .transformFailed(i, x, y, reason): "transform of point \(i) (\(x), \(y)) failed: \(reason)"
        case let .mismatchedArrays(a, b): "x and y arrays differ in length (\(a) and \(b))"
        }
    }
}

/// Owns one PROJ context and the last message PROJ logged on it.
///
/// The single owner of a `PJ_CONTEXT*`; it is destroyed exactly once, in `deinit`, after
/// every `PJ*` made on it (those hold a strong reference to this object).
final class ProjContext {
    let raw: OpaquePointer
    /// PROJ reports its reasons through the log hook; we keep the last one for error text
    /// instead of letting PROJ print to stderr.
    var lastMessage = ""

    init() throws(ProjectionError) {
        guard let ctx = proj_context_create() else { throw .noContext }
        raw = ctx
        let me = Unmanaged.passUnretained(self).toOpaque()
        proj_log_func(ctx, me) { data, _, message in
            guard let data, let message else { return }
            Unmanaged<ProjContext>.fromOpaque(data).takeUnretainedValue().lastMessage = String(cString: message)
        }
        proj_log_level(ctx, PJ_LOG_ERROR)
    }

    /// The reason for the context's current error, as text.
    func reason() -> String {
        let code = proj_context_errno(raw)
        var text = code != 0 ? String(cString: proj_context_errno_string(raw, code)) : ""
        if !lastMessage.isEmpty { text += text.isEmpty ? lastMessage : " (\(lastMessage))" }
        return text.isEmpty ? "PROJ gave no reason" : text
    }

    deinit { proj_context_destroy(raw) }
}

/// Owns one `PJ*`; freed exactly once, before the context it was made on.
final class ProjObject {
    let context: ProjContext
    let raw: OpaquePointer
    init(context: ProjContext, raw: OpaquePointer) { self.context = context; self.raw = raw }
    deinit { proj_destroy(raw) }
}

/// A coordinate transformation between two CRSs, built by PROJ.
///
/// A CRS is named by anything PROJ understands: `EPSG:2263`, `urn:ogc:def:crs:EPSG::2263`,
/// WKT, or a PROJ string (`+proj=laea +lat_0=40.7 +lon_0=-74`). Axis order is always
/// x = easting/longitude, y = northing/latitude (`proj_normalize_for_visualization`),
/// whatever the CRS's official order.
///
/// Threads: a `Transformer` owns its own PROJ context and is deliberately not `Sendable`.
/// PROJ contexts must never be used by two threads at once; the compiler keeps each
/// transformer inside one isolation domain. A thread that needs transforms makes its own
/// (creation costs about a millisecond; build once per worker, not per call).
public struct Transformer {
    private let object: ProjObject
    /// The source and target CRS as given.
    public let source: String
    /// The CRS the transformer converts to, as given.
    public let target: String

    /// Builds the transformation `source` → `target` (WGS84 longitude/latitude by default).
    public init(from source: String, to target: String = "EPSG:4326") throws(ProjectionError) {
        let context = try ProjContext()
        let ctx = context.raw
        // Check each CRS alone first, so the error names the one that is wrong.
        for crs in [source, target] {
            guard let pj = proj_create(ctx, crs) else { throw .unknownCRS(crs, reason: context.reason()) }
            let type = proj_get_type(pj)
            proj_destroy(pj)
            let isCRS = [PJ_TYPE_GEOGRAPHIC_2D_CRS, PJ_TYPE_GEOGRAPHIC_3D_CRS, PJ_TYPE_PROJECTED_CRS,
                         PJ_TYPE_COMPOUND_CRS, PJ_TYPE_GEOCENTRIC_CRS, PJ_TYPE_BOUND_CRS,
                         PJ_TYPE_ENGINEERING_CRS, PJ_TYPE_GEODETIC_CRS,
                         PJ_TYPE_OTHER_CRS].contains(type)
            // A bare "+proj=..." string without +type=crs is an operation, not a CRS; accept it
            // only as such (PROJ treats it as a CRS when used in crs_to_crs).
            if !isCRS && !crs.contains("+proj=") {
                throw .unknownCRS(crs, reason: "it names a \(type) object, not a coordinate reference system")
            }
        }
        guard let op = proj_create_crs_to_crs(ctx, source, target, nil) else {
            throw .unknownCRS("\(source) → \(target)", reason: context.reason())
        }
        guard let normalized = proj_normalize_for_visualization(ctx, op) else {
            proj_destroy(op)
            throw .unknownCRS("\(source) → \(target)", reason: context.reason())
        }
        proj_destroy(op)
        object = ProjObject(context: context, raw: normalized)
        self.source = source
        self.target = target
    }

    /// Transforms arrays of x and y in place in one PROJ call (`proj_trans_generic`).
    /// A point PROJ cannot transform is an error naming its index; nothing is NaN silently.
    public func transform(x: inout [Double], y: inout [Double]) throws(ProjectionError) {
        guard x.count == y.count else { throw .mismatchedArrays(x.count, y.count) }
        let n = x.count
        guard n > 0 else { return }
        let stride = MemoryLayout<Double>.stride
        proj_errno_reset(object.raw)
        object.context.lastMessage = ""
        x.withUnsafeMutableBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                _ = proj_trans_generic(object.raw, PJ_FWD,
                                       xs.baseAddress, stride, n,
                                       ys.baseAddress, stride, n,
                                       nil, 0, 0, nil, 0, 0)
            }
        }
        for i in 0..<n where !(x[i].isFinite && y[i].isFinite) {
            throw .transformFailed(index: i, x: x[i], y: y[i], reason: proj_errno(object.raw) != 0
                ? String(cString: proj_context_errno_string(object.context.raw, proj_errno(object.raw)))
                : "the point is outside the area where the transformation is defined")
        }
    }

    /// Transforms one point (x, y); for many points use the array form.
    public func transform(x: Double, y: Double) throws(ProjectionError) -> (x: Double, y: Double) {
        var xs = [x], ys = [y]
        try transform(x: &xs, y: &ys)
        return (xs[0], ys[0])
    }

    /// True when source and target name the same CRS, so the transform can be skipped.
    public static func isWGS84(_ crs: String) -> Bool {
        let c = String(crs.uppercased().filter { $0 != " " })
        return ["EPSG:4326", "URN:OGC:DEF:CRS:EPSG::4326", "URN:OGC:DEF:CRS:OGC:1.3:CRS84",
                "OGC:CRS84", "CRS84", "WGS84"].contains(c)
    }
}

extension Transformer {
    /// A Lambert azimuthal equal-area projection centred on `center`, in metres: areas in it
    /// are true areas, and distances near the centre are true distances. Used for the zone
    /// checks (overlaps and gaps in m², adjacency within 1 m).
    public static func equalArea(around center: Coordinate) throws(ProjectionError) -> Transformer {
        try Transformer(from: "EPSG:4326",
                        to: "+proj=laea +lat_0=\(center.latitude) +lon_0=\(center.longitude) +ellps=WGS84 +units=m +type=crs")
    }
}
