import AuthCore
import Foundation
import Testing

@testable import AuthRuntime
import AuthVerification

@Suite("Contract support: JSON")
struct JSONValueTests {
    @Test("JSON text parses to values, and objects compare by members whatever their order")
    func parsesValues() throws {
        let value = try #require(JSONValue.parse(#"{"b": [1, 2.5, -3e2, true, null], "a": "x\u00e9\n\ud83d\ude00"}"#))
        #expect(value["a"]?.string == "xé\n😀")
        #expect(value["b"] == .array([.number(1), .number(2.5), .number(-300), .bool(true), .null]))
        #expect(value == JSONValue.parse(#"{"a": "x\u00e9\n\ud83d\ude00", "b": [1, 2.5, -3e2, true, null]}"#))
        #expect(value.object?.keys == ["b", "a"])
    }

    @Test("written objects keep the order their keys were given, so bodies read like the API documents")
    func keepsKeyOrder() {
        let body: JSONObject = ["email": .string("student@harvard.edu"), "purpose": .string("register"), "n": .number(1800)]
        #expect(JSONValue.object(body).text == #"{"email":"student@harvard.edu","purpose":"register","n":1800}"#)
        #expect(JSONValue.string("a\"b\\c\u{1}").text == #""a\"b\\c\u0001""#)
    }

    @Test(
        "what is not one complete JSON text is nil, never a trap",
        arguments: [
            "", " ", "{", "[1,]", "{\"a\":}", "01", "1.", "-", "\"\\x\"", "\"\u{1}\"", "nul", "{} {}", "\"\\ud800\"", "1e999",
            "{\"a\" 1}", "[\"unterminated", "{\"a\":1,}", "[1,\n]", "{\"a\":[1,],\"b\":2}", "[}", "{]", "]", "NaN", "+1",
            "/* note */ 1", "{'a':1}", "-1e400",
        ])
    func refusesBrokenText(_ text: String) {
        #expect(JSONValue.parse(text) == nil)
    }

