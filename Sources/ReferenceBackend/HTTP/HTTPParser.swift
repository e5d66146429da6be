/// Parses the head of an HTTP/1.x request (request line and header fields) from raw bytes.
///
/// Refusals, each answered before the connection is closed:
/// - a malformed request line, header line or `Content-Length` → 400;
/// - a protocol version other than HTTP/1.0 or HTTP/1.1 → 505;
/// - a head longer than the header limit (16 KiB by default) → 431;
/// - a declared body longer than the body limit (1 MiB by default) → 413;
/// - `Transfer-Encoding` (chunked bodies are not supported) → 501.
struct HTTPParser {
    /// The request line and headers, before the body is read.
    struct Head: Sendable {
        var method: String
        var target: String
        var version: String
        var headers: ServerHeaders
        var contentLength: Int

        /// Whether the connection stays open after the response (HTTP/1.1 default, HTTP/1.0 opt-in).
        var keepAlive: Bool {
            let connection = headers["Connection"]?.lowercased() ?? ""
            if version == "HTTP/1.0" { return connection.contains("keep-alive") }
            return !connection.contains("close")
        }
    }

    /// Why a head was refused, with the status the server answers.
    enum Refusal: Error, Equatable {
        /// The request line or a header line does not follow the grammar.
        case malformed(String)
        /// The head exceeds the header limit.
        case headersTooLarge
        /// The declared body exceeds the body limit.
        case bodyTooLarge
        /// The request uses a transfer coding this server does not implement.
        case unsupportedTransferEncoding
        /// The protocol version is not HTTP/1.0 or HTTP/1.1.
        case unsupportedVersion

        /// The status code the server answers with.
        var status: Int {
            switch self {
            case .malformed: return 400
            case .headersTooLarge: return 431
            case .bodyTooLarge: return 413
            case .unsupportedTransferEncoding: return 501
            case .unsupportedVersion: return 505
            }
        }

        /// A short explanation for the error body.
        var message: String {
            switch self {
            case let .malformed(what): return "Malformed request: \(what)"
            case .headersTooLarge: return "Request header fields too large"
            case .bodyTooLarge: return "Request body too large"
            case .unsupportedTransferEncoding: return "Transfer-Encoding is not supported; send Content-Length"
            case .unsupportedVersion: return "HTTP version not supported"
            }
        }
    }

    /// What `parseHead` found in the buffer.
    enum Outcome {
        /// The head is not complete yet; read more bytes.
        case needMoreBytes
        /// A complete head, which occupied the first `length` bytes of the buffer.
        case head(Head, length: Int)
    }

    var maxHeaderBytes: Int
    var maxBodyBytes: Int

    private static let terminator: [UInt8] = [13, 10, 13, 10]

    /// Looks for a complete request head at the start of `buffer`.
    func parseHead(_ buffer: [UInt8]) throws(Refusal) -> Outcome {
        guard let end = HTTPParser.find(HTTPParser.terminator, in: buffer, limit: maxHeaderBytes) else {
            if buffer.count > maxHeaderBytes { throw .headersTooLarge }
            return .needMoreBytes
        }
        guard let text = String(validating: buffer[0..<end], as: UTF8.self) else {
            throw .malformed("head is not UTF-8")
        }
        let lines = text.components(separatedBy: "\r\n")
        let (method, target, version) = try parseRequestLine(lines[0])
        var headers = ServerHeaders()
        for line in lines.dropFirst() {
            headers.add(contentsOf: try parseHeaderLine(line))
        }
        if headers["Transfer-Encoding"] != nil { throw .unsupportedTransferEncoding }
        let contentLength = try parseContentLength(headers.values("Content-Length"))
        if contentLength > maxBodyBytes { throw .bodyTooLarge }
        let head = Head(method: method, target: target, version: version, headers: headers, contentLength: contentLength)
        return .head(head, length: end + HTTPParser.terminator.count)
    }

    private func parseRequestLine(_ line: String) throws(Refusal) -> (String, String, String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("request line") }
        let method = String(parts[0])
        let target = String(parts[1])
        let version = String(parts[2])
        guard !method.isEmpty, method.utf8.allSatisfy(HTTPParser.isTokenByte) else { throw .malformed("method") }
        guard target.hasPrefix("/"), !target.utf8.contains(where: { $0 <= 32 || $0 == 127 }) else {
            throw .malformed("request target")
        }
        guard version.hasPrefix("HTTP/") else { throw .malformed("protocol version") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .unsupportedVersion }
        return (method, target, version)
    }

    private func parseHeaderLine(_ line: String) throws(Refusal) -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line") }
        let name = String(line[..<colon])
        guard !name.isEmpty, name.utf8.allSatisfy(HTTPParser.isTokenByte) else { throw .malformed("header name") }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (name, value)
    }

    private func parseContentLength(_ values: [String]) throws(Refusal) -> Int {
        guard let first = values.first else { return 0 }
        guard values.allSatisfy({ $0 == first }), let length = Int(first), length >= 0,
            first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
        else {
            throw .malformed("Content-Length")
        }
        return length
    }

    /// RFC 9110 `tchar`: the bytes allowed in a method or header name.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// The index of the first occurrence of `pattern` that ends within the first `limit` bytes.
    private static func find(_ pattern: [UInt8], in buffer: [UInt8], limit: Int) -> Int? {
        let last = min(buffer.count, limit + pattern.count) - pattern.count
        guard last >= 0 else { return nil }
        var index = 0
        while index <= last {
            if buffer[index] == pattern[0] && buffer[index..<index + pattern.count].elementsEqual(pattern) {
                return index
            }
            index += 1
        }
        return nil
    }
}

private extension ServerHeaders {
    mutating func add(contentsOf field: (name: String, value: String)) {
        add(field.name, field.value)
    }
}
