import AuthCore
import Foundation

/// Header fields in the order they were added, looked up without regard to case (RFC 9110 §5.1).
public struct HTTPHeaders: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields, in order.
    public private(set) var fields: [(name: String, value: String)]

    /// Headers from `(name, value)` pairs, in order.
    public init(_ fields: [(String, String)] = []) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// Headers from labelled fields, in order, as they are kept.
    init(fields: [(name: String, value: String)]) { self.fields = fields }

    /// Headers from a literal, in order.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value for `name`, case-insensitively; setting replaces every field of that name.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Equal when the same fields appear in the same order (names compared case-insensitively).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }

    /// Hashes lower-cased names and values in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

/// An HTTP request as a ``BackendContract`` builds it and an ``HTTPTransport`` sends it.
///
/// Its `description` names the method and path only: headers and body may carry secrets.
public struct HTTPRequest: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// `GET`, `POST`, `PUT`, …
    public var method: String
    /// The absolute URL, query included.
    public var url: URL
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: HTTPHeaders = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// `POST /api/auth/login` (no query, headers or body: they may carry secrets).
    public var description: String { "\(method) \(url.path)" }
    /// Same as `description`.
    public var debugDescription: String { description }
}

/// An HTTP answer as a transport received it.
///
/// Its `description` names the status and body size only: the body may carry tokens.
public struct HTTPResponse: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body (empty when there was none).
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `200 (123 bytes)`.
    public var description: String { "\(status) (\(body.count) bytes)" }
    /// Same as `description`.
    public var debugDescription: String { description }
}

extension Instant {
    /// The instant of a Foundation date (milliseconds since the Unix epoch).
    public init(_ date: Date) { self.init(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded())) }

    /// The Foundation date of this instant.
    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