    @Test("nesting deeper than the bound is refused rather than risk the stack")
    func boundsDepth() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(JSONValue.parse(deep) == nil)
        let deepObjects = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
        #expect(JSONValue.parse(deepObjects) == nil)
        let unclosed = String(repeating: "[", count: 100_000)
        #expect(JSONValue.parse(unclosed) == nil)
        let shallow = String(repeating: "[", count: JSONValue.maximumDepth) + String(repeating: "]", count: JSONValue.maximumDepth)
        #expect(JSONValue.parse(shallow) != nil)
        let over = String(repeating: "[", count: JSONValue.maximumDepth + 1) + String(repeating: "]", count: JSONValue.maximumDepth + 1)
        #expect(JSONValue.parse(over) == nil)
        // Brackets inside strings are text, not nesting.
        #expect(JSONValue.parse("\"" + String(repeating: "[{", count: 1_000) + "\"")?.string?.count == 2_000)
    }

    @Test("invalid UTF-8 is refused and a byte-order mark is skipped")
    func checksEncoding() {
        #expect(JSONValue.parse(Data([0x22, 0xFF, 0x22])) == nil)
        #expect(JSONValue.parse(Data([0x7B, 0x22, 0xC3, 0x22, 0x3A, 0x31, 0x7D])) == nil)  // {"<cut é>":1}
        #expect(JSONValue.parse(Data([0xEF, 0xBB, 0xBF]) + Data("{\"a\":1}".utf8))?["a"] == .number(1))
    }

    @Test("only UTF-8 is read: UTF-16 text, which Foundation would accept, is refused")
    func refusesOtherEncodings() throws {
        let text = #"{"a":1}"#
        #expect(JSONValue.parse(try #require(text.data(using: .utf16LittleEndian))) == nil)
        #expect(JSONValue.parse(try #require(text.data(using: .utf16))) == nil)
        #expect(JSONValue.parse(Data("[1,\u{0}2]".utf8)) == nil)
    }

    @Test("true and false are Booleans and numbers are numbers, though Foundation gives both as NSNumber")
    func tellsBooleansFromNumbers() throws {
        let value = try #require(JSONValue.parse("[true, false, 1, 0, 1.0, -1]"))
        #expect(value == .array([.bool(true), .bool(false), .number(1), .number(0), .number(1), .number(-1)]))
        #expect(JSONValue.parse("true")?.number == nil)
        #expect(JSONValue.parse("1")?.bool == nil)
        #expect(JSONValue.parse("0")?.bool == nil)
        #expect(JSONValue.parse(#"{"verified":true,"id":1}"#)?["verified"] == .bool(true))
        #expect(JSONValue.parse(#"{"verified":true,"id":1}"#)?["id"] == .number(1))
    }

    @Test("numbers: -0 is zero, large integers read as the nearest Double, fractions and exponents as written")
    func readsNumbers() throws {
        #expect(JSONValue.parse("-0") == .number(0))
        #expect(JSONValue.parse("-0.0")?.number == 0)
        #expect(JSONValue.parse("-0")?.text == "0")
        #expect(JSONValue.parse("9007199254740993")?.number == 9_007_199_254_740_992)
        for text in ["12345678901234567890", "-9223372036854775809", "123456789012345678901234567890"] {
            #expect(JSONValue.parse(text)?.number == Double(text))
        }
        #expect(JSONValue.parse("1767229200.5")?.number == 1_767_229_200.5)
        #expect(JSONValue.parse("2.5E-3")?.number == 0.0025)
    }

    @Test(
        "a lone scalar is a JSON text too",
        arguments: [
            ("\"Code sent\"", JSONValue.string("Code sent")), ("3", .number(3)), ("null", .null), ("false", .bool(false)), (" true ", .bool(true)),
        ])
    func readsScalars(_ text: String, _ value: JSONValue) {
        #expect(JSONValue.parse(text) == value)
    }

    @Test("an object repeating a key is refused, whichever way the key is spelt, rather than pick one of its values")
    func refusesDuplicateKeys() {
        #expect(JSONValue.parse(#"{"role":"user","role":"admin"}"#) == nil)
        #expect(JSONValue.parse(#"{"role":"user","\u0072ole":"admin"}"#) == nil)
        #expect(JSONValue.parse(#"{"a":{"role":"user","role":"admin"}}"#) == nil)
        #expect(JSONValue.parse("{\"\u{E9}\":1,\"e\u{301}\":2}") == nil)  // one key, told in two normal forms
        #expect(JSONValue.parse(#"{"a":{"b":1},"b":{"a":1}}"#) != nil)  // the same key in two objects
    }

    @Test("keys keep the order they were written, escaped ones decoded, in nested objects and arrays of objects")
    func keepsReadKeyOrder() throws {
        let value = try #require(JSONValue.parse(#"{"z":[{"y":1,"x":{"w":2,"v":3}},{"u":4,"t":5}],"s\u0074":"{\"r\":1}","a\"b":null}"#))
        #expect(value.object?.keys == ["z", "st", "a\"b"])
        #expect(value["z"]?.array?[0].object?.keys == ["y", "x"])
        #expect(value["z"]?.array?[0]["x"]?.object?.keys == ["w", "v"])
        #expect(value["z"]?.array?[1].object?.keys == ["u", "t"])
        #expect(value["st"] == .string(#"{"r":1}"#))
        #expect(value.text == #"{"z":[{"y":1,"x":{"w":2,"v":3}},{"u":4,"t":5}],"st":"{\"r\":1}","a\"b":null}"#)
    }

    @Test("random bytes never trap the parser")
    func survivesRandomBytes() {
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet = Array("{}[]\":,0123456789.-+eEtruefalsn \\u".utf8) + [0x00, 0xC3, 0xA9, 0xFF]
        for _ in 0..<5_000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            _ = JSONValue.parse(Data(bytes))
        }
    }

    @Test("a JSON value's description names its shape, never its text (bodies carry passwords)")
    func descriptionHidesContent() {
        let body = JSONValue.object(["password": .string("MARKER-PW-1")])
        #expect(!"\(body)".contains("MARKER"))
        #expect(!String(reflecting: body).contains("MARKER"))
        #expect("\(body)" == "object(1 members: password)")
    }
}

