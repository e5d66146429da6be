import Foundation

/// A JSON value: the one way the client modules read JSON (server bodies, JWT payloads, the
/// stored credentials record, log bodies) and write it (request bodies, the record).
///
/// Reading goes through Foundation's `JSONSerialization`, behind a quick pass over the bytes that
/// bounds the nesting first (``maximumDepth``) and notes each object's keys in the order written,
/// so untrusted bytes never trap and never reach the parser deeper than the bound. Objects keep
/// their keys in the order they were read or given, so request bodies read like the API documents'
/// examples.
///
/// Numbers are `Double`s: every number the API documents show (ids, `ExpiresIn`, `exp`) fits exactly;
/// a larger integer reads as the nearest `Double`.
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

    /// The most arrays and objects `parse(_:)` accepts one inside another; deeper input is
    /// refused before it reaches the parser rather than risk the stack.
    public static let maximumDepth = 64

    /// The value in `data`, or `nil` when `data` is not one complete JSON text (RFC 8259: no
    /// trailing comma, no comment), is not UTF-8, repeats a key in one object, holds a number no
    /// `Double` can hold, or nests arrays and objects deeper than ``maximumDepth``. A leading
    /// byte-order mark is skipped; a lone scalar (`"text"`, `3`, `null`) is a value too.
    public static func parse(_ data: Data) -> JSONValue? {
        let bytes = [UInt8](data)
        guard let layout = JSONLayout(bytes), let keys = layout.decodedKeys(in: bytes),
            let parsed = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        var reading = FoundationReading(keys: keys)
        return reading.value(parsed)
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

/// What a quick pass over the bytes finds before Foundation parses them: that arrays and objects
/// nest no deeper than ``JSONValue/maximumDepth`` (so the parser never recurses further), that no
/// comma trails and no NUL byte appears (Foundation would accept the first, and the second only
/// in UTF-16 or UTF-32 text), and where each object's keys are, in the order written, objects
/// numbered in the order they open.
private struct JSONLayout {
    /// Each object's keys as byte ranges between their quotes, by the order the objects open.
    var keys: [[Range<Int>]] = []

    /// The layout of `bytes`, or `nil` when the pass already sees they are not acceptable JSON.
    init?(_ bytes: [UInt8]) {
        // The open arrays and objects, innermost last: for an object, its number in `keys`.
        var open: [Int?] = []
        var expectingKey = false
        var previous: UInt8 = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                if expectingKey, let object = open.last ?? nil { keys[object].append(start..<index) }
                expectingKey = false
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < JSONValue.maximumDepth else { return nil }
                if byte == UInt8(ascii: "{") {
                    open.append(keys.count)
                    keys.append([])
                } else {
                    open.append(nil)
                }
                expectingKey = byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard previous != UInt8(ascii: ","), let innermost = open.popLast(), (innermost != nil) == (byte == UInt8(ascii: "}"))
                else { return nil }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = (open.last ?? nil) != nil
            case UInt8(ascii: ":"):
                expectingKey = false
            case 0x00:
                return nil
            default:
                break
            }
            if byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 { previous = byte }
            index += 1
        }
    }

    /// Each object's keys as text, or `nil` when a key is not a valid JSON string or an object
    /// repeats one (RFC 8259 leaves the meaning of a repeated key open; I-JSON, RFC 7493, forbids
    /// it, and two readers that each pick another value is how a parser difference turns into a
    /// hole). Checked before Foundation parses, whose dictionaries would keep one value silently.
    func decodedKeys(in bytes: [UInt8]) -> [[String]]? {
        var decoded: [[String]] = []
        decoded.reserveCapacity(keys.count)
        for ranges in keys {
            var names: [String] = []
            var seen: Set<String> = []
            for range in ranges {
                let raw = bytes[range]
                let name: String?
                if raw.contains(UInt8(ascii: "\\")) {
                    // An escape: Foundation decodes the key alone, as a one-string document.
                    let quoted = Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")])
                    name = (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String
                } else {
                    name = String(bytes: raw, encoding: .utf8)
                }
                guard let name, seen.insert(name).inserted else { return nil }
                names.append(name)
            }
            decoded.append(names)
        }
        return decoded
    }
}

/// Foundation's parsed objects as ``JSONValue``s, each object's keys in the order ``JSONLayout``
/// found them: objects are met in the order they open, as the layout numbered them.
private struct FoundationReading {
    let keys: [[String]]
    var nextObject = 0

    init(keys: [[String]]) { self.keys = keys }

    /// The class Foundation gives `true` and `false`, and never a number: both read as an
    /// `NSNumber` that bridges to `Bool` and to `Int` alike, so only the class tells `true` from `1`
    /// (`CFGetTypeID` is not there on Linux).
    static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// The value of `parsed` (its depth bounded by the layout), or `nil` for anything the layout
    /// and Foundation disagree on.
    mutating func value(_ parsed: Any) -> JSONValue? {
        switch parsed {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            if ObjectIdentifier(type(of: number)) == Self.booleanClass { return .bool(number.boolValue) }
            let double = number.doubleValue
            return double.isFinite ? .number(double) : nil
        case let elements as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = value(element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let members as [String: Any]:
            guard nextObject < keys.count else { return nil }
            let names = keys[nextObject]
            nextObject += 1
            guard names.count == members.count else { return nil }
            var object = JSONObject()
            for name in names {
                guard let member = members[name], let value = value(member) else { return nil }
                object[name] = value
            }
            return .object(object)
        default:
            return nil
        }
    }
}
