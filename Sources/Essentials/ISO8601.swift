import Foundation

/// Times as text, the one way: ISO 8601 in UTC, to the millisecond.
public enum ISO8601 {
    /// `2026-11-25T18:30:00.250Z`, to the nearest millisecond (the format style truncates,
    /// so 0.123 stored as 0.12299… would be written .122).
    public static func string(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        let fraction = Int(milliseconds - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
        return whole.dropLast() + "." + String(repeating: "0", count: fraction < 10 ? 2 : fraction < 100 ? 1 : 0) + String(fraction) + "Z"
    }

    /// `2026-11-25T18:30:00Z` (whole seconds).
    public static func seconds(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

    /// The time in `text`, with or without fractional seconds and with any offset; nil for
    /// anything else (or more than 40 characters).
    public static func date(_ text: String) -> Date? {
        guard text.utf8.count <= 40 else { return nil }
        if let d = try? Date(text, strategy: .iso8601) { return d }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
