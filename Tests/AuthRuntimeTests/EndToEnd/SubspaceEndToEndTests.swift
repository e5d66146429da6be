import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend
import Testing

@Suite("End to end: Subspace", .timeLimit(.minutes(1)))
struct SubspaceEndToEndTests {
    typealias Do = SubspaceIntents

    @Test("registration signs in at once; /auth/me answers with the token; logout clears the vault")
    func registration() async throws {
        try await EndToEndStack.with(.subspace) { stack in
            let vault = MemoryVault()
            let client = await stack.client(Apps.subspace(), vault: vault)
            await client.send(Do.register("Ada", "ada@example.com", "Passw0rd!123"))
            let credentials = try #require(await client.credentials)
            #expect(credentials.user.email == "ada@example.com")
            #expect(vault.credentials == credentials)
            let me = await client.call(HTTPRequest(method: "GET", url: try stack.url("/auth/me")))
            #expect(try me.get().status == 200)
            await client.logout()
            #expect(vault.credentials == nil)
            #expect(await client.session == nil)
        }
    }
}
