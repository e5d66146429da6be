import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

@Suite("HTTP/1.1 server", .timeLimit(.minutes(15)))
struct HTTPServerTests {
    @Test("a malformed request line is answered 400 and the connection closed")
    func malformedRequestLine() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            connection.send("GARBAGE\r\n\r\n")
            let answer = connection.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 400 "))
            #expect(answer.contains("Connection: close"))
        }
    }

    @Test("a head larger than 16 KiB is refused with 431")
    func oversizedHeaders() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            let filler = String(repeating: "a", count: 17 * 1024)
            connection.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Filler: \(filler)\r\n\r\n")
            #expect(connection.readToEnd().hasPrefix("HTTP/1.1 431 "))
        }
    }

    @Test("a body larger than 1 MiB is refused with 413 even from URLSession")
    func oversizedBody() async throws {
        try await withServer([.subspace]) { server in
            let answer = try await client(server, .subspace)
                .send("POST", "/api/v1/auth/login", raw: Data(repeating: 0x20, count: 1024 * 1024 + 1))
            #expect(answer.status == 413)
            #expect(answer.string("error") == "Request body too large")
        }
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            let body = #"{"email":"admin@subspace.dev","password":"admin123"}"#
            connection.send(
                "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n")
            #expect(connection.read(until: "\r\n\r\n").hasPrefix("HTTP/1.1 100 Continue"))
            connection.send(body)
            #expect(connection.readToEnd().hasPrefix("HTTP/1.1 200 OK"))
        }
    }

    @Test("a chunked body is refused with 501 rather than misread")
    func chunkedRefused() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            connection.send("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            #expect(connection.readToEnd().hasPrefix("HTTP/1.1 501 "))
        }
    }

    @Test("an unsupported protocol version is answered 505")
    func unsupportedVersion() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            connection.send("GET /health HTTP/2.0\r\n\r\n")
            #expect(connection.readToEnd().hasPrefix("HTTP/1.1 505 "))
        }
    }

    @Test(
        "bad JSON is answered 400 in the backend's own error envelope",
        arguments: [
            (ServedBackend.anonymousWall, "/api/v1/auth/login/password", "error"),
            (ServedBackend.vynqTalk, "/auth/login", "reason"),
            (ServedBackend.everday, "/api/auth/login", "detail"),
            (ServedBackend.subspace, "/api/v1/auth/login", "error"),
            (ServedBackend.hero365, "/api/v1/auth/signin", "detail"),
        ])
    func badJSON(backend: ServedBackend, path: String, messageKey: String) async throws {
        try await withServer { server in
            let answer = try await client(server, backend).send("POST", path, raw: Data("{not json".utf8))
            #expect(answer.status == 400)
            #expect(answer.string(messageKey) == "Invalid JSON body")
        }
    }

    @Test("an unknown path is 404 and a known path with the wrong method is 405 with Allow")
    func unknownPathAndWrongMethod() async throws {
        try await withServer { server in
            let everday = client(server, .everday)
            let missing = try await everday.get("/api/auth/nowhere")
            #expect(missing.status == 404)
            #expect(missing.string("detail") == "Not Found")
            let wrongMethod = try await everday.get("/api/auth/login")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers["allow"] == "POST")
            let outside = try await TestClient(server.rootURL).get("/nothing/here")
            #expect(outside.status == 404)
            let vapor = try await client(server, .vynqTalk).get("/nowhere")
            #expect(vapor.status == 404)
            #expect(vapor.bool("error") == true)
            #expect(vapor.string("reason") == "Not Found")
        }
    }

    @Test("a keep-alive connection carries several requests, pipelined too")
    func keepAlive() async throws {
        try await withServer([.subspace]) { server in
            let connection = try #require(RawConnection(port: server.port!))
            let request = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
            connection.send(request + request)
            let both = connection.read(until: "healthy", occurrences: 2)
            #expect(both.components(separatedBy: "HTTP/1.1 200 OK").count == 3)
            #expect(both.components(separatedBy: "Connection: keep-alive").count == 3)
            connection.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let last = connection.readToEnd()
            #expect(last.contains("Connection: close"))
            #expect(last.contains("\"status\":\"healthy\""))
        }
    }

    @Test("an idle connection is closed after the read timeout")
    func readTimeout() async throws {
        var configuration = Configuration()
        configuration.readTimeout = 0.2
        try await withServer([.subspace], configuration: configuration) { server in
            let connection = try #require(RawConnection(port: server.port!))
            connection.send("GET /health HTTP/1.1\r\nHo")
            let started = Date()
            #expect(connection.readToEnd().isEmpty)
            #expect(Date().timeIntervalSince(started) < 3)
        }
    }

    @Test("concurrent URLSession requests are all answered", arguments: [200, 1000])
    func concurrentRequests(count: Int) async throws {
        try await withServer([.subspace], configuration: .unlimited) { server in
            let subspace = client(server, .subspace)
            defer { subspace.close() }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask { try await subspace.get("/health").status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == count)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test("200 simultaneous raw connections are all served, one thread each")
    func concurrentConnections() async throws {
        try await withServer([.subspace], configuration: .unlimited) { server in
            let port = server.port!
            let connections = (0..<200).compactMap { _ in RawConnection(port: port) }
            #expect(connections.count == 200)
            for connection in connections {
                connection.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            }
            let answered = connections.filter { $0.readToEnd().hasPrefix("HTTP/1.1 200 OK") }
            #expect(answered.count == 200)
        }
    }

    @Test("stop closes every socket, open connections included, and refuses new connections")
    func stopLeaksNothing() async throws {
        let server = ReferenceServer(backends: [.subspace])
        let port = try server.start()
        let idle = try #require(RawConnection(port: port))
        idle.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(idle.read(until: "healthy").contains("200 OK"))
        #if os(Linux)
        #expect(openSocketDescriptors(localPort: port) >= 2)
        #endif
        let started = Date()
        server.stop()
        #expect(Date().timeIntervalSince(started) < 1)
        #if os(Linux)
        #expect(openSocketDescriptors(localPort: port) == 0)
        #endif
        #expect(idle.readToEnd().isEmpty)
        #expect(RawConnection(port: port) == nil)
    }

    @Test("a stopped server starts again, and stop is idempotent")
    func restart() async throws {
        let server = ReferenceServer(backends: [.subspace])
        try server.start()
        server.stop()
        server.stop()
        try server.start()
        defer { server.stop() }
        let answer = try await client(server, .subspace).get("/health")
        #expect(answer.status == 200)
    }

    @Test("starting twice is refused with a typed error")
    func startTwice() throws {
        let server = ReferenceServer(backends: [.subspace])
        try server.start()
        defer { server.stop() }
        #expect(throws: ReferenceServerError.alreadyRunning) { try server.start() }
    }
}
