import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The reference server's fixed "now": the cross-checks move it by hand, never sleep.
let referenceNow = Date(timeIntervalSince1970: 1_767_225_600)

/// Sends `HTTPRequest`s over a real loopback connection with its own ephemeral `URLSession`.
final class LoopbackTransport: HTTPTransport {
    let session: URLSession

    init(timeout: TimeInterval = 10) {
        session = URLSession.loopback(timeout: timeout)
    }

    deinit { session.invalidateAndCancel() }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError where error.code == .timedOut {
            throw .timeout
        } catch {
            throw .network
        }
        guard let http = response as? HTTPURLResponse else { throw .network }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            headers[String(describing: name)] = String(describing: value)
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }
}

/// One contract talking to one reference server.
struct ContractClient: Sendable {
    let server: ReferenceServer
    let contract: any BackendContract
    let transport: LoopbackTransport

    /// The server's clock as the reducer would see an answer's arrival.
    var now: Instant { Instant(server.now) }

    /// Encodes `request`, sends it, decodes the answer.
    func send(_ request: APIRequest) async throws -> Reply {
        let http = try contract.encode(request)
        return contract.decode(try await transport.send(http), for: request, receivedAt: now)
    }

    /// One of the app's own calls, authorized by the contract and classified as the session sees it.
    func protected(_ method: String, _ path: String, _ bearer: Bearer) async throws -> Reply {
        let url = try #require(URL(string: contract.baseURL.absoluteString + path))
        let request = contract.authorize(HTTPRequest(method: method, url: url), with: bearer)
        return contract.classifyProtected(try await transport.send(request), receivedAt: Instant(Date()))
    }

    /// The latest code or token the server "sent" to `recipient`.
    func lastCode(to recipient: String) throws -> String {
        try #require(server.outbox(to: recipient).last?.code, "nothing was sent to \(recipient)")
    }

    /// A raw request to the server (dev endpoints), answered as JSON.
    func raw(_ method: String, _ url: URL, headers: HTTPHeaders = [:]) async throws -> (status: Int, json: JSONValue?) {
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers))
        return (response.status, JSONValue.parse(response.body))
    }
}

/// Starts a reference server mounting only `backend` (so the API document's paths sit at its root),
/// with the clock fixed at ``referenceNow``, and runs `body` with a contract client for it.
func withReference<T>(
    _ backend: Backend, configure: (inout Configuration) -> Void = { _ in },
    _ body: (ContractClient) async throws -> T
) async throws -> T {
    var configuration = Configuration()
    configuration.clock = { referenceNow }
    configuration.subspace.rateLimit = .max
    configure(&configuration)
    let mounted = try #require(ServedBackend(rawValue: backend.id))
    let server = ReferenceServer(backends: [mounted], configuration: configuration)
    try server.start()
    defer { server.stop() }
    let client = ContractClient(
        server: server, contract: try #require(BackendContracts.contract(for: backend, server: server.baseURL(for: mounted))),
        transport: LoopbackTransport())
    return try await body(client)
}

/// Values the cross-checks type into forms.
enum Typed {
    static func email(_ text: String) throws -> Email { try Email(text) }
    static func password(_ text: String) throws -> Password { try Password(PasswordInput(text)) }
    static func code(_ text: String) throws -> VerificationCode { try VerificationCode(CodeInput(text)) }
    static func phone(_ text: String) throws -> PhoneNumber { try PhoneNumber(text) }
    static func username(_ text: String) throws -> Username { try Username(text) }
    static func name(_ text: String) throws -> PersonName { try PersonName(text) }
}

extension Reply {
    /// The grant, or a recorded issue.
    func grant(sourceLocation: SourceLocation = #_sourceLocation) -> Grant? {
        if case .granted(let grant) = self { return grant }
        Issue.record("expected a grant, got \(self)", sourceLocation: sourceLocation)
        return nil
    }

    /// The refreshed tokens, or a recorded issue.
    func tokens(sourceLocation: SourceLocation = #_sourceLocation) -> TokenRefresh? {
        if case .refreshed(let tokens) = self { return tokens }
        Issue.record("expected refreshed tokens, got \(self)", sourceLocation: sourceLocation)
        return nil
    }

    /// The failure, if this is one.
    var failure: AuthFailure? { if case .failed(let failure) = self { failure } else { nil } }
}

extension Instant {
    /// `referenceNow` plus `seconds`.
    static func afterReferenceNow(_ seconds: Int64) -> Instant { Instant(referenceNow) + .seconds(seconds) }
}
