import AuthTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URLSession client for one base URL, with its own ephemeral session.
struct TestClient: Sendable {
    let base: URL
    let session: URLSession

    init(_ base: URL, timeout: TimeInterval = 10) {
        self.base = base
        session = URLSession.loopback(timeout: timeout)
    }

    /// Sends a request with an optional JSON object body of strings.
    func send(
        _ method: String, _ path: String, json: [String: String]? = nil, raw: Data? = nil,
        headers: [String: String] = [:], bearer: String? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: URL(string: base.absoluteString + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let raw {
            request.httpBody = raw
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let bearer {
            request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization")
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields[String(describing: name).lowercased()] = String(describing: value)
        }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// `POST` with a JSON body.
    func post(_ path: String, _ json: [String: String], bearer: String? = nil, headers: [String: String] = [:]) async throws -> Answer {
        try await send("POST", path, json: json, headers: headers, bearer: bearer)
    }

    /// `GET`.
    func get(_ path: String, bearer: String? = nil) async throws -> Answer {
        try await send("GET", path, bearer: bearer)
    }

    /// Ends the session and its connections.
    func close() {
        session.invalidateAndCancel()
    }
}
