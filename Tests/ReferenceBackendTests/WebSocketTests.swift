import AuthTestSupport
import Foundation
import ReferenceBackend
import Testing

@Suite("VynqTalk WebSocket", .timeLimit(.minutes(15)))
struct WebSocketTests {
    /// A VynqTalk access token for a fresh user.
    private func token(_ server: ReferenceServer) async throws -> String {
        let signup = try await client(server, .vynqTalk)
            .post("/auth/signup", ["name": "Alice", "email": "alice@example.com", "password": "password123"])
        return try #require(signup.string("data", "accessToken"))
    }

    @Test("a valid ?token= upgrades, greets, echoes text and answers ping with pong")
    func upgradeAndEcho() async throws {
        try await withServer([.vynqTalk]) { server in
            let token = try await token(server)
            let socket = try #require(RawConnection(port: server.port!))
            let head = socket.openWebSocket("/ws?token=\(token)")
            #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols"))
            #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
            #expect(socket.readText()?.contains("\"type\":\"connected\"") == true)
            socket.sendFrame(opcode: 0x1, Array("hello".utf8))
            #expect(socket.readText() == #"{"data":"hello","type":"echo"}"#)
            socket.sendFrame(opcode: 0x9, Array("beat".utf8))
            let pong = socket.readFrame()
            #expect(pong?.opcode == 0xA)
            #expect(pong?.payload == Array("beat".utf8))
            socket.sendFrame(opcode: 0x8, [0x03, 0xE8])
            #expect(socket.readFrame()?.opcode == 0x8)
        }
    }

    @Test("a missing or invalid token is refused with 401 before the upgrade", arguments: ["/ws", "/ws?token=forged"])
    func refusedToken(path: String) async throws {
        try await withServer([.vynqTalk]) { server in
            let socket = try #require(RawConnection(port: server.port!))
            let head = socket.openWebSocket(path)
            #expect(head.hasPrefix("HTTP/1.1 401 "))
        }
    }

    /// The deployed server (Vapor's default `shouldUpgrade`): 101 first, the token read after.
    static var deployed: Configuration {
        var configuration = Configuration()
        configuration.vynqTalk.deployed = true
        return configuration
    }

    @Test(
        "the document says a missing or invalid token is refused before the upgrade; the deployed server sends 101 and closes at once (1001, no message); both are served",
        arguments: ["/ws", "/ws?token=forged"])
    func deployedAcceptsThenCloses(path: String) async throws {
        try await withServer([.vynqTalk], configuration: Self.deployed) { server in
            let socket = try #require(RawConnection(port: server.port!))
            #expect(socket.openWebSocket(path).hasPrefix("HTTP/1.1 101 "))
            Self.expectGoingAway(socket.readFrame())
        }
    }

    @Test(
        "a suspended user: the document's server refuses the handshake with 403; the deployed one opens, sends online_users and user_suspended, and closes"
    )
    func suspendedUser() async throws {
        try await withServer([.vynqTalk]) { server in
            let token = try await token(server)
            #expect(server.suspendVynqTalkUser(email: "Alice@example.com"))
            #expect(!server.suspendVynqTalkUser(email: "nobody@example.com"))
            let socket = try #require(RawConnection(port: server.port!))
            #expect(socket.openWebSocket("/ws?token=\(token)").hasPrefix("HTTP/1.1 403 "))
        }
        try await withServer([.vynqTalk], configuration: Self.deployed) { server in
            let token = try await token(server)
            server.suspendVynqTalkUser(email: "alice@example.com")
            let socket = try #require(RawConnection(port: server.port!))
            #expect(socket.openWebSocket("/ws?token=\(token)").hasPrefix("HTTP/1.1 101 "))
            #expect(socket.readText()?.contains(#""message":"online_users""#) == true)
            let told = try #require(socket.readText())
            #expect(told.contains(#""message":"user_suspended""#) && told.contains(#""suspended":true"#))
            Self.expectGoingAway(socket.readFrame())
            let users = try await client(server, .vynqTalk).get("/users", bearer: token)
            #expect(users.status == 403)
            #expect(users.string("reason") == "Your account is suspended.")
        }
    }

    @Test("disconnectWebSockets closes open sockets with 1001 so clients reconnect")
    func serverDisconnect() async throws {
        try await withServer([.vynqTalk]) { server in
            let token = try await token(server)
            let socket = try #require(RawConnection(port: server.port!))
            _ = socket.openWebSocket("/ws?token=\(token)")
            _ = socket.readText()
            server.disconnectWebSockets()
            let close = socket.readFrame()
            Self.expectGoingAway(close)
            let again = try #require(RawConnection(port: server.port!))
            #expect(again.openWebSocket("/ws?token=\(token)").hasPrefix("HTTP/1.1 101 "))
        }
    }

    @Test("a socket left idle longer than the HTTP read timeout stays open: a server disconnect still sends it 1001")
    func idleSocketStaysOpen() async throws {
        var configuration = Configuration()
        configuration.readTimeout = 0.2
        try await withServer([.vynqTalk], configuration: configuration) { server in
            let token = try await token(server)
            let socket = try #require(RawConnection(port: server.port!))
            _ = socket.openWebSocket("/ws?token=\(token)")
            _ = socket.readText()
            try await Task.sleep(for: .milliseconds(600))  // Three read timeouts with nothing sent.
            server.disconnectWebSockets()
            Self.expectGoingAway(socket.readFrame())
        }
    }

    @Test("a server disconnect right after a message still sends 1001, every time (the close raced the reader)")
    func disconnectRightAfterAMessage() async throws {
        try await withServer([.vynqTalk]) { server in
            let token = try await token(server)
            // The reader thread loops back for the next frame just as the greeting goes out:
            // the moment a close that marked the socket closed before writing its frame lost it.
            for attempt in 0..<60 {
                let socket = try #require(RawConnection(port: server.port!))
                _ = socket.openWebSocket("/ws?token=\(token)")
                _ = socket.readText()
                server.disconnectWebSockets()
                let close = socket.readFrame()
                #expect(close?.opcode == 0x8, "attempt \(attempt): no close frame")
                if close?.opcode != 0x8 { return }
            }
        }
    }

    /// The server's 1001 close frame.
    static func expectGoingAway(_ close: (opcode: UInt8, payload: [UInt8])?) {
        #expect(close?.opcode == 0x8)
        #expect(close?.payload.prefix(2) == [0x03, 0xE9])
    }

    @Test("once the token expires the next message closes the socket with 1008")
    func expiryCloses() async throws {
        try await withServer([.vynqTalk]) { server in
            let token = try await token(server)
            let socket = try #require(RawConnection(port: server.port!))
            _ = socket.openWebSocket("/ws?token=\(token)")
            _ = socket.readText()
            server.advanceClock(by: 3601)
            socket.sendFrame(opcode: 0x1, Array("late".utf8))
            let close = socket.readFrame()
            #expect(close?.opcode == 0x8)
            #expect(close?.payload.prefix(2) == [0x03, 0xF0])
        }
    }
}
