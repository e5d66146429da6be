import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation
import Testing

@Suite("Log redaction", .timeLimit(.minutes(15)))
struct LogRedactionTests {
    @Test(
        "field names that carry secrets are recognised in every casing",
        arguments: [
            "password", "Password", "PASSWORD", "new_password", "NewPassword", "newPassword", "oldPassword", "old_password",
            "currentPassword", "code", "Code", "otp", "OTP", "otp_code", "otpCode", "verification_code", "token", "Token",
            "accessToken", "AccessToken", "access_token", "refreshToken", "RefreshToken", "refresh_token", "resetToken",
            "ResetToken", "reset_token", "id_token", "Authorization", "authorization", "Proxy-Authorization", "Cookie",
            "Set-Cookie", "X-Refresh-Token", "X-Auth-Token", "X-Api-Key", "client_secret", "sessionId", "pin",
            "code_verifier", "codeVerifier", "user_code", "device_code", "verification_uri_complete", "verification_url_complete",
        ])
    func secretNames(name: String) {
        #expect(LogRedaction.isSecretName(name))
    }

    @Test(
        "ordinary field names are left readable",
        arguments: [
            "email", "Email", "username", "Username", "name", "full_name", "status", "Status", "message", "detail", "error",
            "reason", "success", "data", "user", "id", "userId", "X-User-Id", "ExpiresIn", "expires_in", "TokenType", "token_type",
            "Content-Type", "purpose", "provider", "countryCode", "statusCode",
            "code_challenge", "code_challenge_method", "grant_type", "client_id", "redirect_uri", "state", "nonce", "verification_uri",
            "interval",
        ])
    func publicNames(name: String) {
        #expect(!LogRedaction.isSecretName(name))
    }

    @Test(
        "credentials are recognised by their shape whatever their field",
        arguments: [
            "Bearer abc", "bearer abc", "Basic dXNlcjpwYXNz", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
            "your token is eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln, keep it",
        ])
    func credentialShapes(value: String) {
        #expect(LogRedaction.looksLikeCredential(value))
    }

    @Test("ordinary values are not taken for credentials", arguments: ["hello", "Login successful", "eyJ", "user-1", "a.b.c"])
    func ordinaryValues(value: String) {
        #expect(!LogRedaction.looksLikeCredential(value))
    }

    @Test("URLs keep their path and ordinary query items; tokens, codes and user-info passwords are masked")
    func urls() throws {
        let cases: [(String, String)] = [
            ("ws://localhost:8080/ws?token=SECRET", "ws://localhost:8080/ws?token=‹redacted›"),
            ("http://h/users/search?query=bob&access_token=SECRET", "http://h/users/search?query=bob&access_token=‹redacted›"),
            ("http://h/cb?code=SECRET&state=xyz#id_token=SECRET", "http://h/cb?code=‹redacted›&state=xyz#id_token=‹redacted›"),
            ("http://user:SECRET@h/api", "http://user:‹redacted›@h/api"),
            ("http://h/api/auth/login", "http://h/api/auth/login"),
        ]
        for (raw, expected) in cases {
            let url = try #require(URL(string: raw))
            #expect(LogRedaction.url(url) == expected)
        }
    }

    @Test("headers: Authorization, cookies and token headers are masked, others kept")
    func headers() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer SECRET", "X-User-Id": "42", "Cookie": "sid=SECRET", "Set-Cookie": "sid=SECRET; HttpOnly",
            "X-Refresh-Token": "SECRET", "Content-Type": "application/json", "X-Debug": "Bearer SECRET",
        ]
        let masked = LogRedaction.headers(headers)
        #expect(masked["X-User-Id"] == "42")
        #expect(masked["Content-Type"] == "application/json")
        for name in ["Authorization", "Cookie", "Set-Cookie", "X-Refresh-Token", "X-Debug"] {
            #expect(masked[name] == LogRedaction.mask)
        }
    }

    @Test("JSON bodies: secret fields are masked at any depth, in arrays and envelopes; null stays null")
    func jsonBodies() throws {
        let body = #"""
            {"success":true,"message":"ok","data":{"accessToken":"SECRET","user":{"id":"u1","email":"a@b.c"},
             "sessions":[{"refresh_token":"SECRET"},{"RefreshToken":"SECRET"}],"nested":{"deeper":{"Password":"SECRET"}}},
             "refreshToken":null,"ExpiresIn":1800}
            """#
        let logged = try #require(LogRedaction.body(Data(body.utf8)))
        #expect(!logged.contains("SECRET"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(logged.utf8)) as? [String: Any])
        let data = try #require(object["data"] as? [String: Any])
        #expect(data["accessToken"] as? String == LogRedaction.mask)
        #expect((data["user"] as? [String: Any])?["email"] as? String == "a@b.c")
        #expect(object["refreshToken"] is NSNull)
        #expect(object["ExpiresIn"] as? Int == 1800)
        #expect(object["message"] as? String == "ok")
    }

    @Test("form bodies are masked like queries; other bodies are shown only by size")
    func otherBodies() {
        #expect(LogRedaction.body(Data("username=kid&password=SECRET".utf8)) == "username=kid&password=‹redacted›")
        #expect(LogRedaction.body(Data("<html>SECRET</html>".utf8)) == "‹19 bytes›")
        #expect(LogRedaction.body(Data("\"Code sent\"".utf8)) == "\"Code sent\"")
        #expect(LogRedaction.body(Data()) == nil)
        #expect(LogRedaction.body(nil) == nil)
    }

    @Test("a log entry and its line hold only masked text")
    func entryLine() throws {
        let url = try #require(URL(string: "http://h/api/auth/refresh?token=SECRET"))
        let request = HTTPRequest(
            method: "POST", url: url, headers: ["Authorization": "Bearer SECRET"], body: Data(#"{"RefreshToken":"SECRET"}"#.utf8))
        let response = HTTPResponse(
            status: 200, headers: ["Set-Cookie": "SECRET"], body: Data(#"{"AccessToken":"SECRET","TokenType":"bearer"}"#.utf8))
        let entry = HTTPLogEntry(request: request, response: .success(response), duration: .milliseconds(12))
        #expect(entry.status == 200)
        #expect(!entry.description.contains("SECRET"))
        #expect(entry.description.hasPrefix("POST http://h/api/auth/refresh?token=‹redacted› → 200 in 12 ms"))
        #expect(entry.description.contains(#""TokenType":"bearer""#))
        let failed = HTTPLogEntry(request: request, response: .failure(.timeout), duration: .seconds(30))
        #expect(failed.description.hasPrefix("POST http://h/api/auth/refresh?token=‹redacted› → no answer (timeout) in 30000 ms"))
        let lines = Locked<[String]>([])
        LineLogger { line in lines.withLock { $0.append(line) } }.record(entry)
        #expect(lines.withLock { $0 } == [entry.description])
    }

    @Test("a logging transport records each exchange, answered or not, and passes answers through")
    func loggingTransport() async throws {
        let recorder = HTTPLogRecorder()
        let transport = LoggingTransport(
            ScriptedTransport { request in
                request.url.lastPathComponent == "down" ? .failure(.network) : Answers.status(204)
            }, logger: recorder)
        let up = try #require(URL(string: "http://h/up"))
        let down = try #require(URL(string: "http://h/down"))
        #expect(try await transport.send(HTTPRequest(method: "GET", url: up)).status == 204)
        await #expect(throws: TransportError.network) { try await transport.send(HTTPRequest(method: "GET", url: down)) }
        #expect(recorder.entries.map(\.status) == [204, nil])
        #expect(recorder.lines.count == 2)
    }
}
