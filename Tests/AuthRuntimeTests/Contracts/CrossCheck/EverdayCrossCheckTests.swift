import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Cross-check against the reference server: Everday", .timeLimit(.minutes(15)))
struct EverdayCrossCheckTests {
    static let pending = "Account pending approval. A parent must approve this account before sign in."

    static func register(_ everday: ContractClient) async throws -> Reply {
        try await everday.send(
            .register(
                RegistrationDetails(
                    identifier: .username(try Typed.username("newkid")), password: try Typed.password("Passw0rd!123"),
                    name: try Typed.name("New Kid"), email: try Typed.email("newkid@example.com"), discordHandle: "newkid#1234")))
    }

    static func login(_ everday: ContractClient, _ username: String = "newkid", _ password: String = "Passw0rd!123") async throws -> Reply {
        try await everday.send(.signIn(.username(try Typed.username(username)), try Typed.password(password)))
    }

    @Test("registration is pending approval; login answers 403 pending until a parent approves over HTTP, then the documented grant")
    func approvalGated() async throws {
        try await withReference(.everday) { everday in
            #expect(
                try await Self.register(everday)
                    == .pendingApproval(
                        "Account request submitted. A parent must approve this account before sign in."))
            #expect(try await Self.login(everday) == .failed(.pendingApproval(Self.pending)))

            guard let parent = try await Self.login(everday, "parent", "ParentPassw0rd!").grant() else { return }
            let id = try #require(everday.server.everdayUserID(username: "newkid"))
            let kid = Bearer(token: AccessToken("not-a-parent"), userID: "x")
            #expect(try await everday.protected("PUT", "/settings/users/\(id)/approve", kid).failure == .unauthorized("Invalid or expired token."))
            let approval = try await everday.protected(
                "PUT", "/settings/users/\(id)/approve", Bearer(token: parent.accessToken, userID: parent.user.id))
            #expect(approval == .accepted(nil))

            guard let grant = try await Self.login(everday).grant() else { return }
            #expect(
                grant.user
                    == UserProfile(
                        id: "newkid", email: "newkid@example.com", name: "New Kid", role: .kid, attributes: ["DiscordHandle": .string("newkid#1234")])
            )
            #expect(parent.user.role == .parent)
            #expect(grant.expiry == .after(.seconds(1800)))
            #expect(grant.refreshToken != nil)
            #expect(grant.requiresPasswordChange == false)
        }
    }

    @Test("refresh rotates: the new pair works, the consumed token is refused and its reuse revokes the family")
    func rotatingRefresh() async throws {
        try await withReference(.everday) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            guard let grant = try await Self.login(everday).grant(), let first = grant.refreshToken else { return }
            guard let rotated = try await everday.send(.refresh(first)).tokens(), let second = rotated.refreshToken else { return }
            #expect(second != first)
            #expect(rotated.expiry == .after(.seconds(1800)))
            guard case .failed(.unauthorized) = try await everday.send(.refresh(first)) else {
                Issue.record("a consumed refresh token was accepted")
                return
            }
            guard case .failed(.unauthorized) = try await everday.send(.refresh(second)) else {
                Issue.record("reuse did not revoke the family")
                return
            }
        }
    }

    @Test("logout revokes the refresh token with the bearer; the revoked token cannot refresh")
    func logoutRevokes() async throws {
        try await withReference(.everday) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            guard let grant = try await Self.login(everday).grant(), let refresh = grant.refreshToken else { return }
            let bearer = Bearer(token: grant.accessToken, userID: grant.user.id)
            #expect(try await everday.send(.revoke(refresh, bearer)) == .accepted("Logged out."))
            #expect(try await everday.send(.refresh(refresh)).failure == .unauthorized("Invalid refresh token."))
        }
    }

    @Test("forgot by username or email mails a token; reset-password with it sets the new password")
    func resetByToken() async throws {
        try await withReference(.everday) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            guard case .accepted = try await everday.send(.requestPasswordReset(.usernameOrEmail("newkid"))) else {
                Issue.record("forgot refused")
                return
            }
            let token = try ResetProof(ResetToken(try everday.lastCode(to: "newkid@example.com")))
            let reset = try await everday.send(.resetPassword(.token(token), newPassword: try Typed.password("N3wPassw0rd!456")))
            #expect(reset == .accepted("Password has been reset."))
            #expect(try await Self.login(everday, "newkid", "N3wPassw0rd!456").grant() != nil)
            #expect(
                try await everday.send(.resetPassword(.token(token), newPassword: try Typed.password("Another0ne!")))
                    .failure == .badRequest("Invalid or expired reset token."))
            guard case .accepted = try await everday.send(.requestPasswordReset(.email(try Typed.email("newkid@example.com")))) else {
                Issue.record("forgot by email refused")
                return
            }
        }
    }

    @Test(
        "the document locks nothing; the deployed server answers 403 Account locked after five failed logins, for 15 minutes; both work",
        arguments: [false, true])
    func lockout(_ deployed: Bool) async throws {
        try await withReference(.everday, configure: { if deployed { $0.answerAsDeployed() } }) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            for _ in 0..<5 {
                #expect(try await Self.login(everday, "newkid", "Wr0ngPassw0rd!").failure == .unauthorized("Invalid username or password."))
            }
            let locked = AuthFailure.forbidden("Account locked. Try again later.")
            let right = try await Self.login(everday)
            guard deployed else {
                #expect(right.grant() != nil, "the document has no lockout")
                return
            }
            #expect(right.failure == locked, "even the right password, while locked")
            #expect(right.failure?.isTransient == false)
            #expect(try await Self.login(everday, "parent", "ParentPassw0rd!").grant() != nil, "another account is not locked")
            everday.server.advanceClock(by: 15 * 60 - 1)
            #expect(try await Self.login(everday).failure == locked)
            everday.server.advanceClock(by: 1)
            #expect(try await Self.login(everday).grant() != nil, "the window ended")
            // A success forgets the failures: four more do not lock.
            for _ in 0..<4 { _ = try await Self.login(everday, "newkid", "Wr0ngPassw0rd!") }
            #expect(try await Self.login(everday).grant() != nil)
        }
    }

    @Test("a withdrawn approval makes the account pending again: login and refresh answer the pending-approval 403")
    func withdrawnApproval() async throws {
        try await withReference(.everday) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            guard let grant = try await Self.login(everday).grant(), let refresh = grant.refreshToken else { return }
            #expect(everday.server.withdrawApproval(username: "newkid"))
            #expect(try await everday.send(.refresh(refresh)) == .failed(.pendingApproval(Self.pending)))
            #expect(try await Self.login(everday) == .failed(.pendingApproval(Self.pending)))
            everday.server.approve(username: "newkid")
            #expect(try await everday.send(.refresh(refresh)).tokens() != nil, "the refused refresh consumed nothing")
        }
    }

    @Test("RequirePasswordChange reaches the grant; a taken username is 409")
    func passwordChangeAndConflict() async throws {
        try await withReference(.everday) { everday in
            _ = try await Self.register(everday)
            everday.server.approve(username: "newkid")
            everday.server.setRequirePasswordChange(username: "newkid", true)
            #expect(try await Self.login(everday).grant()?.requiresPasswordChange == true)
            #expect(try await Self.register(everday).failure == .conflict("Username already exists."))
        }
    }
}
