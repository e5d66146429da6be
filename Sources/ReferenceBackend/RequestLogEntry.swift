import Foundation

/// One request the reference server answered, as `authflow serve` logs it: the method, the path,
/// the status and how long the answer took. Nothing that can carry a secret is kept: no body, no
/// header, and no query string (a WebSocket's `?token=` or an outbox's `?to=`), whose presence
/// shows only as `?…`.
public struct RequestLogEntry: Hashable, Sendable, CustomStringConvertible {
    /// `GET`, `POST`, ….
    public var method: String
    /// The path without its query, e.g. `/everday/api/auth/login`.
    public var path: String
    /// Whether the request had a query string (left out of ``path``).
    public var hadQuery: Bool
    /// The status sent, or `nil` when a fault dropped the connection without an answer.
    public var status: Int?
    /// How long the server took to answer, in seconds (a trickled answer's delivery not included).
    public var seconds: Double

    /// Creates an entry.
    public init(method: String, path: String, hadQuery: Bool, status: Int?, seconds: Double) {
        self.method = method
        self.path = path
        self.hadQuery = hadQuery
        self.status = status
        self.seconds = seconds
    }

    init(request: ServerRequest, reply: ServerReply, seconds: Double) {
        let status: Int? =
            switch reply {
            case .respond(let response), .truncate(let response), .trickle(let response, _): response.status
            case .drop: nil
            }
        self.init(method: request.method, path: request.path, hadQuery: !request.query.isEmpty, status: status, seconds: seconds)
    }

    /// `POST /everday/api/auth/login 200 1.4 ms`; a dropped connection shows `dropped`.
    public var description: String {
        let milliseconds = (seconds * 10_000).rounded() / 10
        return "\(method) \(path)\(hadQuery ? "?…" : "") \(status.map(String.init) ?? "dropped") \(milliseconds) ms"
    }
}
