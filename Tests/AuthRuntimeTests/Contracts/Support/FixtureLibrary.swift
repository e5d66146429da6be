import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import Testing

/// The one way tests read `Fixtures/`: each backend's folder holds the example bodies of its API
/// document (`<endpoint>.<request|response>[.<status>][.<variant>].json`), a summary of that
/// document (`README.md`) and a hand-written sidecar, `expectations.json`, saying for each file
/// which section of the document it comes from, which `APIRequest` it encodes (method, path,
/// headers) or answers, and the `Reply` it must decode to.
///
/// The sidecar is read with Foundation's `JSONDecoder`, not with the `JSONValue` under test.
enum FixtureLibrary {
    /// `Fixtures/` at the package root.
    static let root = Checkout.fixtures

    /// The sidecar's name in each backend folder.
    static let sidecarName = "expectations.json"
    /// The API summary's name in each backend folder.
    static let summaryName = "README.md"

    /// Every fixture of every backend, or an empty list when the library cannot be read (the test
    /// "the fixture library loads…" then says why).
    static let all: [FixtureCase] = (try? load()) ?? []
    /// Every request fixture.
    static var requests: [FixtureCase] { all.filter(\.isRequest) }
    /// Every response fixture.
    static var responses: [FixtureCase] { all.filter { !$0.isRequest } }

    /// Reads every backend's sidecar and pairs each entry with its file.
    static func load() throws -> [FixtureCase] {
        var cases: [FixtureCase] = []
        for backend in Backend.documented {
            let sidecar = try sidecar(backend)
            let byFile = Dictionary(sidecar.fixtures.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in sidecar.fixtures {
                let kind: FixtureCase.Kind
                if let answered = entry.answers {
                    guard let request = byFile[answered] else {
                        throw FixtureProblem("\(backend)/\(entry.file) answers \(answered), which the sidecar does not list")
                    }
                    kind = .response(answering: request)
                } else {
                    kind = .request
                }
                cases.append(FixtureCase(backend: backend, baseURL: sidecar.baseURL, entry: entry, kind: kind))
            }
        }
        return cases
    }

    /// One backend's sidecar.
    static func sidecar(_ backend: Backend) throws -> Sidecar {
        let data = try Data(contentsOf: root.appendingPathComponent(backend.id).appendingPathComponent(sidecarName))
        return try JSONDecoder().decode(Sidecar.self, from: data)
    }

    /// The fixture file names in one backend's folder: the sidecar and the summary excluded.
    static func files(_ backend: Backend) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(backend.id).path)
            .filter { $0 != sidecarName && $0 != summaryName }.sorted()
    }

    /// The fixture `file` of `backend`.
    static func fixture(_ backend: Backend, _ file: String) throws -> FixtureCase {
        guard let found = all.first(where: { $0.backend == backend && $0.entry.file == file }) else {
            throw FixtureProblem("no fixture \(backend)/\(file)")
        }
        return found
    }

    /// The bytes of a fixture file.
    static func bytes(_ backend: Backend, _ file: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(backend.id).appendingPathComponent(file))
    }
}

/// Why the fixture library could not be read as declared.
struct FixtureProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A backend's `expectations.json`.
struct Sidecar: Decodable, Sendable {
    /// One fixture file and what it means.
    struct Entry: Decodable, Sendable {
        /// How a request must go out.
        struct Exchange: Decodable, Sendable {
            var method: String
            var path: String
            /// The percent-encoded query string, when the request carries one.
            var query: String?
            var headers: [String: String]
        }
        var file: String
        var section: String
        /// For requests: the `APIRequest` that encodes to this file.
        var request: TestJSON?
        /// For requests: method, path and headers.
        var http: Exchange?
        /// For responses: the request fixture this answers.
        var answers: String?
        /// For responses: `application/json` unless said otherwise; `text/plain` sends the file's
        /// JSON string as raw text.
        var contentType: String?
        /// For responses: extra headers (`Retry-After`).
        var headers: [String: String]?
        /// For responses: the expected reply.
        var expect: TestJSON?
        var note: String?
    }
    var backend: String
    var baseURL: String
    var fixtures: [Entry]
}