@Suite("Contract support: JWT exp")
struct JWTClaimsTests {
    static func jwt(_ payload: String) -> String {
        let encoded = Data(payload.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\(encoded).c2lnbmF0dXJl"
    }

    @Test("a JWT's exp claim is its expiry, read without checking the signature")
    func readsExp() {
        #expect(JWTClaims.expiry(of: Self.jwt(#"{"sub":"u1","exp":1767229200}"#)) == .at(.seconds(1_767_229_200)))
        #expect(JWTClaims.expiry(of: Self.jwt(#"{"exp":1767229200.5}"#)) == .at(Instant(milliseconds: 1_767_229_200_500)))
        #expect(JWTClaims.payload(of: Self.jwt(#"{"sub":"u1"}"#))?["sub"] == .string("u1"))
    }

    @Test(
        "no exp, an opaque token, or a token cut short as the API documents print it means expiry unknown, never a crash",
        arguments: [
            jwt(#"{"sub":"u1"}"#), jwt(#"{"exp":"soon"}"#), jwt(#"{"exp":1e300}"#), jwt(#"{"exp":-5}"#), jwt(#"{"exp":null}"#),
            jwt("[1,2]"), jwt("not json"), "opaque...", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...", "eyJhbGc...", "jwt-token-here",
            "a.b.c", "..", "", "a.%%%.c",
        ])
    func unknownExpiry(_ token: String) {
        #expect(JWTClaims.expiry(of: token) == .unknown)
    }

    @Test("a numeric exp sent as a string is still read")
    func expAsString() {
        #expect(JWTClaims.expiry(of: Self.jwt(#"{"exp":"1767229200"}"#)) == .at(.seconds(1_767_229_200)))
    }
}

@Suite("Contract support: dates")
struct ServerDateTests {
    @Test(
        "every date form the API documents print is read, the zoned one by its offset",
        arguments: [
            ("2026-01-30T15:17:41-08:00[America/Los_Angeles]", Int64(1_769_815_061_000)),
            ("2025-10-10T10:00:00Z", 1_760_090_400_000),
            ("2025-10-10T00:00:00Z", 1_760_054_400_000),
            ("2026-01-30T23:17:41Z", 1_769_815_061_000),
            ("2026-01-30T23:17:41.250Z", 1_769_815_061_250),
            ("2026-01-30T15:17:41.123456789-0800", 1_769_815_061_123),
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777_000),
        ])
    func readsForms(_ text: String, _ milliseconds: Int64) {
        #expect(ServerDate.parse(text) == Instant(milliseconds: milliseconds))
    }

    @Test("a region without an offset is looked up in the time-zone database")
    func regionWithoutOffset() {
        #expect(ServerDate.parse("2026-01-30T15:17:41[America/Los_Angeles]") == Instant(milliseconds: 1_769_815_061_000))
    }

    @Test(
        "dates cut short as the API documents print them, or not dates at all, are nil, not a crash",
        arguments: [
            "2026-01-28T...", "2026-01-30T...", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-30T15:17:41",
            "2026-01-30T15:17:41-08:00[", "yesterday", "", "Sun, 32 Nov 1994 08:49:37 GMT", "2026-01-30T25:00:00Z",
        ])
    func refusesOthers(_ text: String) {
        #expect(ServerDate.parse(text) == nil)
    }
}

@Suite("Contract support: error answers")
struct AnswerReadingTests {
    static let now = Instant.seconds(1_767_225_600)

    @Test(
        "statuses map to the backends' taxonomy",
        arguments: [
            (400, AuthFailure.badRequest("m")), (401, .unauthorized("m")), (403, .forbidden("m")), (404, .notFound("m")),
            (408, .timeout), (409, .conflict("m")), (422, .badRequest("m")), (429, .rateLimited(retryAfter: nil)),
            (500, .server(status: 500, "m")), (503, .server(status: 503, "m")), (302, .malformed), (600, .malformed),
        ])
    func taxonomy(_ status: Int, _ failure: AuthFailure) {
        #expect(AnswerReading.failure(status: status, message: "m", headers: [:], receivedAt: Self.now) == failure)
    }

    @Test("a 403 is pending approval only when its message says so, as Everday's detail does")
    func pendingApprovalByMessage() {
        let pending = "Account pending approval. A parent must approve this account before sign in."
        #expect(AnswerReading.failure(status: 403, message: pending, headers: [:], receivedAt: Self.now) == .pendingApproval(pending))
        #expect(AnswerReading.failure(status: 403, message: "access denied", headers: [:], receivedAt: Self.now) == .forbidden("access denied"))
        #expect(AnswerReading.failure(status: 403, message: nil, headers: [:], receivedAt: Self.now) == .forbidden(nil))
    }

