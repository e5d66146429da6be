import AuthCore
@testable import AuthRuntime
import Foundation
import Testing

@Suite("Client: VynqTalk", .timeLimit(.minutes(15)))
struct VynqTalkClientTests {
    static let password = "Passw0rd!123"

    @Test("sign up opens the realtime connection; messages arrive; disconnect and connect again; sign out closes it; a wrong password throws")
    func signUpRealtimeSignIn() async throws {
        try await EndToEndStack.with(.vynqTalk) { stack in
            let connector = ScriptedRealtime()
            let auth = VynqTalkClient(baseURL: stack.baseURL, vault: MemoryVault(), realtime: connector, clock: stack.clock)
            let messages = await auth.realtimeMessages()
            let user = try await auth.signUp(name: "Alice", email: "alice@example.com", password: Self.password)
            #expect(user.email == "alice@example.com")
            let opened = try #require(await Self.channel(connector, count: 1))
            opened.deliver(.text("hello"))
            var iterator = messages.makeAsyncIterator()
            #expect(await iterator.next() == .text("hello"))
            await auth.disconnectRealtime()
            #expect(opened.isClosedByClient)
            try await auth.connectRealtime()
            #expect(await Self.channel(connector, count: 2) != nil)
            await auth.signOut()
            #expect(connector.channels.last?.isClosedByClient == true)
            let wrong = await authError { try await auth.signIn(email: "alice@example.com", password: "Wr0ngPassword!") }
            guard case .server = wrong else {
                Issue.record("a wrong password was not the server's refusal: \(String(describing: wrong))")
                return
            }
            #expect(wrong?.errorDescription?.isEmpty == false)
            #expect(try await auth.signIn(email: "alice@example.com", password: Self.password) == user)
            await auth.stop()
        }
    }

    /// The `count`th channel the connector opened, once it has (the connection opens after the
    /// sign-in's answer, on the runner's own time).
    static func channel(_ connector: ScriptedRealtime, count: Int) async -> ScriptedChannel? {
        for _ in 0..<2_000 {
            if connector.channels.count >= count { return connector.channels[count - 1] }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }
}