/// One fixture file as a test argument.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    /// A request fixture, or a response fixture with the request fixture it answers.
    indirect enum Kind: Sendable {
        case request
        case response(answering: Sidecar.Entry)
    }

    var backend: Backend
    var baseURL: String
    var entry: Sidecar.Entry
    var kind: Kind

    var testDescription: String { "\(backend.id)/\(entry.file)" }

    /// True for a request fixture.
    var isRequest: Bool { if case .request = kind { true } else { false } }

    /// The contract at the sidecar's base URL (the development server of the backend's API document).
    func contract() throws -> any BackendContract {
        guard let url = URL(string: baseURL) else { throw FixtureProblem("bad baseURL \(baseURL)") }
        return switch backend {
        case .anonymousWall: AnonymousWallContract(baseURL: url)
        case .vynqTalk: VynqTalkContract(baseURL: url)
        case .everday: EverdayContract(baseURL: url)
        case .subspace: SubspaceContract(baseURL: url)
        case .hero365: Hero365Contract(baseURL: url)
        default: throw FixtureProblem("no contract for \(backend)")
        }
    }

    /// The file's JSON.
    func body() throws -> TestJSON { try TestJSON.parse(FixtureLibrary.bytes(backend, entry.file)) }

    /// The `APIRequest` this request fixture, or the request this response answers, comes from.
    func apiRequest() throws -> APIRequest {
        let source: Sidecar.Entry
        switch kind {
        case .request: source = entry
        case .response(let answering): source = answering
        }
        guard let request = source.request else { throw FixtureProblem("\(source.file) has no request") }
        return try RequestReading.apiRequest(request)
    }

    /// The status in the file name (`….response.401.json`).
    func status() throws -> Int {
        let parts = entry.file.split(separator: ".")
        guard let index = parts.firstIndex(of: "response"), index + 1 < parts.count, let status = Int(parts[index + 1]) else {
            throw FixtureProblem("\(entry.file) names no status")
        }
        return status
    }

    /// The HTTP answer this response fixture stands for: the file's bytes as they are (a `null`
    /// file is an empty body; a `text/plain` file's JSON string goes out as raw text).
    func response() throws -> HTTPResponse {
        var headers = HTTPHeaders()
        let raw = try FixtureLibrary.bytes(backend, entry.file)
        let json = try TestJSON.parse(raw)
        var body = raw
        switch (json, entry.contentType) {
        case (.null, _):
            body = Data()
        case (.string(let text), "text/plain"):
            headers["Content-Type"] = "text/plain; charset=utf-8"
            body = Data(text.utf8)
        case (_, let declared):
            headers["Content-Type"] = declared ?? "application/json"
        }
        for (name, value) in (entry.headers ?? [:]).sorted(by: { $0.key < $1.key }) { headers[name] = value }
        return HTTPResponse(status: try status(), headers: headers, body: body)
    }

    /// The reply the sidecar expects.
    func expectedReply() throws -> Reply {
        guard let expect = entry.expect else { throw FixtureProblem("\(entry.file) has no expect") }
        return try ReplyReading.reply(expect)
    }
}

/// A JSON value read by Foundation's `JSONDecoder` (Booleans kept apart from numbers), for
/// comparing bodies as values and reading the sidecar.
enum TestJSON: Decodable, Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([TestJSON])
    case object([String: TestJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([TestJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: TestJSON].self))
        }
    }

    /// Parses `data` (top-level scalars allowed).
    static func parse(_ data: Data) throws -> TestJSON { try JSONDecoder().decode(TestJSON.self, from: data) }

    subscript(key: String) -> TestJSON? { if case .object(let object) = self { object[key] } else { nil } }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The only key of a one-member object (`{"granted": {…}}` → `granted`).
    var singleKey: (String, TestJSON)? {
        guard case .object(let object) = self, object.count == 1, let (key, value) = object.first else { return nil }
        return (key, value)
    }
}

