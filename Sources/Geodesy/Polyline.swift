/// Google's encoded polyline format (precision 5 by default, 6 for OSRM-style polyline6).
public enum Polyline {
    /// Encodes a path as an ASCII string.
    public static func encode(_ path: [Coordinate], precision: Int = 5) -> String {
        let factor = pow10(precision)
        var out: [UInt8] = []
        out.reserveCapacity(path.count * 8)
        var lastLat = 0, lastLon = 0
        for c in path {
            let lat = nearest(c.latitude * factor), lon = nearest(c.longitude * factor)
            append(lat - lastLat, to: &out)
            append(lon - lastLon, to: &out)
            lastLat = lat; lastLon = lon
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a string made by `encode`; nil when the text is not a valid polyline.
    public static func decode(_ text: String, precision: Int = 5) -> [Coordinate]? {
        let factor = pow10(precision)
        var bytes = Array(text.utf8)[...]
        var lat = 0, lon = 0
        var path: [Coordinate] = []
        while !bytes.isEmpty {
            guard let dLat = next(&bytes), let dLon = next(&bytes) else { return nil }
            lat += dLat; lon += dLon
            guard let c = try? Coordinate(latitude: Double(lat) / factor, longitude: Double(lon) / factor)
            else { return nil }
            path.append(c)
        }
        return path
    }

    /// `v` to the nearest whole number, halves away from zero, as `rounded()` does, without
    /// libm's `round` call (a route's polyline makes two a point). `v` is degrees times at most
    /// 10^7, far inside `Int`'s range.
    @inline(__always) private static func nearest(_ v: Double) -> Int { Int(v < 0 ? v - 0.5 : v + 0.5) }

    private static func pow10(_ n: Int) -> Double {
        var f = 1.0
        for _ in 0..<n { f *= 10 }
        return f
    }

    private static func append(_ value: Int, to out: inout [UInt8]) {
        var v = value < 0 ? ~(value << 1) : value << 1
        while v >= 0x20 {
            out.append(UInt8((0x20 | (v & 0x1f)) + 63))
            v >>= 5
        }
        out.append(UInt8(v + 63))
    }

    private static func next(_ bytes: inout ArraySlice<UInt8>) -> Int? {
        var result = 0, shift = 0
        while let b = bytes.popFirst() {
            guard b >= 63, b < 127, shift < 60 else { return nil }
            let chunk = Int(b) - 63
            result |= (chunk & 0x1f) << shift
            shift += 5
            if chunk < 0x20 { return (result & 1) != 0 ? ~(result >> 1) : result >> 1 }
        }
        return nil
    }
}
