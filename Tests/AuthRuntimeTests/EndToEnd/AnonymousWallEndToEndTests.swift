import AuthCore
@testable import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("End to end: Anonymous Wall", .timeLimit(.minutes(15)))
struct AnonymousWallEndToEndTests {
    typealias Do = AnonymousWallIntents
    static let email = "kid@school.edu"

    @Test("email code → register (signed in, password not set) → set password → sign in with it → change it → the old one is refused")
    func registrationAndPasswords() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.anonymousWall(), vault: vault)
            #expect(await client.send(Do.registerEmail(Self.email)).caseName == "codeSent")
            #expect(stack.server.outbox(to: Self.email).map(\.kind) == [.registrationCode])
            await client.send(Do.registerCode(try stack.lastCode(to: Self.email)))
            #expect(await client.session.map(Accounts.isPasswordSetup) == true)
            #expect(await client.waitFor(.passwordSetupRequired))
            #expect(vault.credentials?.user.passwordSet == false)
            #expect(await client.call(try Accounts.protectedRequest(stack)).failureValue == .rejected(.passwordSetupRequired))

            #expect(await client.send(Do.setPassword("Passw0rd!123")) == .passwordSet)
            #expect(await client.isActive)
            #expect(vault.credentials?.user.passwordSet == true)
            await client.logout()

            await client.send(Do.signIn(Self.email, "Passw0rd!123"))
            #expect(await client.isActive)
            #expect(await client.send(Do.changePassword("Passw0rd!123", "N3wPassw0rd!456")) == .passwordChanged)
            #expect(
                await client.send(Do.changePassword("wrong-old-password", "Another0ne!")) == .failed(.badRequest("Current password is incorrect")))
            #expect(await client.isActive, "a refused change keeps the session")
            await client.logout()

            #expect(await client.send(Do.signIn(Self.email, "Passw0rd!123")) == .failed(.unauthorized("Invalid email or password")))
            #expect(await client.session == nil)
            await client.send(Do.signIn(Self.email, "N3wPassw0rd!456"))
            #expect(await client.isActive)
            _ = await client.stop()
        }
    }

    @Test("code sign-in: a wrong code is refused and the challenge stays; the code from the outbox signs in")
    func codeSignIn() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let client = await stack.client(Apps.anonymousWall())
            try await Accounts.anonymousWall(stack, client, email: Self.email)
            #expect(await client.send(Do.codeSignIn(Self.email)).caseName == "codeSent")
            let code = try stack.lastCode(to: Self.email)
            #expect(
                await client.send(Do.loginCode(code == "000000" ? "111111" : "000000"))
                    == .failed(.badRequest("Invalid or expired verification code")))
            guard case .awaitingCode(let challenge) = await client.phase(of: OneTimeCodeSignIn.Phase.self) else {
                Issue.record("the challenge was not kept after a wrong code: \(await client.phase)")
                return
            }
            #expect(challenge.attemptsLeft == 2)
            await client.send(Do.loginCode(code))
            #expect(await client.isActive)
            #expect(await client.credentials?.user.email == Self.email)
            _ = await client.stop()
        }
    }

    @Test("reset by code signs in at once with fresh credentials; the earlier session's token and the old password are dead")
    func resetWithAutoLogin() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.anonymousWall(), vault: vault)
            try await Accounts.anonymousWall(stack, client, email: Self.email)
            await client.send(Do.signIn(Self.email, Accounts.password))
            let before = try #require(await client.credentials)
            await client.logout()

            #expect(await client.send(Do.requestReset(Self.email)).caseName == "passwordResetRequested")
            #expect(stack.server.outbox(to: Self.email).last?.kind == .passwordResetCode)
            await client.send(Do.reset(code: try stack.lastCode(to: Self.email), newPassword: "R3setPassw0rd!"))
            #expect(await client.isActive, "the reset answer signs in (auto-login)")
            let after = try #require(await client.credentials)
            #expect(after.accessToken != before.accessToken)
            #expect(after.user.id == before.user.id)
            #expect(vault.credentials == after)
            #expect(stack.server.accessTokenStatus(before.accessToken.reveal()) == .revoked)
            #expect(await client.call(try Accounts.protectedRequest(stack, password: "R3setPassw0rd!")).status == 200)
            await client.logout()

            #expect(await client.send(Do.signIn(Self.email, Accounts.password)) == .failed(.unauthorized("Invalid email or password")))
            await client.send(Do.signIn(Self.email, "R3setPassw0rd!"))
            #expect(await client.isActive)
            _ = await client.stop()
        }
    }

    @Test("an address already registered is refused 409, a non-school address 403; neither signs in")
    func registrationRefusals() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let client = await stack.client(Apps.anonymousWall())
            try await Accounts.anonymousWall(stack, client, email: Self.email)
            #expect(await client.send(Do.registerEmail(Self.email)) == .failed(.conflict("Email already registered")))
            #expect(await client.send(Do.registerEmail("someone@gmail.com")) == .failed(.forbidden("Only school email addresses are allowed")))
            #expect(await client.session == nil)
            #expect(stack.server.outbox(to: "someone@gmail.com").isEmpty)
            _ = await client.stop()
        }
    }

    @Test("without refresh, the session ends when the token's expiry passes on the shared clock")
    func sessionExpires() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.anonymousWall(), vault: vault)
            try await Accounts.anonymousWall(stack, client, email: Self.email)
            await client.send(Do.signIn(Self.email, Accounts.password))
            #expect(await client.call(try Accounts.protectedRequest(stack)).status == 200)
            await client.advance(stack.clock, by: .seconds(3599))
            #expect(await client.isActive)
            await client.advance(stack.clock, by: .seconds(1))
            #expect(await client.waitFor(.signedOut(.tokenExpired)))
            #expect(vault.credentials == nil)
            _ = await client.stop()
        }
    }

    @Test(
        "the document says the user carries passwordSet; the deployed server omits it and puts a passwordSet claim in the token; both ask for a password after code registration and code sign-in",
        arguments: ServerForm.allCases)
    func passwordSetupFromEitherForm(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.anonymousWall, configure: form.configure) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.anonymousWall(), vault: vault)
            await client.send(Do.registerEmail(Self.email))
            await client.send(Do.registerCode(try stack.lastCode(to: Self.email)))
            #expect(await client.session.map(Accounts.isPasswordSetup) == true, "registration by code")
            #expect(vault.credentials?.user.passwordSet == false)
            await client.logout()

            let newcomer = "new@school.edu"  // Code sign-in creates the account, with no password.
            await client.send(Do.codeSignIn(newcomer))
            await client.send(Do.loginCode(try stack.lastCode(to: newcomer)))
            #expect(await client.session.map(Accounts.isPasswordSetup) == true, "code sign-in of a new account")
            #expect(await client.send(Do.setPassword(Accounts.password)) == .passwordSet)
            #expect(await client.isActive)
            await client.logout()
            await client.send(Do.signIn(newcomer, Accounts.password))
            #expect(await client.isActive, "the claim of a token issued after the password was set says so")
            #expect(await client.credentials?.user.passwordSet == true)
            _ = await client.stop()
        }
    }

    @Test(
        "the document says a wrong password is 401; the deployed server sends 400 {error: Invalid email or password}; both are invalid credentials, and a 409 with or without a body reaches errorDescription",
        arguments: ServerForm.allCases)
    func refusalsInEitherForm(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.anonymousWall, configure: form.configure) { stack in
            let client = await stack.client(Apps.anonymousWall())
            try await Accounts.anonymousWall(stack, client, email: Self.email)
            let wrong = await client.send(Do.signIn(Self.email, "Wr0ng-password"))
            #expect(wrong == .failed(.unauthorized("Invalid email or password")))
            #expect(AuthError(wrong, at: Instant(referenceNow)).errorDescription == "Invalid email or password")
            #expect(await client.session == nil)

            let duplicate = await client.send(Do.registerEmail(Self.email))
            let expected = form == .deployed ? AuthFailure.conflict(nil) : .conflict("Email already registered")
            #expect(duplicate == .failed(expected))
            #expect(AuthError(duplicate, at: Instant(referenceNow)).errorDescription == expected.userMessage)
            #expect(!(AuthError(duplicate, at: Instant(referenceNow)).errorDescription ?? "").isEmpty)
            _ = await client.stop()
        }
    }
}
