import AuthCore
import AuthRuntime
import Foundation
import Testing

@Suite("Client: Anonymous Wall", .timeLimit(.minutes(15)))
struct AnonymousWallClientTests {
    static let email = "kid@harvard.edu"
    static let password = "Passw0rd!123"

    static func client(_ stack: EndToEndStack) -> AnonymousWallClient {
        AnonymousWallClient(baseURL: stack.baseURL, vault: MemoryVault(), clock: stack.clock)
    }

    /// Registers by code, sets the password and signs out: an account with a password.
    static func account(_ auth: AnonymousWallClient, _ stack: EndToEndStack) async throws {
        _ = try await auth.sendCode(to: email, for: .register)
        _ = try await auth.register(code: try stack.lastCode(to: email))
        try await auth.setPassword(password)
        await auth.signOut()
    }

    /// A wrong code for `code`.
    static func wrong(_ code: String) -> String { code == "000000" ? "111111" : "000000" }

    @Test("code → register (password setup required) → set password → sign out → sign in with it → change it; the wrong old one is refused")
    func registerAndPassword() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let auth = Self.client(stack)
            let sent = try await auth.sendCode(to: Self.email, for: .register)
            #expect(sent.resendAvailableIn == .seconds(60))
            let again = await authError { try await auth.sendCode(to: Self.email, for: .register) }
            #expect(again?.errorDescription == "You can request a new code in 1 min.")
            let registered = try await auth.register(code: try stack.lastCode(to: Self.email))
            guard case .passwordSetupRequired(let user) = registered else {
                Issue.record("registration did not ask for a password: \(registered)")
                return
            }
            #expect(user.email == Self.email)
            #expect(await auth.authState == .passwordSetupRequired(user))
            try await auth.setPassword(Self.password)
            #expect(await auth.isSignedIn)
            await auth.signOut()
            let signedIn = try await auth.signIn(email: Self.email, password: Self.password)
            #expect(signedIn.user?.email == Self.email)
            let wrongOld = await authError { try await auth.changePassword(old: "wrong-old-password", new: "Another0ne!") }
            #expect(wrongOld?.errorDescription == "Current password is incorrect")
            try await auth.changePassword(old: Self.password, new: "Another0ne!")
            await auth.signOut()
            let old = await authError { try await auth.signIn(email: Self.email, password: Self.password) }
            #expect(old?.errorDescription == "Invalid email or password")
            await auth.stop()
        }
    }

    @Test("code sign-in: a wrong code throws the server's message, the right one signs in")
    func codeSignIn() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let auth = Self.client(stack)
            try await Self.account(auth, stack)
            _ = try await auth.sendCode(to: Self.email, for: .login)
            let code = try stack.lastCode(to: Self.email)
            let wrong = await authError { try await auth.signIn(code: Self.wrong(code)) }
            #expect(wrong?.errorDescription == "Invalid or expired verification code")
            #expect(try await auth.signIn(code: code).user?.email == Self.email)
            await auth.stop()
        }
    }

    @Test("reset by code signs in at once with the new password")
    func reset() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let auth = Self.client(stack)
            try await Self.account(auth, stack)
            _ = try await auth.requestPasswordReset(email: Self.email)
            let result = try await auth.resetPassword(code: try stack.lastCode(to: Self.email), newPassword: "R3setPassw0rd!")
            #expect(result.user?.email == Self.email)
            #expect(await auth.isSignedIn)
            await auth.signOut()
            #expect(try await auth.signIn(email: Self.email, password: "R3setPassw0rd!").user?.email == Self.email)
            await auth.stop()
        }
    }

    @Test("an address already registered and a non-school address throw the server's messages")
    func refusedAddresses() async throws {
        try await EndToEndStack.with(.anonymousWall) { stack in
            let auth = Self.client(stack)
            _ = try await auth.sendCode(to: Self.email, for: .register)
            _ = try await auth.register(code: try stack.lastCode(to: Self.email))
            await auth.signOut()
            let taken = await authError { try await auth.sendCode(to: Self.email, for: .register) }
            #expect(taken?.errorDescription == "Email already registered")
            let gmail = await authError { try await auth.sendCode(to: "someone@gmail.com", for: .register) }
            #expect(gmail?.errorDescription == "Only school email addresses are allowed")
            await auth.stop()
        }
    }
}
