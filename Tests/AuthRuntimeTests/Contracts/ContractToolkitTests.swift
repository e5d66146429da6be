import AuthCore
import AuthRuntime
import Foundation
import Testing

/// The reading toolkit as a contract of one's own uses it: only public API.
@Suite("Contract toolkit: the public reading and building API")
struct ContractToolkitTests {
    static let now = Instant(milliseconds: 1_800_000_000_000)
    static let base = URL(string: "https://api.example.com/v2/")!

    static func response(_ status: Int, _ json: String, headers: HTTPHeaders = ["Content-Type": "application/json"]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Data(json.utf8))
    }

    @Test("a JSON request: the path under the base URL, the keys in the order written, the content type, then the headers given")
    func jsonRequest() {
        let build = RequestBuilder(baseURL: Self.base)
        let request = build.json(
            "POST", "/session", ["user": .string("ada"), "pass": .string("p@ss")], headers: [RequestBuilder.bearer(AccessToken("t0k"))])
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://api.example.com/v2/session")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Authorization"] == "Bearer t0k")
        #expect(request.body.map { String(decoding: $0, as: UTF8.self) } == #"{"user":"ada","pass":"p@ss"}"#)
    }

    @Test("a form request percent-encodes every name and value but the unreserved characters, in the order given")
    func formRequest() {
        let request = RequestBuilder(baseURL: Self.base).form(
            "POST", "/token", [("grant_type", "password"), ("username", "ada+1@x.org"), ("password", "a b&c=d~")])
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(
            request.body.map { String(decoding: $0, as: UTF8.self) }
                == "grant_type=password&username=ada%2B1%40x.org&password=a%20b%26c%3Dd~")
        #expect(RequestBuilder.queryValue("é/?") == "%C3%A9%2F%3F")
        #expect(RequestBuilder.formEncoded([("scope", "openid email"), ("state", "s+1")]) == "scope=openid%20email&state=s%2B1", "a URL's query too")
    }

    @Test("a bodiless request has no body and only the headers given")
    func bodilessRequest() {
        let request = RequestBuilder(baseURL: URL(string: "http://h:1")!).bodiless("GET", "/me", headers: [("X-Trace", "1")])
        #expect(request.url.absoluteString == "http://h:1/me")
        #expect(request.body == nil)
        #expect(Array(request.headers).map(\.name) == ["X-Trace"])
    }

    @Test("a body reads as JSON, as plain text, as empty, or as an HTML page, and never traps")
    func responseBody() {
        let json = ResponseBody(Self.response(200, #"{"jwt":" abc ","ok":true,"id":42}"#))
        #expect(json.object?.string("jwt") == "abc")
        #expect(json.object?.bool("ok") == true)
        #expect(json.object?.identifier("id") == "42")
        #expect(json.object?.string("missing") == nil)
        let text = ResponseBody(HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("Code sent".utf8)))
        #expect(text.text == "Code sent" && text.json == nil)
        #expect(ResponseBody(HTTPResponse(status: 204)).isEmpty)
        #expect(ResponseBody(HTTPResponse(status: 200, body: Data("<html><body>Log in to Wi-Fi</body></html>".utf8))).isHTML)
        #expect(ResponseBody(HTTPResponse(status: 200, body: Data([0xFF, 0xFE, 0x00]))).object == nil)
    }

    @Test(
        "the status taxonomy: each error status is its AuthFailure, and a non-error status is malformed",
        arguments: [
            (400, AuthFailure.badRequest("no")), (401, .unauthorized("no")), (403, .forbidden("no")), (404, .notFound("no")),
            (408, .timeout), (409, .conflict("no")), (422, .badRequest("no")), (429, .rateLimited(retryAfter: nil)),
            (500, .server(status: 500, "no")), (503, .server(status: 503, "no")), (302, .malformed), (200, .malformed),
        ])
    func statusTaxonomy(_ status: Int, _ expected: AuthFailure) {
        #expect(AuthFailure(status: status, message: "no", receivedAt: Self.now) == expected)
    }

    @Test("an error answer's failure carries the server's message under the first key that holds one, the request's secrets masked")
    func failureWithMessage() throws {
        let request = APIRequest.signIn(.email(try Email("ada@example.com")), try Password(PasswordInput("Sekret-123")))
        let answer = Self.response(401, #"{"error":"Unauthorized","message":"Sekret-123 is wrong"}"#)
        #expect(answer.failure(messageKeys: ["error", "message"], request: request, receivedAt: Self.now) == .unauthorized("‹redacted› is wrong"))
        #expect(answer.message(keys: ["message"]) == "Sekret-123 is wrong")
        #expect(Self.response(400, #"{"detail":[{"msg":"field required"}]}"#).message(keys: ["detail"]) == "field required")
        #expect(Self.response(500, "{}").failure(messageKeys: ["error"], receivedAt: Self.now) == .server(status: 500, nil))
    }

    @Test("Retry-After in seconds and as an HTTP-date measured from when the answer arrived; unreadable is nil")
    func retryAfter() {
        func answer(_ value: String) -> HTTPResponse { HTTPResponse(status: 429, headers: ["Retry-After": value]) }
        #expect(answer("120").retryAfter(receivedAt: Self.now) == .seconds(120))
        let arrived = Instant(milliseconds: 784_111_777_000 - 30_000)  // 30 s before Sun, 06 Nov 1994 08:49:37 GMT.
        #expect(answer("Sun, 06 Nov 1994 08:49:37 GMT").retryAfter(receivedAt: arrived) == .seconds(30))
        #expect(answer("Sun, 06 Nov 1994 08:49:37 GMT").retryAfter(receivedAt: Self.now) == .zero)
        #expect(answer("soon").retryAfter(receivedAt: Self.now) == nil)
        #expect(HTTPResponse(status: 429).retryAfter(receivedAt: Self.now) == nil)
        #expect(answer("7").failure(messageKeys: [], receivedAt: Self.now) == .rateLimited(retryAfter: .seconds(7)))
    }

    @Test("expiry: expires_in seconds first (a number or a numeric string), else the JWT's exp, else unknown; or the JWT first")
    func expiry() {
        let payload = Data(#"{"exp":1800000600}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let jwt = "eyJhbGciOiJIUzI1NiJ9.\(payload).c2ln"
        #expect(TokenExpiry(expiresIn: .number(3600), accessToken: jwt) == .after(.seconds(3600)))
        #expect(TokenExpiry(expiresIn: .string("90"), accessToken: "opaque") == .after(.seconds(90)))
        #expect(TokenExpiry(expiresIn: nil, accessToken: jwt) == .at(Instant(milliseconds: 1_800_000_600_000)))
        #expect(TokenExpiry(expiresIn: .number(-1), accessToken: "opaque") == .unknown)
        #expect(TokenExpiry(jwt: jwt, otherwise: .number(3600)) == .at(Instant(milliseconds: 1_800_000_600_000)))
        #expect(TokenExpiry(jwt: "opaque", otherwise: .number(3600)) == .after(.seconds(3600)))
    }

    @Test("success answers: an acknowledgement accepts empty, JSON and text bodies and refuses an HTML page; a protected call's answer")
    func successShapes() {
        #expect(HTTPResponse(status: 204).acknowledgement(messageKeys: ["message"]) == .accepted(nil))
        #expect(Self.response(200, #"{"message":"Sent"}"#).acknowledgement(messageKeys: ["message"]) == .accepted("Sent"))
        let portal = HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html></html>".utf8))
        #expect(portal.acknowledgement(messageKeys: ["message"]) == .failed(.malformed))
        #expect(HTTPResponse(status: 200).protectedReply(messageKeys: [], receivedAt: Self.now) == .accepted(nil))
        #expect(
            Self.response(403, #"{"error":"not yours"}"#).protectedReply(messageKeys: ["error"], receivedAt: Self.now)
                == .failed(.forbidden("not yours")))
    }

    @Test("a user's other fields become attributes, never a member that names a secret")
    func attributes() throws {
        let object = try #require(JSONValue.parse(#"{"id":7,"nick":"ada","password_hash":"x","refreshToken":"y","tier":2}"#)?.object)
        let attributes = object.attributes(except: ["id"])
        #expect(Set(attributes.keys) == ["nick", "tier"])
        #expect(attributes["nick"] == .string("ada"))
    }
}
