import AuthCore
import AuthRuntime
import AuthTestSupport
import Foundation
import Testing

/// What the runner does when its vault cannot be read or written.
@Suite("Runner and vault", .timeLimit(.minutes(15)))
struct RunnerVaultTests {
    @Test("a runner over a corrupt file vault launches unreadable: nobody is signed out and the file is untouched")
    func runnerWithCorruptFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("credentials.json")
        try Data("{not json".utf8).write(to: file)
        let runner = AuthRunner(
            machine: Apps.everday(), contract: StubContract(), transport: ScriptedTransport { _ in .failure(.network) },
            vault: FileVault(directory: directory.url), clock: ManualClock())
        let outcomes = await runner.outcomes()
        let issues = await runner.issues()
        await runner.start()
        #expect(await outcomes.prefixArray(1) == [.vaultUnreadable])
        #expect(await issues.prefixArray(1) == [.vaultUnreadable(.corrupt)])
        #expect(try Data(contentsOf: file) == Data("{not json".utf8))
        #expect(await runner.phase == Apps.everday().initialPhase)
    }

    @Test("a failed write is reported; the new credentials stay in memory and are used")
    func runnerWriteFailure() async throws {
        let vault = MemoryVault()
        vault.failing(save: .system(operation: "write", code: 28))
        let transport = ScriptedTransport { request in
            request.url.lastPathComponent == "signIn" ? Answers.tokens(access: "access-1", refresh: "refresh-1") : Answers.status(200)
        }
        let runner = Sample.runner(Apps.everday(), transport: transport, vault: vault)
        let issues = await runner.issues()
        await runner.send(Sample.everdaySignIn())
        #expect(await issues.prefixArray(1) == [.vaultWriteFailed(.system(operation: "write", code: 28))])
        #expect(vault.credentials == nil)
        #expect(try await runner.authorized(Sample.appRequest).status == 200)
        #expect(transport.received.last?.headers["Authorization"] == "Bearer access-1")
    }
}
