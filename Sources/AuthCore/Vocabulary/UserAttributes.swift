/// A user's role as the server spells it: Everday's `Role` (`Parent`, `Kid`), VynqTalk's `role`
/// (the deployed server's `userRole`, e.g. `USER`). Compared by its exact spelling, so an app
/// routes on `user.role == .parent` or `user.role == "ADMIN"`; ``rawValue`` is the server's text.
public struct UserRole: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The role as the server wrote it.
    public var rawValue: String

    /// A role spelled `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A role spelled `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// A role written as a literal: `"Parent"`.
    public init(stringLiteral value: String) { rawValue = value }

    /// Everday's parent account: approves kids, sees the users list.
    public static let parent = UserRole("Parent")
    /// Everday's kid account: a parent approved it; the users list answers it 403.
    public static let kid = UserRole("Kid")

    /// The server's spelling.
    public var description: String { rawValue }
}

/// One of the server's other user fields, kept as the JSON it was (AuthCore imports nothing, so
/// not Foundation's `JSONSerialization` types): Hero365's `onboarding_completed`,
/// `completed_steps`, VynqTalk's `status`, Everday's `DiscordHandle`… Read-only data for the app;
/// AuthCore decides nothing on it.
///
/// A value may be personal data: ``description`` names only its kind, never its content.
public enum UserAttribute: Hashable, Sendable, CustomStringConvertible {
    /// `null`: the server sent the key with no value.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([UserAttribute])
    /// An object.
    case object([String: UserAttribute])

    /// The string, when this is one.
    public var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, when this is one.
    public var number: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The Boolean, when this is one.
    public var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The elements, when this is an array.
    public var array: [UserAttribute]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The members, when this is an object.
    public var object: [String: UserAttribute]? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The kind only (`string`, `number`, `array(2)`, `object(1)`): the value may be personal data.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array(let elements): "array(\(elements.count))"
        case .object(let members): "object(\(members.count))"
        }
    }
}
