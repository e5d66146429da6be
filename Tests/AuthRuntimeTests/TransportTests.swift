import AuthRuntime
import Foundation
import ReferenceBackend
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTransport` and `URLSessionRealtimeConnector` against the reference backend on loopback.
@Suite("URLSession transport", .timeLimit(.minutes(15)))
struct TransportTests {
    /// A started VynqTalk server, stopped when `body` returns.
    func withVynqTalk<T>(_ body: (ReferenceServer, URL) async throws -> T) async throws -> T {
        let server = ReferenceServer(backends: [.vynqTalk])
        try server.start()
        defer { server.stop() }
        return try await body(server, server.baseURL(for: .vynqTalk))
    }

    func signup(_ transport: URLSessionTransport, _ base: URL) async throws -> HTTPResponse {
        let body = Data(#"{"name":"Alice","email":"alice@example.com","password":"password123"}"#.utf8)
        return try await transport.send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("auth/signup"), headers: ["Content-Type": "application/json"], body: body))
    }

    @Test("sends method, headers and body, and returns status, headers and body")
    func roundTrip() async throws {
        try await withVynqTalk { _, base in
            let transport = URLSessionTransport()
            #expect(transport.timeout == 30)
            let response = try await signup(transport, base)
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
            let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(json["success"] as? Bool == true)
        }
    }

    @Test("an error status is an answer, not a transport error")
    func errorStatusIsAnswer() async throws {
        try await withVynqTalk { _, base in
            let response = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: base.appendingPathComponent("users")))
            #expect(response.status == 401)
        }
    }

    @Test("a refused connection is a network error")
    func refusedConnection() async throws {
        let server = ReferenceServer(backends: [.vynqTalk])
        let port = try server.start()
        server.stop()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/users"))
        await #expect(throws: TransportError.network) { try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url)) }
    }

    @Test("no data within the timeout is a timeout")
    func timeout() async throws {
        try await withVynqTalk { server, base in
            server.inject(.latency(2), path: "/users")
            let transport = URLSessionTransport(timeout: 0.3)
            #if canImport(FoundationNetworking)
            #expect(transport.timeout == 1)  // Whole seconds on Linux: 0.3 would time out at once.
            #endif
            await #expect(throws: TransportError.timeout) {
                try await transport.send(HTTPRequest(method: "GET", url: base.appendingPathComponent("users")))
            }
        }
    }

    @Test("cancelling the waiting task cancels the request")
    func cancellation() async throws {
        try await withVynqTalk { server, base in
            server.inject(.latency(2), path: "/users")
            let transport = URLSessionTransport()
            let request = HTTPRequest(method: "GET", url: base.appendingPathComponent("users"))
            let task = Task { () -> TransportError? in
                do throws(TransportError) {
                    _ = try await transport.send(request)
                    return nil
                } catch {
                    return error
                }
            }
            task.cancel()
            #expect(await task.value == .cancelled)
        }
    }

    @Test("the WebSocket connector opens /ws?token= where the platform can, and says precisely when it cannot")
    func webSocket() async throws {
        try await withVynqTalk { _, base in
            let signedUp = try await signup(URLSessionTransport(), base)
            let json = try #require(try JSONSerialization.jsonObject(with: signedUp.body) as? [String: Any])
            let token = try #require((json["data"] as? [String: Any])?["accessToken"] as? String)
            let port = try #require(base.port)
            let url = try #require(URL(string: "ws://127.0.0.1:\(port)/ws?token=\(token)"))
            do throws(RealtimeError) {
                let channel = try await URLSessionRealtimeConnector(timeout: 5).connect(to: url)
                let greeting = await channel.receive()
                guard case .text(let text) = greeting else {
                    Issue.record("expected a text greeting, got \(String(describing: greeting))")
                    return
                }
                #expect(text.contains("\"connected\""))
                channel.close()
            } catch {
                // Linux FoundationNetworking with a libcurl built without WebSocket support.
                #expect(error == .unsupported)
                #expect(!error.description.contains(token))
            }
        }
    }
}