/// Builds `APIRequest`s from the sidecar's `request` objects (`{"signIn": {"email", "password"}}`).
enum RequestReading {
    static func apiRequest(_ json: TestJSON) throws -> APIRequest {
        guard let (name, fields) = json.singleKey else { throw FixtureProblem("a request is a one-key object") }
        func text(_ key: String) throws -> String {
            guard let value = fields[key]?.string else { throw FixtureProblem("\(name) needs \(key)") }
            return value
        }
        func email(_ key: String = "email") throws -> Email { try Email(try text(key)) }
        func password(_ key: String = "password") throws -> Password { try Password(PasswordInput(try text(key))) }
        func code() throws -> VerificationCode { try VerificationCode(CodeInput(try text("code"))) }
        func phone() throws -> PhoneNumber { try PhoneNumber(try text("phone")) }
        func bearer() throws -> Bearer {
            guard let object = fields["bearer"], let token = object["token"]?.string, let user = object["userID"]?.string else {
                throw FixtureProblem("\(name) needs a bearer")
            }
            return Bearer(token: AccessToken(token), userID: user)
        }
        func identifier() throws -> SignInIdentifier {
            if fields["username"] != nil { return .username(try Username(try text("username"))) }
            if fields["phone"] != nil { return .phone(try phone()) }
            return .email(try email())
        }
        switch name {
        case "sendEmailCode":
            guard let purpose = CodePurpose(rawValue: try text("purpose")) else { throw FixtureProblem("bad purpose") }
            return .sendEmailCode(try email(), purpose)
        case "registerWithEmailCode": return .registerWithEmailCode(try email(), try code())
        case "signInWithEmailCode": return .signInWithEmailCode(try email(), try code())
        case "sendPhoneCode": return .sendPhoneCode(try phone())
        case "signInWithPhoneCode": return .signInWithPhoneCode(try phone(), try code())
        case "signIn": return .signIn(try identifier(), try password())
        case "register":
            return .register(
                RegistrationDetails(
                    identifier: try identifier(), password: try password(),
                    name: try fields["name"]?.string.map { try PersonName($0) },
                    email: fields["username"] != nil ? try fields["email"]?.string.map { try Email($0) } : nil,
                    discordHandle: fields["discordHandle"]?.string))
        case "requestPasswordReset":
            if fields["email"] != nil { return .requestPasswordReset(.email(try email())) }
            return .requestPasswordReset(.usernameOrEmail(try text("usernameOrEmail")))
        case "resetPassword":
            let newPassword = try password("newPassword")
            if fields["token"] != nil { return .resetPassword(.token(try ResetProof(ResetToken(try text("token")))), newPassword: newPassword) }
            return .resetPassword(.emailCode(try email(), try code()), newPassword: newPassword)
        case "setPassword": return .setPassword(try password(), try bearer())
        case "changePassword": return .changePassword(old: try password("old"), new: try password("new"), try bearer())
        case "oauthURL":
            guard let provider = OAuthProvider(rawValue: try text("provider")) else { throw FixtureProblem("bad provider") }
            return .oauthURL(provider)
        case "signInNatively":
            guard let provider = OAuthProvider(rawValue: try text("provider")) else { throw FixtureProblem("bad provider") }
            return .signInNatively(
                NativeSignIn(
                    provider: provider, identityToken: IdentityToken(try text("identityToken")), userIdentifier: fields["userIdentifier"]?.string,
                    authorizationCode: fields["authorizationCode"]?.string.map(AuthorizationCode.init), givenName: fields["givenName"]?.string,
                    familyName: fields["familyName"]?.string, email: fields["email"]?.string))
        case "refresh": return .refresh(RefreshToken(try text("refreshToken")))
        case "exchangeCode":
            return .exchangeCode(CodeExchange(code: AuthorizationCode(try text("code")), verifier: CodeVerifier(try text("codeVerifier"))))
        case "currentUser": return .currentUser(try bearer())
        case "revoke": return .revoke(RefreshToken(try text("refreshToken")), try bearer())
        case "deleteAccount": return .deleteAccount(try bearer())
        default: throw FixtureProblem("unknown request \(name)")
        }
    }
}

