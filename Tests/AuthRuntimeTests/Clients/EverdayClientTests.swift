import AuthCore
import AuthRuntime
import Foundation
import Testing

@Suite("Client: Everday", .timeLimit(.minutes(15)))
struct EverdayClientTests {
    static let password = "Passw0rd!123"
    static let pending = "Account request submitted. A parent must approve this account before sign in."

    static func client(_ stack: EndToEndStack, vault: MemoryVault = MemoryVault()) -> EverdayClient {
        EverdayClient(baseURL: stack.baseURL, vault: vault, clock: stack.clock)
    }

    @Test(
        "register → pending approval; sign-in before approval → pending approval; after it → signed in; a wrong password throws the server's message")
    func approvalGate() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let auth = Self.client(stack)
            let registered = try await auth.register(
                username: "newkid", password: Self.password, email: "newkid@example.com", displayName: "New Kid")
            #expect(registered == .pendingApproval(message: Self.pending))
            let early = try await auth.signIn(username: "newkid", password: Self.password)
            guard case .pendingApproval = early else {
                Issue.record("signed in before approval: \(early)")
                return
            }
            #expect(await auth.authState == .pendingApproval)
            #expect(stack.server.approve(username: "newkid"))
            let wrong = await authError { try await auth.signIn(username: "newkid", password: "Wr0ngPassword!") }
            #expect(wrong == .server(.unauthorized("Invalid username or password.")))
            #expect(wrong?.errorDescription == "Invalid username or password.")
            let signedIn = try await auth.signIn(username: "newkid", password: Self.password)
            #expect(signedIn.user?.email == "newkid@example.com")
            #expect(await auth.isSignedIn)
            await auth.signOut()
            #expect(await auth.authState == .signedOut)
            await auth.stop()
        }
    }

    @Test(
        "a child told to change the password (RequirePasswordChange) changes it against the deployed form and goes on signed in; a wrong current password throws and keeps the session"
    )
    func childChangesThePassword() async throws {
        try await EndToEndStack.with(.everday, configure: { $0.answerAsDeployed() }) { stack in
            let vault = MemoryVault()
            let auth = Self.client(stack, vault: vault)
            let registered = try await auth.register(username: "newkid", password: Self.password)
            #expect(registered == .pendingApproval(message: Self.pending), "the deployed server answers 201")
            #expect(stack.server.approve(username: "newkid"))
            #expect(stack.server.setRequirePasswordChange(username: "newkid", true))
            let signedIn = try await auth.signIn(username: "newkid", password: Self.password)
            guard case .passwordChangeRequired = signedIn else {
                Issue.record("no password change demanded: \(signedIn)")
                return
            }
            let first = try #require(vault.credentials?.refreshToken?.reveal())

            let wrong = await authError { try await auth.changePassword(old: "Wr0ng-Passw0rd!", new: "N3wPassw0rd!456") }
            #expect(wrong == .server(.incorrectPassword("Invalid credentials")))
            #expect(wrong?.errorDescription == "The current password is incorrect.")
            #expect(await auth.authState == .passwordChangeRequired(try #require(signedIn.user)))

            let short = await authError { try await auth.changePassword(old: Self.password, new: "Short0ne!") }
            #expect(short == .server(.badRequest("Password must be at least 12 characters")), "the deployed server's 12-character rule")

            let changed = try await auth.changePassword(old: Self.password, new: "N3wPassw0rd!456")
            guard case .signedIn(let user) = changed, user.id == "newkid", !user.passwordChangeRequired else {
                Issue.record("not signed in again with the new password: \(changed)")
                return
            }
            #expect(await auth.isSignedIn)
            #expect(stack.server.refreshTokenStatus(first) != .live, "the server revoked the old pair")
            #expect(vault.credentials?.refreshToken?.reveal() != first)
            await auth.signOut()
            let old = await authError { try await auth.signIn(username: "newkid", password: Self.password) }
            #expect(old?.errorDescription == "Invalid username or password.")
            await auth.stop()
        }
    }

    @Test("a parent registers two children in a row: the second registration starts over from pending approval; both await approval")
    func registersTwoChildrenInARow() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let auth = Self.client(stack)
            let first = try await auth.register(username: "firstkid", password: Self.password, email: "firstkid@example.com")
            #expect(first == .pendingApproval(message: Self.pending))
            #expect(await auth.authState == .pendingApproval)
            let second = try await auth.register(username: "secondkid", password: Self.password, email: "secondkid@example.com")
            #expect(second == .pendingApproval(message: Self.pending))
            #expect(await auth.authState == .pendingApproval)
            #expect(stack.server.ledger.requests("POST", "/api/auth/register") == 2)
            #expect(stack.server.approve(username: "firstkid"))
            #expect(stack.server.approve(username: "secondkid"), "the second account exists and awaits approval too")
            let signedIn = try await auth.signIn(username: "secondkid", password: Self.password)
            #expect(signedIn.user?.email == "secondkid@example.com")
            await auth.stop()
        }
    }

    @Test("a duplicate registration (from another device) throws the server's message")
    func duplicate() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let first = Self.client(stack)
            _ = try await first.register(username: "newkid", password: Self.password)
            await first.stop()
            let auth = Self.client(stack)
            let again = await authError { try await auth.register(username: "newkid", password: Self.password) }
            #expect(again == .server(.conflict("Username already exists.")))
            #expect(again?.errorDescription == "Username already exists.")
            await auth.stop()
        }
    }

    @Test("forgot → the e-mailed token resets the password; the old one is refused, the new one signs in; a used token throws the server's message")
    func forgotAndReset() async throws {
        try await EndToEndStack.with(.everday) { stack in
            let auth = Self.client(stack)
            _ = try await auth.register(username: "newkid", password: Self.password, email: "newkid@example.com")
            #expect(stack.server.approve(username: "newkid"))
            let sent = try await auth.forgotPassword(identifier: "newkid")
            #expect(sent.resendAvailableIn >= .zero)
            let token = try stack.lastCode(to: "newkid@example.com")
            try await auth.resetPassword(token: token, newPassword: "N3wPassw0rd!456")
            let old = await authError { try await auth.signIn(username: "newkid", password: Self.password) }
            #expect(old?.errorDescription == "Invalid username or password.")
            #expect(try await auth.signIn(username: "newkid", password: "N3wPassw0rd!456").user?.email == "newkid@example.com")
            await auth.signOut()
            _ = try await auth.forgotPassword(identifier: "newkid")
            let reused = await authError { try await auth.resetPassword(token: token, newPassword: "Another0ne!789") }
            #expect(reused?.errorDescription == "Invalid or expired reset token.")
            await auth.stop()
        }
    }
}
