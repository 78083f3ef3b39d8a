import Foundation

/// What a field of a request may hold, stated once: the strict decoder enforces it and the
/// OpenAPI document publishes it.
///
/// Every text, whole number, number and list in a request body states its rule; a field
/// without one is refused by the decoder and makes the document's builder fail, so a new
/// field cannot slip in unbounded.
public enum FieldRule: Sendable, Equatable {
    /// Text of `minimum` to `maximum` Unicode scalars.
    case text(maximum: Int, minimum: Int = 0)
    /// A whole number in `range` (JSON numbers with no fraction; converted exactly, never
    /// rounded, so no value can trap).
    case integer(ClosedRange<Int64>)
    /// A finite number in `range`.
    case number(ClosedRange<Double>)
    /// A list of at most `maximum` items.
    case list(maximum: Int)
    /// No bound of its own: true or false, a time, a choice among named values, an object
    /// whose fields state their own rules.
    case structured
}

/// The coding keys of a request body: each key says its rule.
///
/// ```swift
/// enum CodingKeys: String, WireKey {
///     case name, mobile
///     var rule: FieldRule {
///         switch self {
///         case .name: .text(maximum: Registration.maximumNameLength)
///         case .mobile: .text(maximum: 32)
///         }
///     }
/// }
/// ```
public protocol WireKey: CodingKey {
    /// The rule of the field this key names.
    var rule: FieldRule { get }
}

/// A choice among named values, sent as its raw string (`"wallet"`, `"cash"`); the
/// document lists the values.
public protocol WireChoice: Codable, CaseIterable, RawRepresentable, Sendable where RawValue == String {}

/// A request the decoder refused: the field (a path such as `cabs[3].id`) and why, in
/// words a client's developer can act on.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field refused (`body` for the body as a whole).
    public let field: String
    /// Why, as a phrase after the field's name (`must be at most 32 characters`).
    public let reason: String

    /// A refusal of `field` because of `reason`.
    public init(_ field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field reason`.
    public var description: String { "\(field) \(reason)" }
}

/// A coding path as a field name: `cabs[3].id`.
func fieldName(_ path: [any CodingKey]) -> String {
    var out = ""
    for key in path {
        if let i = key.intValue { out += "[\(i)]" } else {
            if !out.isEmpty { out += "." }
            out += String(key.stringValue.prefix(64))
        }
    }
    return out.isEmpty ? "body" : out
}

/// A key of a position in a list.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}

/// A key by name.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
