import AuthCore
@testable import AuthRuntime
import AuthSupport
import AuthVerification
import Foundation
import ReferenceBackend
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPTransport.start(_:completion:)`, the way the runner sends: URLSession's own (no task per
/// request), the default over `send`, the logging transport's, and how a request and an answer
/// are converted on the way.
@Suite("Transport start", .timeLimit(.minutes(15)))
struct TransportStartTests {
    /// Starts `request` on `transport` and waits for its completion.
    func started(_ transport: any HTTPTransport, _ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        await withCheckedContinuation { answered in
            _ = transport.start(request) { answer in answered.resume(returning: answer) }
        }
    }

    @Test("URLSessionTransport.start answers through its completion as send answers")
    func urlSessionStart() async throws {
        let server = ReferenceServer(backends: [.vynqTalk])
        try server.start()
        defer { server.stop() }
        let base = server.baseURL(for: .vynqTalk)
        let transport = URLSessionTransport()
        let request = HTTPRequest(method: "GET", url: base.appendingPathComponent("users"))
        let viaStart = try await started(transport, request).get()
        let viaSend = try await transport.send(request)
        #expect(viaStart.status == 401)
        #expect(viaStart.status == viaSend.status)
        #expect(viaStart.headers["content-type"] == viaSend.headers["content-type"])
        #expect(viaStart.body == viaSend.body)
    }

    @Test("cancelling a started URLSession request answers cancelled")
    func urlSessionCancel() async throws {
        let server = ReferenceServer(backends: [.vynqTalk])
        try server.start()
        defer { server.stop() }
        server.inject(.latency(2), path: "/users")
        let transport = URLSessionTransport()
        let request = HTTPRequest(method: "GET", url: server.baseURL(for: .vynqTalk).appendingPathComponent("users"))
        let answer = await withCheckedContinuation { (answered: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
            let handle = transport.start(request) { answer in answered.resume(returning: answer) }
            handle.cancel()
        }
        #expect(answer == .failure(.cancelled))
    }

    @Test("a transport that implements only send starts each request in a task of its own, which the handle cancels")
    func defaultStart() async throws {
        let transport = SendOnly()
        let url = try #require(URL(string: "http://h/up"))
        #expect(try await started(transport, HTTPRequest(method: "GET", url: url)).get().status == 204)
        let hanging = try #require(URL(string: "http://h/hang"))
        let answer = await withCheckedContinuation { (answered: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
            let handle = transport.start(HTTPRequest(method: "GET", url: hanging)) { answer in answered.resume(returning: answer) }
            handle.cancel()
        }
        #expect(answer == .failure(.cancelled))
    }

    @Test("a logging transport starts through its base's start, and records the exchange")
    func loggingStart() async throws {
        let base = StartOnly()
        let recorder = HTTPLogRecorder()
        let transport = LoggingTransport(base, logger: recorder)
        let url = try #require(URL(string: "http://h/up"))
        #expect(try await started(transport, HTTPRequest(method: "GET", url: url)).get().status == 204)
        #expect(base.counts == (starts: 1, sends: 0))
        #expect(recorder.entries.map(\.status) == [204])
    }

    @Test("header fields of one name, in any case, are joined with a comma under the first spelling, as addValue joins them")
    func requestHeaders() throws {
        let url = try #require(URL(string: "http://h/api/items"))
        let request = HTTPRequest(
            method: "PUT", url: url,
            headers: HTTPHeaders([("Accept", "application/json"), ("X-Tag", "a"), ("Authorization", "Bearer t"), ("x-tag", "b"), ("X-TAG", "c")]),
            body: Data("{}".utf8))
        let built = URLSessionTransport.urlRequest(request, timeout: 7)
        var reference = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 7)
        reference.httpMethod = "PUT"
        for field in request.headers { reference.addValue(field.value, forHTTPHeaderField: field.name) }
        reference.httpBody = request.body
        #expect(built.value(forHTTPHeaderField: "x-tag") == "a,b,c")
        #expect(built.allHTTPHeaderFields?.keys.sorted() == ["Accept", "Authorization", "X-Tag"])
        for name in ["Accept", "Authorization", "X-Tag", "x-tag"] {
            #expect(built.value(forHTTPHeaderField: name) == reference.value(forHTTPHeaderField: name), "\(name)")
        }
        #expect(built.httpMethod == "PUT")
        #expect(built.httpBody == request.body)
        #expect(built.timeoutInterval == 7)
        #expect(built.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(URLSessionTransport.urlRequest(HTTPRequest(method: "GET", url: url), timeout: 7).allHTTPHeaderFields?.isEmpty ?? true)
    }

    @Test("an answer's headers are sorted by name without regard to case, whatever order Foundation keeps them in")
    func answerHeaders() throws {
        let url = try #require(URL(string: "http://h/api/items"))
        let fields = [
            "X-Request-Id": "7", "content-type": "application/json", "Date": "Sun, 22 Nov 2026 09:00:00 GMT", "Cache-Control": "no-store",
            "vary": "Origin", "ETag": "\"1\"", "X-Ratelimit-Remaining": "9", "Allow": "PUT",
        ]
        let response = try #require(HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: fields))
        let headers = URLSessionTransport.headers(of: response)
        // Foundation may respell a name ("content-type" as "Content-Type"); the order is by name whatever the case.
        #expect(
            headers.fields.map { $0.name.lowercased() } == [
                "allow", "cache-control", "content-type", "date", "etag", "vary", "x-ratelimit-remaining", "x-request-id",
            ])
        for (name, value) in fields { #expect(headers[name.uppercased()] == value) }
        let answer = try URLSessionTransport.result(data: nil, response: response, error: nil).get()
        #expect(answer.status == 201)
        #expect(answer.headers == headers)
        #expect(answer.body.isEmpty)
    }

    @Test("header names order as their lower-cased forms do, and by their own bytes when those are equal (20,000 seeded pairs)")
    func nameOrder() {
        var random = SplitMix64(seed: 0x4EAD)
        let alphabet = Array("aAbBzZ09-_.!~`@[{".utf8)
        func name() -> String {
            String(decoding: (0..<Int.random(in: 0...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! }, as: UTF8.self)
        }
        for _ in 0..<20_000 {
            let (a, b) = (name(), name())
            let expected = a.lowercased() == b.lowercased() ? a < b : a.lowercased() < b.lowercased()
            #expect(URLSessionTransport.precedes(a, b) == expected, "\(a) \(b)")
        }
    }
}

/// A transport with only `send`: `/hang` waits until its task is cancelled.
private struct SendOnly: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        guard request.url.lastPathComponent == "hang" else { return HTTPResponse(status: 204) }
        while !Task.isCancelled { await Task.yield() }
        throw .cancelled
    }
}

/// A transport that starts requests itself and counts how it was asked.
private final class StartOnly: HTTPTransport, Sendable {
    private let storage = Locked<(starts: Int, sends: Int)>((0, 0))

    var counts: (starts: Int, sends: Int) { storage.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        storage.withLock { $0.sends += 1 }
        return HTTPResponse(status: 204)
    }

    func start(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) async -> Void) -> TransportHandle {
        storage.withLock { $0.starts += 1 }
        let task = Task { await completion(.success(HTTPResponse(status: 204))) }
        return TransportHandle { task.cancel() }
    }
}
