import Foundation

/// One documented backend: its routes and its error envelope.
protocol Contract: Sendable {
    /// Which backend this is.
    var backend: ServedBackend { get }
    /// The documented endpoints, with paths relative to the backend's mount point.
    var routes: [Route] { get }
    /// The backend's own error body for `status` and `message`.
    func errorResponse(_ rejection: Rejection) -> ServerResponse
    /// A gate every routed request to this backend passes before its handler (e.g. a rate limit); `nil` lets it through.
    func admit(_ request: ContractRequest) -> Rejection?
}

extension Contract {
    func admit(_ request: ContractRequest) -> Rejection? { nil }
}

/// One endpoint: method, path template (`{name}` matches one segment) and handler.
struct Route: Sendable {
    var method: String
    var template: String
    var handle: @Sendable (ContractRequest) throws(Rejection) -> ServerResponse

    init(_ method: String, _ template: String, _ handle: @escaping @Sendable (ContractRequest) throws(Rejection) -> ServerResponse) {
        self.method = method
        self.template = template
        self.handle = handle
    }

    /// The path parameters when `path` fits the template, else `nil`.
    func match(_ path: String) -> [String: String]? {
        let wanted = template.split(separator: "/", omittingEmptySubsequences: false)
        let given = path.split(separator: "/", omittingEmptySubsequences: false)
        guard wanted.count == given.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, segment) in zip(wanted, given) {
            if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                guard !segment.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = segment.removingPercentEncoding ?? String(segment)
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}

/// A request refused by a contract: the status and message go into the backend's error envelope.
struct Rejection: Error, Sendable {
    var status: Int
    var message: String
    var headers = ServerHeaders()
    /// An error code for envelopes that carry one (RFC 6749 §5.2's `error`), when the handler named it.
    var code: String?

    init(_ status: Int, _ message: String, headers: ServerHeaders = ServerHeaders(), code: String? = nil) {
        self.status = status
        self.message = message
        self.headers = headers
        self.code = code
    }
}

/// A request as a contract handler sees it.
struct ContractRequest: Sendable {
    /// The HTTP request, path relative to the backend's mount point.
    var http: ServerRequest
    /// Values of the template's `{name}` segments.
    var parameters: [String: String]
    /// The client's IP address.
    var remoteAddress: String

    /// The bearer token from `Authorization`, if any.
    var bearerToken: String? {
        guard let header = http.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The body as a JSON object; 400 in the backend's envelope when it is not one.
    func jsonObject() throws(Rejection) -> JSONBody {
        guard let value = JSONValue.decode(http.body), let object = value.object else {
            throw Rejection(400, "Invalid JSON body")
        }
        return JSONBody(fields: object)
    }
}

/// A decoded JSON request body with typed field access.
struct JSONBody: Sendable {
    var fields: [String: JSONValue]

    /// The string at `key`, trimmed; `nil` when missing, not a string, or empty.
    func string(_ key: String) -> String? {
        guard let value = fields[key]?.string?.trimmingCharacters(in: .whitespacesAndNewlines),
            !value.isEmpty
        else { return nil }
        return value
    }

    /// The string at `key`, or a 400 with `message` when it is missing.
    func require(_ key: String, _ message: String) throws(Rejection) -> String {
        guard let value = string(key) else { throw Rejection(400, message) }
        return value
    }

    /// The raw string at `key` (not trimmed: passwords keep their spaces), or a 400 with `message`.
    func requireSecret(_ key: String, _ message: String) throws(Rejection) -> String {
        guard let value = fields[key]?.string, !value.isEmpty else { throw Rejection(400, message) }
        return value
    }
}

/// What every contract shares: clock, outbox, sessions, configuration.
struct Services: Sendable {
    var clock: ServerClock
    var outbox: Outbox
    var sessions: SessionStore
    var configuration: Configuration

    /// Delivers a message to the dev outbox.
    func send(_ backend: ServedBackend, to recipient: String, kind: OutboxMessage.Kind, code: String?) {
        outbox.send(OutboxMessage(backend: backend, to: recipient, kind: kind, code: code, sentAt: clock.now))
    }

    /// The grant of a valid bearer token, or a 401 naming why not (`missing`, `invalid`, `expired` messages).
    func authorize(_ request: ContractRequest, for backend: ServedBackend, missing: String, invalid: String, expired: String) throws(Rejection)
        -> SessionStore.Grant
    {
        guard let token = request.bearerToken else { throw Rejection(401, missing) }
        switch sessions.checkAccess(token, for: backend) {
        case let .valid(grant): return grant
        case .expired: throw Rejection(401, expired)
        case .invalid: throw Rejection(401, invalid)
        }
    }
}

/// Shared input checks.
enum Validation {
    /// A plausible email address: one `@`, a non-empty local part, a dotted domain, no spaces.
    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !text.contains(" ") else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }

    /// ISO 8601 in UTC without fractional seconds, e.g. `2025-10-10T10:00:00Z`.
    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