/// Builds the expected `Reply` from the sidecar's `expect` objects (`{"failed": {"unauthorized": null}}`).
enum ReplyReading {
    static func reply(_ json: TestJSON) throws -> Reply {
        guard let (name, value) = json.singleKey else { throw FixtureProblem("an expectation is a one-key object") }
        switch name {
        case "granted":
            return .granted(
                Grant(
                    accessToken: AccessToken(try required(value["accessToken"]?.string, "accessToken")),
                    refreshToken: value["refreshToken"]?.string.map(RefreshToken.init), expiry: try expiry(value["expiry"]),
                    user: try user(value["user"]), requiresPasswordChange: value["requiresPasswordChange"]?.bool ?? false))
        case "refreshed":
            return .refreshed(
                TokenRefresh(
                    accessToken: AccessToken(try required(value["accessToken"]?.string, "accessToken")),
                    refreshToken: value["refreshToken"]?.string.map(RefreshToken.init), expiry: try expiry(value["expiry"]),
                    user: try value["user"].map { try user($0) }))
        case "accepted": return .accepted(value.string)
        case "user": return .user(try user(value))
        case "pendingApproval": return .pendingApproval(value.string)
        case "verificationRequired": return .verificationRequired(value.string)
        case "authorizationURL": return .authorizationURL(try required(value.string, "authorizationURL"))
        case "nativeSignInRequired": return .nativeSignInRequired
        case "failed": return .failed(try failure(value))
        default: throw FixtureProblem("unknown reply \(name)")
        }
    }

    static func failure(_ json: TestJSON) throws -> AuthFailure {
        switch json.string {
        case "malformed": return .malformed
        case "timeout": return .timeout
        case "network": return .network
        default: break
        }
        guard let (name, value) = json.singleKey else { throw FixtureProblem("a failure is a name or a one-key object") }
        switch name {
        case "badRequest": return .badRequest(value.string)
        case "unauthorized": return .unauthorized(value.string)
        case "incorrectPassword": return .incorrectPassword(value.string)
        case "pendingApproval": return .pendingApproval(value.string)
        case "forbidden": return .forbidden(value.string)
        case "notFound": return .notFound(value.string)
        case "conflict": return .conflict(value.string)
        case "rateLimited": return .rateLimited(retryAfter: value.number.map { .seconds(Int64($0)) })
        case "server":
            return .server(status: Int(try required(value["status"]?.number, "status")), value["message"]?.string)
        default: throw FixtureProblem("unknown failure \(name)")
        }
    }

    static func expiry(_ json: TestJSON?) throws -> TokenExpiry {
        if json?.string == "unknown" { return .unknown }
        if let seconds = json?["after"]?.number { return .after(.seconds(Int64(seconds))) }
        if let seconds = json?["at"]?.number { return .at(Instant(milliseconds: Int64((seconds * 1000).rounded()))) }
        throw FixtureProblem("an expiry is \"unknown\", {\"after\": s} or {\"at\": s}")
    }

    /// `{"id", "email"?, "phone"?, "name"?, "passwordSet"?, "role"?, "attributes"?: {key: JSON}, "isNewUser"?}`.
    static func user(_ json: TestJSON?) throws -> UserProfile {
        let attributes: [String: UserAttribute]
        switch json?["attributes"] {
        case .none: attributes = [:]
        case .object(let members)?: attributes = members.mapValues(attribute)
        case .null?, .bool?, .number?, .string?, .array?: throw FixtureProblem("a user's attributes are an object")
        }
        return UserProfile(
            id: try required(json?["id"]?.string, "user id"), email: json?["email"]?.string, phone: json?["phone"]?.string,
            name: json?["name"]?.string, passwordSet: json?["passwordSet"]?.bool, role: json?["role"]?.string.map { UserRole($0) },
            attributes: attributes, isNewUser: json?["isNewUser"]?.bool)
    }

    static func attribute(_ json: TestJSON) -> UserAttribute {
        switch json {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let elements): .array(elements.map(attribute))
        case .object(let members): .object(members.mapValues(attribute))
        }
    }

    private static func required<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw FixtureProblem("missing \(what)") }
        return value
    }
}

extension Reply {
    /// The reply with its user's attributes left out: what a server stamps on a user (creation
    /// dates, flags) is checked by the fixtures, not by comparisons with a live server.
    var withoutUserAttributes: Reply {
        switch self {
        case .user(var user):
            user.attributes = [:]
            return .user(user)
        case .granted(var grant):
            grant.user.attributes = [:]
            return .granted(grant)
        case .refreshed(var tokens):
            tokens.user?.attributes = [:]
            return .refreshed(tokens)
        case .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
            .realtimeClosed, .failed:
            return self
        }
    }
}
