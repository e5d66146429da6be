import Foundation

/// One logged exchange, already redacted: it is built from a request and its answer and keeps
/// only masked text, so no entry, line or recorder ever holds a secret.
public struct HTTPLogEntry: Hashable, Sendable, CustomStringConvertible {
    /// How the exchange ended.
    public enum Answer: Hashable, Sendable {
        /// The server answered (headers and body already masked).
        case response(status: Int, headers: HTTPHeaders, body: String?)
        /// No answer arrived.
        case failure(TransportError)
        /// A realtime connection opened.
        case realtimeOpened
        /// A realtime connection did not open.
        case realtimeFailed(RealtimeError)
    }

    /// `GET`, `POST`, …
    public let method: String
    /// The URL with secrets masked.
    public let url: String
    /// The request's headers with credentials masked.
    public let requestHeaders: HTTPHeaders
    /// The request's body with secret fields masked (`nil`: none).
    public let requestBody: String?
    /// How the exchange ended, with the response's secrets masked.
    public let answer: Answer
    /// How long the exchange took.
    public let duration: Duration

    /// The entry for `request`, answered with `response` (or no answer) after `duration`.
    public init(request: HTTPRequest, response: Result<HTTPResponse, TransportError>, duration: Duration) {
        switch response {
        case .success(let response):
            self.init(
                request: request,
                answer: .response(status: response.status, headers: LogRedaction.headers(response.headers), body: LogRedaction.body(response.body)),
                duration: duration)
        case .failure(let error):
            self.init(request: request, answer: .failure(error), duration: duration)
        }
    }

    /// The entry for `request` with an answer given directly (realtime handshakes); a response's
    /// headers and body are masked here as raw ones would be.
    init(request: HTTPRequest, answer: Answer, duration: Duration) {
        method = request.method
        url = LogRedaction.url(request.url)
        requestHeaders = LogRedaction.headers(request.headers)
        requestBody = LogRedaction.body(request.body)
        self.answer = answer
        self.duration = duration
    }

    /// The status, when the server answered.
    public var status: Int? {
        switch answer {
        case .response(let status, _, _), .realtimeFailed(.refused(let status)): status
        case .realtimeOpened: 101
        case .failure, .realtimeFailed: nil
        }
    }

    /// One line: `POST http://…/auth/login → 200 in 12 ms | request headers … | request body … | response …`.
    public var description: String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        var parts = ["\(method) \(url) → \(outcome) in \(Int(milliseconds.rounded())) ms"]
        if !requestHeaders.fields.isEmpty { parts.append("request headers: \(Self.render(requestHeaders))") }
        if let requestBody { parts.append("request body: \(requestBody)") }
        if case .response(_, let headers, let body) = answer {
            if !headers.fields.isEmpty { parts.append("response headers: \(Self.render(headers))") }
            if let body { parts.append("response body: \(body)") }
        }
        return parts.joined(separator: " | ")
    }

    private var outcome: String {
        switch answer {
        case .response(let status, _, _): "\(status)"
        case .failure(let error): "no answer (\(error))"
        case .realtimeOpened: "opened"
        case .realtimeFailed(let error): "not opened (\(error))"
        }
    }

    private static func render(_ headers: HTTPHeaders) -> String {
        headers.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
    }
}
