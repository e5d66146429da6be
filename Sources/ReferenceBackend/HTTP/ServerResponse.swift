import Foundation

/// An HTTP response as the reference server's handlers build it (the client's is `HTTPResponse`);
/// the server adds `Content-Length` and `Connection`.
struct ServerResponse: Sendable {
    /// The status code.
    var status: Int
    /// Header fields other than `Content-Length` and `Connection`.
    var headers: ServerHeaders
    /// The body.
    var body: Data
    /// For a 101 answer: the WebSocket session that takes the connection over once the head is sent.
    var upgrade: (@Sendable (WebSocket) -> Void)?

    init(status: Int, headers: ServerHeaders = ServerHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A 101 answer switching to the WebSocket protocol, accepting `key`, then running `session`.
    static func switchingToWebSocket(key: String, session: @escaping @Sendable (WebSocket) -> Void) -> ServerResponse {
        var headers = ServerHeaders()
        headers.set("Upgrade", "websocket")
        headers.set("Connection", "Upgrade")
        headers.set("Sec-WebSocket-Accept", WebSocket.acceptValue(forKey: key))
        var response = ServerResponse(status: 101, headers: headers)
        response.upgrade = session
        return response
    }

    /// A JSON response with `Content-Type: application/json`.
    static func json(_ status: Int, _ value: JSONValue, headers: ServerHeaders = ServerHeaders()) -> ServerResponse {
        var headers = headers
        headers.set("Content-Type", "application/json; charset=utf-8")
        return ServerResponse(status: status, headers: headers, body: value.encoded())
    }

    /// The bytes on the wire: status line, headers, `Content-Length` (or `declaredLength`), then the body;
    /// a WebSocket upgrade sends its head only.
    func serialized(keepAlive: Bool, declaredLength: Int? = nil) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(ServerResponse.reason(for: status))\r\n"
        for field in headers.fields {
            head += "\(field.name): \(field.value)\r\n"
        }
        if upgrade != nil { return Array((head + "\r\n").utf8) }
        head += "Content-Length: \(declaredLength ?? body.count)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }

    /// The standard reason phrase for the statuses this server uses.
    static func reason(for status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 302: return "Found"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }
}
