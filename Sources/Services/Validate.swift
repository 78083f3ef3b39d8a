/// Checks of what callers send, each naming the field it refuses.
///
/// Why by hand and strict: every value here ends up in the store and in messages, so only
/// the characters a field needs get through (no control characters anywhere, no SQL
/// meta-characters where an identifier is expected), and lengths are bounded before any
/// work is done.
enum Validate {
    /// Free text: at most `maximum` characters, no control characters; trimmed.
    static func text(_ value: String, field: String, maximum: Int, required: Bool = true) throws(ServiceError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if required && trimmed.isEmpty { throw .invalid(field: field, reason: "is required") }
        guard trimmed.count <= maximum else {
            throw .invalid(field: field, reason: "must be at most \(maximum) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control
            || $0.properties.generalCategory == .format || $0 == "\u{2028}" || $0 == "\u{2029}" }) else {
            throw .invalid(field: field, reason: "must not contain control characters")
        }
        return trimmed
    }

    /// An opaque token from a client or a gateway: 1 to 256 visible ASCII characters.
    static func token(_ value: String, field: String) throws(ServiceError) {
        guard (1...256).contains(value.utf8.count),
              value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalid(field: field, reason: "must be 1 to 256 visible ASCII characters")
        }
    }

    /// A trip or booking reference: 1 to 64 letters, digits, `-`, `_` or `:`.
    static func reference(_ value: String, field: String = "reference") throws(ServiceError) {
        guard (1...64).contains(value.utf8.count), value.utf8.allSatisfy({ c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ":")
        }) else {
            throw .invalid(field: field, reason: "must be 1 to 64 letters, digits, '-', '_' or ':'")
        }
    }

    /// A mobile number: exactly 10 ASCII digits (000 UC01), spaces and dashes ignored.
    static func mobile(_ value: String) throws(ServiceError) -> String {
        let digits = value.filter { $0 != " " && $0 != "-" }
        guard digits.count == 10, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalid(field: "mobile", reason: "must be a 10-digit mobile number")
        }
        return digits
    }

    /// An e-mail address, lower-cased: one `@`, a local part of 1 to 64 visible ASCII
    /// characters without quotes, and a domain of dot-separated labels of letters, digits
    /// and inner hyphens with at least two labels; at most 254 characters in all.
    ///
    /// Why this and not RFC 5322's whole grammar: quoted local parts, comments and IP
    /// literals are valid but no mail provider a taxi passenger uses hands them out, and
    /// each is a way to smuggle odd characters into messages.
    static func email(_ value: String) throws(ServiceError) -> String {
        let email = value.trimmingCharacters(in: .whitespaces).lowercased()
        let bad = ServiceError.invalid(field: "email", reason: "must be a valid e-mail address")
        guard !email.isEmpty, email.utf8.count <= 254 else { throw bad }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw bad }
        let local = parts[0], domain = parts[1]
        guard (1...64).contains(local.utf8.count),
              local.utf8.allSatisfy({ c in c > 0x20 && c < 0x7F && !"\"(),:;<>[\\]`'".utf8.contains(c) }),
              !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { throw bad }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { throw bad }
        for label in labels {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-"),
                  label.utf8.allSatisfy({ c in (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-") })
            else { throw bad }
        }
        return email
    }
}
