/// Minimal JSON writing for the `authflow` command and its bench (no Foundation): text in, text
/// out, keys in the order given.
package enum JSON {
    /// `text` as a JSON string, escaped.
    package static func string(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case _ where scalar.value < 0x20: escaped += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// A JSON array of items already written as JSON.
    package static func array(_ items: [String]) -> String { "[" + items.joined(separator: ",") + "]" }

    /// A JSON object of (key, value already written as JSON) pairs, in order.
    package static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}

extension String {
    /// Padded with leading zeros to `width`.
    package func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
    /// Padded with trailing spaces to `width`.
    package func leftAligned(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
