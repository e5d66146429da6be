import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("Client: Subspace", .timeLimit(.minutes(15)))
struct SubspaceClientTests {
    static let password = "Passw0rd!123"

    struct Me: Decodable { let email: String }

    static func client(_ stack: EndToEndStack, vault: MemoryVault = MemoryVault()) -> SubspaceClient {
        SubspaceClient(baseURL: stack.baseURL, vault: vault, clock: stack.clock)
    }

    @Test("register signs in at once; the user, the state and /auth/me agree; a protected call decodes; signOut clears the vault")
    func registerCallSignOut() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let auth = Self.client(stack, vault: vault)
            #expect(await auth.authState == .signedOut)
            let user = try await auth.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password)
            #expect(user.email == "ada@example.com")
            #expect(await auth.isSignedIn)
            #expect(await auth.currentUser == user)
            #expect(try await auth.fetchCurrentUser().email == "ada@example.com")
            let me: Me = try await auth.authorized(HTTPRequest(method: "GET", url: try stack.url("/auth/me")))
            #expect(me.email == "ada@example.com")
            #expect(vault.credentials != nil)
            await auth.signOut()
            #expect(await auth.authState == .signedOut)
            #expect(vault.credentials == nil)
            await auth.stop()
        }
    }

    @Test("sign-in: a wrong password, an unknown email and a duplicate registration throw the server's message")
    func failures() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let auth = Self.client(stack)
            _ = try await auth.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password)
            await auth.signOut()
            let wrong = await authError { try await auth.signIn(email: "ada@example.com", password: "Wr0ngPassword!") }
            #expect(wrong?.errorDescription == "invalid credentials")
            let unknown = await authError { try await auth.signIn(email: "nobody@example.com", password: Self.password) }
            #expect(unknown?.errorDescription == "invalid credentials")
            let duplicate = await authError { try await auth.register(name: "Ada", email: "ada@example.com", password: Self.password) }
            #expect(duplicate == .server(.conflict("email already exists")))
            #expect(duplicate?.errorDescription == "email already exists")
            let user = try await auth.signIn(email: "ada@example.com", password: Self.password)
            #expect(user.email == "ada@example.com")
            await auth.stop()
        }
    }

    @Test("invalid input is refused before any request, with a message a form can show")
    func invalidInput() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let auth = Self.client(stack)
            let short = await authError { try await auth.register(name: "Ada", email: "ada@example.com", password: "short") }
            #expect(short?.errorDescription?.isEmpty == false)
            if case .rejected(.invalid) = short {} else { Issue.record("not refused as invalid: \(String(describing: short))") }
            let email = await authError { try await auth.signIn(email: "not-an-email", password: Self.password) }
            if case .rejected(.invalid) = email {} else { Issue.record("not refused as invalid: \(String(describing: email))") }
            #expect(stack.received("POST", "/auth/register") == 0)
            #expect(stack.received("POST", "/auth/login") == 0)
            await auth.stop()
        }
    }

    @Test("signed out, a protected call and /auth/me throw 'not signed in'; signed in, a second sign-in is refused")
    func wrongMoment() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let auth = Self.client(stack)
            let call = await authError { try await auth.authorized(HTTPRequest(method: "GET", url: try stack.url("/auth/me"))) }
            #expect(call == .rejected(.notSignedIn))
            #expect(call?.errorDescription == Rejection.notSignedIn.description)
            #expect(await authError { try await auth.fetchCurrentUser() } == .rejected(.notSignedIn))
            _ = try await auth.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password)
            let again = await authError { try await auth.signIn(email: "ada@example.com", password: Self.password) }
            #expect(again == .rejected(.alreadySignedIn))
            await auth.stop()
        }
    }

    @Test("a relaunch restores the session from the vault, confirmed by /auth/me")
    func relaunch() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let first = Self.client(stack, vault: vault)
            let user = try await first.register(name: "Ada Lovelace", email: "ada@example.com", password: Self.password)
            await first.stop()
            let second = Self.client(stack, vault: vault)
            let restored = await second.authStateChanges.first { $0 != .restoring }
            #expect(restored?.user == user)
            #expect(stack.received("GET", "/auth/me") >= 1)
            await second.stop()
        }
    }

    @Test(
        "the document has no native sign-in; the deployed server signs in at /auth/apple with the shared name and email and at /auth/google; both forms work: the document's server refuses it and password sign-in is unchanged",
        arguments: ServerForm.allCases)
    func nativeSignIn(_ form: ServerForm) async throws {
        try await EndToEndStack.with(.subspace, configure: form.configure) { stack in
            let vault = MemoryVault()
            let auth = SubspaceClient(baseURL: stack.baseURL, vault: vault, clock: stack.clock, logger: stack.log)
            let token = ReferenceServer.providerIdentityToken(provider: "apple", subject: "001234.sub")
            var name = PersonNameComponents()
            name.givenName = "Grace"
            name.familyName = "Hopper"
            switch form {
            case .documented:
                let refused = await authError {
                    try await auth.signIn(withApple: token, userIdentifier: "001234.sub", fullName: name, email: "grace@privaterelay.appleid.com")
                }
                guard case .server(.notFound)? = refused else {
                    Issue.record("the document's server has no such route: \(String(describing: refused))")
                    return
                }
                #expect(await auth.authState == .signedOut)
            case .deployed:
                let user = try await auth.signIn(
                    withApple: token, userIdentifier: "001234.sub", authorizationCode: "c0de.apple", fullName: name,
                    email: "grace@privaterelay.appleid.com")
                #expect(user.name == "Grace Hopper" && user.email == "grace@privaterelay.appleid.com")
                #expect(await auth.currentUser == user)
                #expect(try await auth.fetchCurrentUser().name == "Grace Hopper", "the native grant's token works on /auth/me")
                #expect(vault.credentials?.refreshToken != nil, "the deployed grant's refresh token is kept")
                await auth.signOut()
                let again = try await auth.signIn(withApple: token)
                #expect(again.id == user.id && again.name == "Grace Hopper", "the same account, without the name shared again")
                await auth.signOut()
                let google = ReferenceServer.providerIdentityToken(provider: "google", subject: "g-7", email: "grace@example.com")
                #expect(try await auth.signIn(withGoogle: google).email == "grace@example.com")
                let log = stack.log.lines.joined(separator: "\n")
                #expect(!log.contains(token) && !log.contains("c0de.apple"), "neither the identity token nor the code reaches the log")
            }
            await auth.stop()
        }
    }
}
