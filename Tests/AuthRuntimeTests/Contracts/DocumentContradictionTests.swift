import AuthCore
import AuthRuntime
import Foundation
import Testing

/// Where a backend's API document says two different things, the contract reads both; each test
/// names the contradiction and decodes (or encodes) both forms through the fixtures. Each backend's
/// summary (`Fixtures/<backend>/README.md`) lists its document's contradictions.
@Suite("Where an API document contradicts itself, both forms are supported")
struct DocumentContradictionTests {
    static let receivedAt = FixtureTests.receivedAt

    private func decode(_ backend: Backend, _ file: String) throws -> Reply {
        let fixture = try FixtureLibrary.fixture(backend, file)
        return try fixture.contract().decode(try fixture.response(), for: try fixture.apiRequest(), receivedAt: Self.receivedAt)
    }

    private func encode(_ backend: Backend, _ file: String) throws -> HTTPRequest {
        let fixture = try FixtureLibrary.fixture(backend, file)
        return try fixture.contract().encode(try fixture.apiRequest())
    }

    @Test("Anonymous Wall set and change password answer the whole user in one list and a success message in the other: both are success")
    func passwordAnswersInBothForms() throws {
        for endpoint in ["auth-password-set", "auth-password-change"] {
            let user = try decode(.anonymousWall, "\(endpoint).response.200.json")
            guard case .user(let profile) = user else { Issue.record("\(endpoint): \(user)"); continue }
            #expect(profile.passwordSet == true)
            let message = try decode(.anonymousWall, "\(endpoint).response.200.plain-text.json")
            guard case .accepted(let text) = message else { Issue.record("\(endpoint): \(message)"); continue }
            #expect(text?.isEmpty == false)
        }
    }

    @Test("Anonymous Wall send-code and reset-request answer JSON with a message or a plain string: both read as the same acceptance")
    func acknowledgementsInBothForms() throws {
        for endpoint in ["auth-email-send-code", "auth-password-reset-request"] {
            let json = try decode(.anonymousWall, "\(endpoint).response.200.json")
            let text = try decode(.anonymousWall, "\(endpoint).response.200.plain-text.json")
            #expect(json == text)
            guard case .accepted(.some) = json else { Issue.record("\(endpoint): \(json)"); continue }
        }
    }

    @Test("Anonymous Wall writes the user header X-User-Id and X-User-ID: one header, sent once as the standardized X-User-Id")
    func userHeaderInBothSpellings() throws {
        for file in [
            "auth-password-set.request.json", "auth-password-set.request.second-list.json", "auth-password-change.request.json",
            "auth-password-change.request.second-list.json",
        ] {
            let request = try encode(.anonymousWall, file)
            let spellings = request.headers.filter { $0.name.lowercased() == "x-user-id" }.map(\.name)
            #expect(spellings == ["X-User-Id"], "\(file)")
            #expect(request.headers["X-USER-ID"] == "{userId}")
        }
        let documented = try FixtureLibrary.sidecar(.anonymousWall).fixtures.compactMap(\.http).flatMap(\.headers.keys)
        #expect(documented.contains("X-User-Id") && documented.contains("X-User-ID"))
    }

    @Test("Anonymous Wall users carry passwordSet in one list and omit it in the other: absent reads as nil, never as false")
    func passwordSetPresentOrAbsent() throws {
        guard case .granted(let registered) = try decode(.anonymousWall, "auth-register-email.response.201.json"),
            case .granted(let signedIn) = try decode(.anonymousWall, "auth-login-password.response.200.json")
        else { Issue.record("not granted"); return }
        #expect(registered.user.passwordSet == false)
        #expect(signedIn.user.passwordSet == nil)
    }

