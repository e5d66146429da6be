import AuthCore
import AuthRuntime
import Foundation

/// The fixture library in `Fixtures/`: one folder per documented backend, named by its id, holding
/// the example bodies of the backend's API document and of its deployed server
/// (`<endpoint>.<request|response>[.<status>][.<variant>].json`), a summary of that API
/// (`README.md`) and a hand-written sidecar, `expectations.json`, saying for each file which
/// section of the document it comes from, which `APIRequest` it encodes (method, path, query,
/// headers) or answers, and the `Reply` it must decode to.
///
/// The sidecar is read with Foundation's `JSONDecoder`, never with the `JSONValue` the contracts
/// read answers with, so a parser bug cannot hide behind the expectations it is judged by.
/// `authflow verify` checks every shipped contract against it (``ContractConformance``), and the
/// contract tests take each fixture as a test case.
public enum ContractFixtures {
    /// The sidecar's name in each backend folder.
    public static let sidecarName = "expectations.json"
    /// The API summary's name in each backend folder.
    public static let summaryName = "README.md"

    /// Why the fixture library cannot be read as declared.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the file.
        public var description: String
        /// A problem described by `description`.
        public init(_ description: String) { self.description = description }
    }

    /// Every fixture of `backends` in the library at `root` (`Fixtures/`), each response paired
    /// with the request fixture it answers.
    public static func load(at root: URL, backends: [Backend] = Backend.documented) throws -> [ContractFixture] {
        var fixtures: [ContractFixture] = []
        for backend in backends {
            let sidecar = try sidecar(backend, at: root)
            let byFile = Dictionary(sidecar.fixtures.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in sidecar.fixtures {
                let kind: ContractFixture.Kind
                if let answered = entry.answers {
                    guard let request = byFile[answered] else {
                        throw Problem("\(backend.id)/\(entry.file) answers \(answered), which the sidecar does not list")
                    }
                    kind = .response(answering: request)
                } else {
                    kind = .request
                }
                fixtures.append(ContractFixture(root: root, backend: backend, baseURL: sidecar.baseURL, entry: entry, kind: kind))
            }
        }
        return fixtures
    }

    /// One backend's sidecar in the library at `root`.
    public static func sidecar(_ backend: Backend, at root: URL) throws -> FixtureSidecar {
        let place = root.appendingPathComponent(backend.id).appendingPathComponent(sidecarName)
        guard let data = try? Data(contentsOf: place) else { throw Problem("\(backend.id)/\(sidecarName) cannot be read at \(place.path)") }
        do {
            return try JSONDecoder().decode(FixtureSidecar.self, from: data)
        } catch {
            throw Problem("\(backend.id)/\(sidecarName) is not a sidecar: \(error)")
        }
    }

    /// The fixture file names in one backend's folder: the sidecar and the summary excluded.
    public static func files(_ backend: Backend, at root: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(backend.id).path)
            .filter { $0 != sidecarName && $0 != summaryName }.sorted()
    }
}

/// A backend's `expectations.json`.
public struct FixtureSidecar: Decodable, Sendable {
    /// One fixture file and what it means.
    public struct Entry: Decodable, Sendable {
        /// How a request must go out.
        public struct Exchange: Decodable, Sendable {
            /// `GET`, `POST`, …
            public var method: String
            /// The URL's path.
            public var path: String
            /// The percent-encoded query string, when the request carries one.
            public var query: String?
            /// Every header the request carries, and only those (names in any casing).
            public var headers: [String: String]
        }
        /// The fixture's file name.
        public var file: String
        /// The section of the API document (or of the deployed server) it comes from.
        public var section: String
        /// For requests: the `APIRequest` that encodes to this file (`{"signIn": {…}}`).
        public var request: FixtureJSON?
        /// For requests: method, path and headers.
        public var http: Exchange?
        /// For responses: the request fixture this answers.
        public var answers: String?
        /// For responses: `application/json` unless said otherwise; `text/plain` sends the file's
        /// JSON string as raw text.
        public var contentType: String?
        /// For responses: extra headers (`Retry-After`).
        public var headers: [String: String]?
        /// For responses: the expected reply (`{"failed": {"unauthorized": null}}`).
        public var expect: FixtureJSON?
        /// Where the fixture had to go beyond the document's text.
        public var note: String?
    }
    /// The backend's id.
    public var backend: String
    /// The development server of the backend's API document.
    public var baseURL: String
    /// Every fixture file of the folder.
    public var fixtures: [Entry]
}

