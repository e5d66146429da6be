import AuthCore
@testable import AuthRuntime
import Foundation
import Testing

/// The server's other user fields: Everday's `Role`, VynqTalk's `role` and `status`, Hero365's
/// onboarding fields. Roles are typed; every other key the contract reads into no field is kept as
/// an attribute, and a key that names a secret never is.
@Suite("User fields: roles and the server's other keys")
struct UserFieldsTests {
    static let receivedAt = FixtureTests.receivedAt

    static func decode(_ contract: some BackendContract, _ body: String, for request: APIRequest) -> Reply {
        contract.decode(
            HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8)), for: request,
            receivedAt: receivedAt)
    }

    static func user(_ reply: Reply) -> UserProfile? {
        switch reply {
        case .granted(let grant): grant.user
        case .refreshed(let tokens): tokens.user
        case .user(let user): user
        case .accepted, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened,
            .realtimeClosed, .failed:
            nil
        }
    }

    // MARK: Everday

    @Test("Everday: the document's login and refresh answers carry Role; both are read, with DiscordHandle kept as an attribute")
    func everdayRoleInFixtures() throws {
        for file in ["auth-login.response.200.json", "auth-refresh.response.200.json"] {
            let user = try #require(Self.user(try DeployedFormTests.decoded(.everday, file)), "\(file) carries no user")
            #expect(user.role == .kid)
            #expect(user.role?.rawValue == "Kid")
            #expect(user.attributes == ["DiscordHandle": .string("newkid#1234")], "no token, no field read into the profile")
        }
    }

    @Test("Everday: a Parent's answer says Parent; an answer without Role has none; a refresh answer without Username describes no user")
    func everdayRoles() throws {
        let signIn = APIRequest.signIn(.username(try Username("parent")), try Password(PasswordInput("ParentPassw0rd!")))
        let parent = Self.decode(
            EverdayContract.development, #"{"AccessToken": "a", "RefreshToken": "r", "ExpiresIn": 1800, "Username": "parent", "Role": "Parent"}"#,
            for: signIn)
        #expect(Self.user(parent)?.role == .parent)
        let none = Self.decode(EverdayContract.development, #"{"AccessToken": "a", "Username": "parent"}"#, for: signIn)
        #expect(Self.user(none)?.role == nil)
        #expect(Self.user(none)?.attributes == [:])
        let refreshed = Self.decode(EverdayContract.development, #"{"AccessToken": "a", "Role": "Parent"}"#, for: .refresh(RefreshToken("r")))
        guard case .refreshed(let tokens) = refreshed else {
            Issue.record("not a refresh: \(refreshed)")
            return
        }
        #expect(tokens.user == nil)
    }

    // MARK: VynqTalk

    @Test(
        "VynqTalk: the document's user carries role and status; the deployed server's says userRole and adds a password hash; both are read, the hash never kept"
    )
    func vynqTalkRoleAndStatus() throws {
        let signIn = APIRequest.signIn(.email(try Email("ada@example.com")), try Password(PasswordInput("analytical-engine")))
        let documented = Self.decode(
            VynqTalkContract.development,
            #"{"success": true, "data": {"accessToken": "t", "user": {"id": 7, "name": "Ada", "email": "ada@example.com", "role": "admin", "status": "away"}}}"#,
            for: signIn)
        let user = try #require(Self.user(documented))
        #expect(user.role == "admin")
        #expect(user.attributes == ["status": .string("away")])

        let deployed = try #require(Self.user(try DeployedFormTests.decoded(.vynqTalk, "auth-login.response.200.deployed.json")))
        #expect(deployed.role == "USER")
        #expect(deployed.attributes["status"] == .null)
        #expect(deployed.attributes["messageCount"] == .number(0))
        #expect(deployed.attributes["online"] == .bool(true))
        #expect(deployed.attributes["password"] == nil, "the stored password hash is never kept")
        #expect(deployed.attributes["userRole"] == nil, "read into the role")
    }

    // MARK: Hero365

    @Test("Hero365: the document's user has no onboarding fields; the deployed server's does, and they are kept as attributes")
    func hero365Onboarding() throws {
        let documented = try #require(Self.user(try DeployedFormTests.decoded(.hero365, "auth-signin.response.200.json")))
        #expect(documented.attributes["onboarding_completed"] == nil)
        let deployed = try #require(Self.user(try DeployedFormTests.decoded(.hero365, "auth-signin.response.200.deployed.json")))
        #expect(deployed.role == nil)
        #expect(deployed.attributes["onboarding_completed"]?.bool == false)
        #expect(deployed.attributes["onboarding_completed_at"]?.isNull == true)
        #expect(deployed.attributes["completed_steps"] == .array([]))
        #expect(deployed.attributes["user_metadata"]?.object?["full_name"] == .string("John Doe"))
        #expect(deployed.name == "John Doe")
    }

    @Test("Hero365: /users/me's other keys are attributes too")
    func hero365Me() throws {
        let reply = Self.decode(
            Hero365Contract.development,
            #"{"id": "u1", "email": "a@b.co", "full_name": "A B", "onboarding_completed": true, "completed_steps": ["profile", "business"]}"#,
            for: .currentUser(Bearer(token: AccessToken("t"), userID: "u1")))
        let user = try #require(Self.user(reply))
        #expect(user.attributes["onboarding_completed"] == .bool(true))
        #expect(user.attributes["completed_steps"] == .array([.string("profile"), .string("business")]))
        #expect(user.attributes["full_name"] == nil)
    }

    // MARK: Reading

    @Test("keys that name a secret are never kept, at any depth", arguments: ["password", "password_hash", "accessToken", "api_secret", "hash"])
    func secretsAreDropped(key: String) throws {
        guard case .object(let object)? = JSONValue.parse(#"{"id": "u", "\#(key)": "s3cr3t", "nested": {"\#(key)": "s3cr3t", "ok": 1}}"#) else {
            Issue.record("not an object")
            return
        }
        let attributes = AnswerReading.attributes(object, except: ["id"])
        #expect(attributes == ["nested": .object(["ok": .number(1)])])
    }
}
