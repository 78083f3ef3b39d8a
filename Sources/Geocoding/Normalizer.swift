import Foundation

/// Turns names and typed queries into comparable tokens: case and diacritics folded,
/// punctuation removed, and the common street-type abbreviations of English, French, German
/// and Finnish mapped to one canonical form, so "Bd des Moulins" and "boulevard des
/// moulins" give the same tokens.
public enum Normalizer {
    /// Canonical forms: every spelling on the left becomes the token on the right. Street
    /// types take their short form; "st" stands for both Street and Saint (the pair is
    /// ambiguous in real addresses, and matching either is what a passenger expects).
    static let canonical: [String: String] = [
        "street": "st", "st": "st", "saint": "st", "sainte": "ste", "ste": "ste",
        "avenue": "av", "ave": "av", "av": "av", "boulevard": "bd", "bd": "bd", "bld": "bd", "blvd": "bd", "boul": "bd",
        "place": "pl", "pl": "pl", "road": "rd", "rd": "rd", "drive": "dr", "dr": "dr", "lane": "ln", "ln": "ln",
        "square": "sq", "sq": "sq", "route": "rte", "rte": "rte", "chemin": "ch", "ch": "ch", "impasse": "imp", "imp": "imp",
        "strasse": "strasse", "str": "strasse", "platz": "platz",
    ]

    /// Folds case and diacritics: "Île-de-France" → "ile-de-france", "Straße" → "strasse".
    public static func fold(_ text: String) -> String {
        var s = text.lowercased()
        for (from, to) in [("ß", "ss"), ("æ", "ae"), ("œ", "oe"), ("ø", "o"), ("đ", "d"), ("ł", "l"), ("ı", "i")] where s.contains(from) {
            s = s.replacingOccurrences(of: from, with: to)
        }
        return s.folding(options: [.diacriticInsensitive], locale: nil)
    }

    /// The tokens of a name or query, canonical.
    public static func tokens(_ text: String) -> [String] {
        var out: [String] = []
        for raw in fold(text).split(whereSeparator: { $0 == " " || $0 == "," || $0 == ";" || $0 == "/" || $0 == "\t" }) {
            var word = String(raw)
            // Abbreviated suffixes, recognised by their dot: "Mannerheimint." is rare, but
            // "Hämeentie"/"Aleksanterink." and "Hauptstr." are common.
            if word.hasSuffix("k."), word.count > 3 { word = String(word.dropLast(2)) + "katu" }
            if word.hasSuffix("str."), word.count > 5 { word = String(word.dropLast(4)) + "strasse" }
            // Punctuation splits and vanishes ("d'Ostende" → "d", "ostende").
            let parts = word.split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            for p in parts {
                var t = String(p)
                if let c = canonical[t] { t = c }
                else if t.count > 4 && t.hasSuffix("str") { t += "asse" }  // "hauptstr" → "hauptstrasse"
                out.append(t)
            }
        }
        return out
    }

    /// A house number token: digits with an optional short suffix ("12", "12a", "12bis"),
    /// but not an ordinal that belongs to a street's name ("Albert 1er", "5th Avenue").
    static func isHouseNumber(_ t: String) -> Bool {
        guard let first = t.first, first.isNumber else { return false }
        let digits = t.prefix(while: \.isNumber)
        let rest = t.dropFirst(digits.count)
        if ["er", "re", "eme", "st", "nd", "rd", "th"].contains(String(rest)) { return false }
        return digits.count <= 5 && rest.count <= 3 && rest.allSatisfy(\.isLetter)
    }

    /// The house number of a query, if it has one, and the other tokens. A suffix typed
    /// apart ("12 bis", "12 A") joins its number; later numbers (the end of a range, as in
    /// "14-20", or a floor) are dropped from `number` but kept in `form`, the number as
    /// typed ("14-20"), so that an address tagged as a range can be told from its first
    /// number.
    /// The number is the first token when that is a number ("12 rue …"), else the last
    /// run of number-like tokens ("rue … 12"), so numbers inside a street's name ("Avenue
    /// du 3 Septembre 126") stay words.
    static func splitHouseNumber(_ tokens: [String]) -> (number: String?, rest: [String], form: String?) {
        var rest: [String] = [], number: String?, form: String?
        // Number last: the start of the final run of numbers ("… 30-34" is 30).
        var at = tokens.first.map(isHouseNumber) == true ? 0 : tokens.lastIndex(where: isHouseNumber)
        while let a = at, a > 1, isHouseNumber(tokens[a - 1]) { at = a - 1 }
        var i = 0, runEnd = -1
        while i < tokens.count {
            let t = tokens[i]
            if number == nil, i == at {
                var n = t
                if i + 1 < tokens.count, ["bis", "ter", "quater"].contains(tokens[i + 1]) || (tokens[i + 1].count == 1 && tokens[i + 1].first!.isLetter && t.allSatisfy(\.isNumber)) {
                    n += tokens[i + 1]; i += 1
                }
                number = n; form = n; runEnd = i
            } else if number == nil || i < at! || !isHouseNumber(t) {
                rest.append(t)
            } else if i == runEnd + 1 {
                // The next number of the run: the end of a range ("14-20").
                form! += "-" + t; runEnd = i
            }
            i += 1
        }
        return (number, rest, form)
    }

    /// The numeric part of a house number ("12bis" → 12).
    static func numericPart(_ number: String) -> Int? { Int(number.prefix(while: \.isNumber)) }

    /// Whether two words are at most one edit apart: an insertion, a deletion, a
    /// substitution, or two neighbouring letters swapped (the commonest typing slip).
    static func withinOneEdit(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        if a == b { return true }
        if a.count == b.count, let i = a.indices.first(where: { a[$0] != b[$0] }), i + 1 < a.count,
           a[i] == b[i + 1], a[i + 1] == b[i], a[(i + 2)...] == b[(i + 2)...] { return true }
        let (s, l) = a.count <= b.count ? (a, b) : (b, a)
        guard l.count - s.count <= 1 else { return false }
        var i = 0, j = 0, edits = 0
        while i < s.count && j < l.count {
            if s[i] == l[j] { i += 1; j += 1; continue }
            edits += 1
            if edits > 1 { return false }
            if s.count == l.count { i += 1 }
            j += 1
        }
        return edits + (l.count - j) + (s.count - i) <= 1
    }
}