    @Test(
        "Retry-After is read as seconds or as an HTTP-date relative to the answer's arrival",
        arguments: [
            ("60", Optional(Interval.seconds(60))), (" 5 ", .seconds(5)), ("0", .zero),
            ("Thu, 01 Jan 2026 00:02:00 GMT", .seconds(120)), ("Wed, 31 Dec 2025 00:00:00 GMT", .zero),
            ("soon", nil), ("-3", nil), ("1.5", nil), ("", nil),
        ])
    func retryAfter(_ header: String, _ wait: Interval?) {
        #expect(AnswerReading.retryAfter(header, receivedAt: Self.now) == wait)
    }

    @Test("a Retry-After too large for an Instant is capped, never an overflow")
    func hugeRetryAfter() {
        #expect(AnswerReading.retryAfter("99999999999999999999999", receivedAt: Self.now) != nil)
        #expect(AnswerReading.retryAfter("9223372036854775807", receivedAt: Self.now) != nil)
    }

    @Test("the server's message is read from detail, error, message, Vapor's reason and FastAPI's validation list")
    func messages() {
        func message(_ body: String, keys: [String] = ["detail", "error", "message", "reason"]) -> String? {
            AnswerReading.message(in: ResponseBody(HTTPResponse(status: 400, body: Data(body.utf8))), keys: keys, request: nil)
        }
        #expect(message(#"{"detail": "Invalid OTP"}"#) == "Invalid OTP")
        #expect(message(#"{"error": "invalid credentials"}"#) == "invalid credentials")
        #expect(message(#"{"error": true, "reason": "Email taken"}"#) == "Email taken")
        #expect(
            message(#"{"detail": [{"loc": ["body", "email"], "msg": "value is not a valid email address", "type": "value_error"}]}"#)
                == "value is not a valid email address")
        #expect(message(#"{"success": false, "data": null, "message": "No"}"#) == "No")
        #expect(message("plain words") == "plain words")
        #expect(message("<html><body>Proxy error</body></html>") == nil)
        #expect(message(#"{"other": "x"}"#) == nil)
    }

    @Test("a message that only repeats the status's reason phrase gives way to the API documents' own wording")
    func reasonPhrasesDropped() {
        let body = ResponseBody(HTTPResponse(status: 500, body: Data(#"{"error": true, "reason": "Internal Server Error"}"#.utf8)))
        let failure = AnswerReading.failure(
            HTTPResponse(status: 500), body: body, keys: ["reason"], request: nil, receivedAt: Self.now)
        #expect(failure == .server(status: 500, nil))
        #expect(failure.userMessage == "Server error, please try again")
        let unauthorized = AnswerReading.failure(status: 401, message: nil, headers: [:], receivedAt: Self.now)
        #expect(unauthorized.userMessage == "Invalid email or password")
    }

    @Test("a server message echoing the request's password, code or token is masked")
    func masksEchoedSecrets() throws {
        let email = try Email("student@mit.edu")
        let request = APIRequest.resetPassword(
            .emailCode(email, try VerificationCode(CodeInput("364752"))), newPassword: try Password(PasswordInput("MARKER-PW-9")))
        let body = ResponseBody(
            HTTPResponse(status: 400, body: Data(#"{"error": "code 364752 rejected for password MARKER-PW-9"}"#.utf8)))
        let message = try #require(AnswerReading.message(in: body, keys: ["error"], request: request))
        #expect(!message.contains("364752") && !message.contains("MARKER"))
        #expect(message == "code ‹redacted› rejected for password ‹redacted›")
    }

    @Test("very long server messages are cut")
    func longMessagesCut() throws {
        let body = ResponseBody(HTTPResponse(status: 400, body: Data(("{\"detail\": \"" + String(repeating: "x", count: 5_000) + "\"}").utf8)))
        let message = try #require(AnswerReading.message(in: body, keys: ["detail"], request: nil))
        #expect(message.count == AnswerReading.maximumMessageLength + 1)
    }
}