/// One fixture file with what its sidecar says of it.
public struct ContractFixture: Sendable {
    /// A request fixture, or a response fixture with the request fixture it answers.
    public indirect enum Kind: Sendable {
        /// A request the contract must encode to this file.
        case request
        /// An answer the contract must decode to the sidecar's reply.
        case response(answering: FixtureSidecar.Entry)
    }

    /// The library the file is in (`Fixtures/`).
    public var root: URL
    /// Whose fixture it is.
    public var backend: Backend
    /// The sidecar's base URL.
    public var baseURL: String
    /// The sidecar's entry.
    public var entry: FixtureSidecar.Entry
    /// Request or response.
    public var kind: Kind

    /// `everday/auth-login.response.401.json`.
    public var name: String { "\(backend.id)/\(entry.file)" }

    /// True for a request fixture.
    public var isRequest: Bool { if case .request = kind { true } else { false } }

    /// The shipped contract at the development server of the backend's API document, which the
    /// sidecar's base URL names.
    public func contract() throws -> any BackendContract {
        guard let contract = BackendContracts.documented.first(where: { $0.backend == backend }) else {
            throw ContractFixtures.Problem("no shipped contract for \(backend.id)")
        }
        guard contract.baseURL.absoluteString == baseURL else {
            throw ContractFixtures.Problem(
                "\(backend.id)/\(ContractFixtures.sidecarName) says the base URL is \(baseURL); the contract's is \(contract.baseURL)")
        }
        return contract
    }

    /// The file's bytes.
    public func bytes() throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(backend.id).appendingPathComponent(entry.file))
    }

    /// The file's JSON.
    public func body() throws -> FixtureJSON { try FixtureJSON.parse(bytes()) }

    /// The `APIRequest` this request fixture, or the request this response answers, comes from.
    public func apiRequest() throws -> APIRequest {
        let source: FixtureSidecar.Entry
        switch kind {
        case .request: source = entry
        case .response(let answering): source = answering
        }
        guard let request = source.request else { throw ContractFixtures.Problem("\(backend.id)/\(source.file) has no request") }
        return try FixtureRequests.apiRequest(request)
    }

    /// The status in the file name (`….response.401.json`).
    public func status() throws -> Int {
        let parts = entry.file.split(separator: ".")
        guard let index = parts.firstIndex(of: "response"), index + 1 < parts.count, let status = Int(parts[index + 1]) else {
            throw ContractFixtures.Problem("\(name) names no status")
        }
        return status
    }

    /// The HTTP answer this response fixture stands for: the file's bytes as they are (a `null`
    /// file is an empty body; a `text/plain` file's JSON string goes out as raw text).
    public func response() throws -> HTTPResponse {
        var headers = HTTPHeaders()
        let raw = try bytes()
        var body = raw
        switch (try FixtureJSON.parse(raw), entry.contentType) {
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
    public func expectedReply() throws -> Reply {
        guard let expect = entry.expect else { throw ContractFixtures.Problem("\(name) has no expect") }
        return try FixtureReplies.reply(expect)
    }
}

/// A JSON value read by Foundation's `JSONDecoder` (Booleans kept apart from numbers), for reading
/// the sidecar and comparing bodies as values.
public enum FixtureJSON: Decodable, Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([FixtureJSON])
    /// An object.
    case object([String: FixtureJSON])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FixtureJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: FixtureJSON].self))
        }
    }

    /// Parses `data` (top-level scalars allowed).
    public static func parse(_ data: Data) throws -> FixtureJSON { try JSONDecoder().decode(FixtureJSON.self, from: data) }

    /// The member `key` of an object.
    public subscript(key: String) -> FixtureJSON? { if case .object(let object) = self { object[key] } else { nil } }

    /// The string, if this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is one.
    public var number: Double? { if case .number(let value) = self { value } else { nil } }
    /// The Boolean, if this is one.
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// The only key of a one-member object (`{"granted": {…}}` → `granted`).
    public var singleKey: (String, FixtureJSON)? {
        guard case .object(let object) = self, object.count == 1, let (key, value) = object.first else { return nil }
        return (key, value)
    }

    /// The keys of an object, sorted (none for other values).
    var keys: [String] { if case .object(let object) = self { object.keys.sorted() } else { [] } }
}

