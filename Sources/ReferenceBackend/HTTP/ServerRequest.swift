import Foundation

/// One parsed HTTP/1.1 request, as the reference server received it (the client's is `HTTPRequest`).
struct ServerRequest: Sendable {
    /// The method token, e.g. `POST`.
    var method: String
    /// The path without its query string, percent-decoding left to handlers.
    var path: String
    /// The query parameters, percent-decoded (`+` is kept literally); a repeated name keeps its last value.
    var query: [String: String]
    /// The header fields.
    var headers: ServerHeaders
    /// The body, exactly `Content-Length` bytes.
    var body: Data
    /// Whether the client asked to keep the connection open after this request.
    var keepAlive: Bool

    /// Splits a request target into its path and decoded query parameters.
    static func split(target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            query[name] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return (String(target[..<mark]), query)
    }

    /// Percent-decodes; `+` stays a plus sign (URLComponents leaves it unescaped in phone numbers).
    private static func decode(_ text: Substring) -> String {
        text.removingPercentEncoding ?? String(text)
    }
}
