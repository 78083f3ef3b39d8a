import CGEOS

/// Why GEOS refused an input or an operation; the text is GEOS's own reason.
public enum GeometryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// WKT, WKB or GeoJSON that GEOS could not read.
    case parse(format: String, reason: String)
    /// A GEOS operation failed; the first value names it.
    case operation(String, reason: String)
    /// A polygon was needed and the geometry is of another kind.
    case notAreal(String)

    /// The GEOS message, in one line.
    public var description: String {
        switch self {
        case let .parse(format, reason): "cannot read \(format): \(reason)"
        case let .operation(op, reason): "GEOS \(op) failed: \(reason)"
        case let .notAreal(type): "expected a polygon or multipolygon, found \(type)"
        }
    }
}

/// One GEOS context: the owner of every geometry made in it.
///
/// Thread rule: a `GEOSContext` and every `Geometry`, `PreparedGeometry` and `EnvelopeTree`
/// made in it belong to one thread (one isolation domain) at a time. None of them is
/// `Sendable`, so Swift 6 refuses to share them across threads. Work that runs on many
/// threads gives each its own context (one per thread, or one per owning object), or keeps
/// plain Swift values (`GeoJSONGeometry`, Wayfare's flat rings), which are `Sendable`.
/// There is no global handle.
///
/// The context is freed once, in `deinit`, after every geometry made in it, because each
/// geometry holds a strong reference to its context.
public final class GEOSContext {
    let handle: GEOSContextHandle_t
    /// GEOS reports errors through a callback; the last message is kept for error text.
    fileprivate(set) var lastError = ""

    /// A new GEOS context; use it from one thread at a time.
    public init() {
        guard let h = GEOS_init_r() else { fatalError("GEOS_init_r returned NULL: out of memory") }
        handle = h
        let me = Unmanaged.passUnretained(self).toOpaque()
        GEOSContext_setErrorMessageHandler_r(h, { message, userdata in
            guard let message, let userdata else { return }
            Unmanaged<GEOSContext>.fromOpaque(userdata).takeUnretainedValue().lastError = String(cString: message)
        }, me)
        // Notices (such as "Self-intersection at ...") arrive through isValidReason instead.
        GEOSContext_setNoticeMessageHandler_r(h, { _, _ in }, nil)
    }

    deinit { GEOS_finish_r(handle) }

    /// The last error GEOS reported, cleared for the next call.
    func takeError() -> String {
        defer { lastError = "" }
        return lastError.isEmpty ? "GEOS gave no reason" : lastError
    }

    /// GEOS's version, for reports.
    public static var version: String { String(cString: GEOSversion()) }
}