/// Builds `APIRequest`s from the sidecar's `request` objects (`{"signIn": {"email", "password"}}`).
enum FixtureRequests {
    static func apiRequest(_ json: FixtureJSON) throws -> APIRequest {
        guard let (name, fields) = json.singleKey else { throw ContractFixtures.Problem("a request is a one-key object") }
        func text(_ key: String) throws -> String {
            guard let value = fields[key]?.string else { throw ContractFixtures.Problem("\(name) needs \(key)") }
            return value
        }
        func email(_ key: String = "email") throws -> Email { try Email(try text(key)) }
        func password(_ key: String = "password") throws -> Password { try Password(PasswordInput(try text(key))) }
        func code() throws -> VerificationCode { try VerificationCode(CodeInput(try text("code"))) }
        func phone() throws -> PhoneNumber { try PhoneNumber(try text("phone")) }
        func bearer() throws -> Bearer {
            guard let object = fields["bearer"], let token = object["token"]?.string, let user = object["userID"]?.string else {
                throw ContractFixtures.Problem("\(name) needs a bearer")
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
            guard let purpose = CodePurpose(rawValue: try text("purpose")) else { throw ContractFixtures.Problem("bad purpose") }
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
            guard let provider = OAuthProvider(rawValue: try text("provider")) else { throw ContractFixtures.Problem("bad provider") }
            return .oauthURL(provider)
        case "signInNatively":
            guard let provider = OAuthProvider(rawValue: try text("provider")) else { throw ContractFixtures.Problem("bad provider") }
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
        default: throw ContractFixtures.Problem("unknown request \(name)")
        }
    }
}

/// Builds the expected `Reply` from the sidecar's `expect` objects (`{"failed": {"unauthorized": null}}`).
enum FixtureReplies {
    static func reply(_ json: FixtureJSON) throws -> Reply {
        guard let (name, value) = json.singleKey else { throw ContractFixtures.Problem("an expectation is a one-key object") }
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
        default: throw ContractFixtures.Problem("unknown reply \(name)")
        }
    }

    static func failure(_ json: FixtureJSON) throws -> AuthFailure {
        switch json.string {
        case "malformed": return .malformed
        case "timeout": return .timeout
        case "network": return .network
        default: break
        }
        guard let (name, value) = json.singleKey else { throw ContractFixtures.Problem("a failure is a name or a one-key object") }
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
        default: throw ContractFixtures.Problem("unknown failure \(name)")
        }
    }

    static func expiry(_ json: FixtureJSON?) throws -> TokenExpiry {
        if json?.string == "unknown" { return .unknown }
        if let seconds = json?["after"]?.number { return .after(.seconds(Int64(seconds))) }
        if let seconds = json?["at"]?.number { return .at(Instant(milliseconds: Int64((seconds * 1000).rounded()))) }
        throw ContractFixtures.Problem("an expiry is \"unknown\", {\"after\": s} or {\"at\": s}")
    }

    /// `{"id", "email"?, "phone"?, "name"?, "passwordSet"?, "role"?, "attributes"?: {key: JSON}, "isNewUser"?}`.
    static func user(_ json: FixtureJSON?) throws -> UserProfile {
        let attributes: [String: UserAttribute]
        switch json?["attributes"] {
        case .none: attributes = [:]
        case .object(let members)?: attributes = members.mapValues(attribute)
        case .null?, .bool?, .number?, .string?, .array?: throw ContractFixtures.Problem("a user's attributes are an object")
        }
        return UserProfile(
            id: try required(json?["id"]?.string, "user id"), email: json?["email"]?.string, phone: json?["phone"]?.string,
            name: json?["name"]?.string, passwordSet: json?["passwordSet"]?.bool, role: json?["role"]?.string.map { UserRole($0) },
            attributes: attributes, isNewUser: json?["isNewUser"]?.bool)
    }

    static func attribute(_ json: FixtureJSON) -> UserAttribute {
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
        guard let value else { throw ContractFixtures.Problem("missing \(what)") }
        return value
    }
}
