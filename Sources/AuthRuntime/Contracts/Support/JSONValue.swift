import Foundation

/// A JSON value, read from untrusted bytes without ever trapping and written with its object keys
/// in the order they were given (so request bodies read like the seeds' examples).
///
/// Numbers are `Double`s: every number the seeds show (ids, `ExpiresIn`, `exp`) fits exactly.
public enum JSONValue: Hashable, Sendable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object(JSONObject)

    /// The deepest nesting ``parse(_:)`` accepts; deeper input is refused rather than risk the stack.
    public static let maximumDepth = 64

    /// The value in `data`, or `nil` when `data` is not one complete JSON text (RFC 8259), is not
    /// UTF-8, or nests deeper than ``maximumDepth``. A leading byte-order mark is skipped.
    public static func parse(_ data: Data) -> JSONValue? {
        var parser = Parser(bytes: [UInt8](data))
        return parser.document()
    }

    /// The value in `text`, or `nil` (see ``parse(_:)``).
    public static func parse(_ text: String) -> JSONValue? { parse(Data(text.utf8)) }

    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The Boolean, if this is one.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The object, if this is one.
    public var object: JSONObject? { if case .object(let value) = self { value } else { nil } }
    /// The array, if this is one.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSONValue? { object?[key] }

    /// Compact JSON text, object keys in their order.
    public var encoded: Data { Data(text.utf8) }

    /// Compact JSON text, object keys in their order.
    public var text: String {
        var output = ""
        write(into: &output)
        return output
    }

    /// The shape only (`object(3 members)`, `string`): bodies carry passwords and tokens, so the
    /// text itself takes an explicit ``text``.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array(let values): "array(\(values.count) elements)"
        case .object(let object): "object(\(object.count) members: \(object.keys.joined(separator: ", ")))"
        }
    }

    private func write(into output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += JSONValue.format(value)
        case .string(let value): JSONValue.writeString(value, into: &output)
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(into: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (index, key) in object.keys.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(key, into: &output)
                output += ":"
                (object[key] ?? .null).write(into: &output)
            }
            output += "}"
        }
    }

    /// Integral values without a fraction (`1800`, not `1800.0`); non-finite values as `null`.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    private static func writeString(_ value: String, into output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

/// A JSON object: members by key, remembering the order keys were first given. Two objects are
/// equal when they have the same members, whatever their order (RFC 8259 §4).
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The keys, in order.
    public private(set) var keys: [String] = []
    private var members: [String: JSONValue] = [:]

    /// An empty object.
    public init() {}

    /// An object with `pairs` in order; a repeated key keeps its first place and its last value.
    public init(_ pairs: [(String, JSONValue)]) {
        for (key, value) in pairs { self[key] = value }
    }

    /// An object from a literal, in order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    /// The member `key`; setting `nil` removes it.
    public subscript(key: String) -> JSONValue? {
        get { members[key] }
        set {
            if let newValue {
                if members.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if members.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// The number of members.
    public var count: Int { keys.count }

    /// Equal when the members are equal, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool { lhs.members == rhs.members }

    /// Hashes the members, not their order.
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}

/// A recursive-descent JSON parser over bytes, with a depth bound; every failure is `nil`.
private struct Parser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func document() -> JSONValue? {
        guard let value = value(depth: 0) else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
        let expected = Array(word.utf8)
        guard index + expected.count <= bytes.count, Array(bytes[index..<index + expected.count]) == expected else { return nil }
        index += expected.count
        return value
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        skipWhitespace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value(depth: depth + 1) else { return nil }
            object[key] = member
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(object)
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            guard let element = value(depth: depth + 1) else { return nil }
            values.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(values)
            default: return nil
            }
        }
    }

    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return nil }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, isDigit(byte) else { return nil }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { return nil }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return .number(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A string starting at the opening quote; escapes decoded, UTF-8 checked.
    private mutating func string() -> String? {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) -> Bool {
            guard end > runStart else { return true }
            guard let run = String(bytes: bytes[runStart..<end], encoding: .utf8) else { return false }
            scalars.append(contentsOf: run.unicodeScalars)
            return true
        }
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                guard flush(index) else { return nil }
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard flush(index) else { return nil }
                index += 1
                guard let escaped = escape() else { return nil }
                scalars.append(escaped)
                runStart = index
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func escape() -> Unicode.Scalar? {
        guard let byte = current else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let high = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        default: return nil
        }
    }

    private mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}