    @Test("Anonymous Wall prints createdAt cut short (2026-01-28T...) and zoned ([America/Los_Angeles]): answers with either decode")
    func createdAtInBothForms() throws {
        for file in ["auth-register-email.response.201.json", "auth-password-reset.response.200.json", "auth-login-email.response.200.json"] {
            guard case .granted = try decode(.anonymousWall, file) else { Issue.record("\(file) not granted"); continue }
        }
        #expect(ServerDate.parse("2026-01-28T...") == nil)
        #expect(ServerDate.parse("2026-01-30T15:17:41-08:00[America/Los_Angeles]") == Instant.seconds(1_769_815_061))
    }

    @Test("VynqTalk user ids are a UUID string or an integer, as Requirement 6 allows both: both decode to the same kind of grant")
    func userIDsInBothTypes() throws {
        guard case .granted(let uuid) = try decode(.vynqTalk, "auth-login.response.200.json"),
            case .granted(let integer) = try decode(.vynqTalk, "auth-login.response.200.integer-id.json")
        else { Issue.record("not granted"); return }
        #expect(uuid.user.id == "7c9e6679-7425-40de-944b-e07fc1f90ae7")
        #expect(integer.user.id == "42")
    }

    @Test("VynqTalk failures come in the {success, data, message} envelope (at any status, 200 included) and in Vapor's {error, reason} body")
    func failuresInBothBodies() throws {
        #expect(try decode(.vynqTalk, "auth-login.response.200.success-false.json") == .failed(.unauthorized("Invalid email or password")))
        #expect(try decode(.vynqTalk, "auth-signup.response.400.success-false.json") == .failed(.badRequest("Email is already registered")))
        #expect(try decode(.vynqTalk, "auth-login.response.401.json") == .failed(.unauthorized(nil)))
        #expect(try decode(.vynqTalk, "auth-login.response.403.json") == .failed(.forbidden(nil)))
    }

    @Test("Everday's 403 means 'approval pending or access denied': the detail tells them apart")
    func forbiddenInTwoMeanings() throws {
        guard case .failed(.pendingApproval) = try decode(.everday, "auth-login.response.403.json"),
            case .failed(.forbidden) = try decode(.everday, "auth-login.response.403.access-denied.json")
        else { Issue.record("403s not told apart"); return }
    }

    @Test("Hero365 lists github as supported while its methods and Postman collection name only Google and Apple: all three encode")
    func oauthProvidersInBothLists() throws {
        let contract = Hero365Contract.development
        for provider in OAuthProvider.allCases {
            let request = try contract.encode(.oauthURL(provider))
            #expect(request.method == "GET")
            #expect(request.url.path == "/api/v1/auth/oauth/\(provider.rawValue)")
        }
    }

    @Test(
        "Subspace gives 'email already exists' a body but no status (its table lists no 409): the message survives any 4xx",
        arguments: [400, 409, 422])
    func emailExistsUnderAnyStatus(_ status: Int) throws {
        let fixture = try FixtureLibrary.fixture(.subspace, "auth-register.response.409.json")
        var response = try fixture.response()
        response.status = status
        let reply = SubspaceContract.development.decode(response, for: try fixture.apiRequest(), receivedAt: Self.receivedAt)
        guard case .failed(let failure) = reply else { Issue.record("\(reply)"); return }
        #expect(failure.userMessage == "email already exists")
    }

    @Test("Hero365 calls its 8-day access token 'short-lived': the token's own exp decides, not either word")
    func tokenLifetimeFromExp() throws {
        let token = JWTClaimsTests.jwt(#"{"sub":"u1","exp":1767229200}"#)
        let body = Data(#"{"access_token": "\#(token)", "refresh_token": "r1", "user": {"id": "u1", "email": "user@example.com"}}"#.utf8)
        let reply = Hero365Contract.development.decode(
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body),
            for: .signIn(.email(try Email("user@example.com")), try Password(PasswordInput("SecurePassword123!"))),
            receivedAt: Self.receivedAt)
        guard case .granted(let grant) = reply else { Issue.record("\(reply)"); return }
        #expect(grant.expiry == .at(.seconds(1_767_229_200)))
    }
}
