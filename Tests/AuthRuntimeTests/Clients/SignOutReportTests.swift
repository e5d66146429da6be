import AuthCore
@testable import AuthRuntime
import Foundation
import Testing

/// What `signOutAndEndServerSession()` returns when an owed revocation is tried again beside the
/// logout's own sign-out.
@Suite("signOutAndEndServerSession reports the session it signed out", .timeLimit(.minutes(15)))
struct SignOutReportTests {
    @Test(
        "an owed revocation goes out with the sign-in and is answered last, refused; the logout's own revocation succeeds first: the call returns that the session ended, after both settled"
    )
    func ownReportAfterAnOwedOne() async throws {
        let gate = Gate()
        let transport = ScriptedTransport { request in
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            switch request.url.lastPathComponent {
            case "refresh" where body.contains("refresh-old"):
                return Answers.tokens(access: "access-old-2", refresh: "refresh-old-2")
            case "revoke" where body.contains("refresh-old"):
                _ = await gate.wait()
                return Answers.status(403)  // Refused: settled at once, not tried again.
            case "revoke":
                return Answers.status(200)
            default:
                return Answers.tokens(access: "access-1", refresh: "refresh-1")
            }
        }
        let vault = MemoryVault()
        try vault.saveOwedRevocations([OwedRevocation(refreshToken: RefreshToken("refresh-old"), rounds: 1)])
        let auth = AuthClient(app: Apps.everday(), contract: StubContract(), vault: vault, transport: transport, clock: ManualClock())
        let reports = await auth.serverSignOutReports()
        guard case .signedIn = await auth.send(Sample.everdaySignIn()) else {
            Issue.record("not signed in")
            return
        }
        await transport.waitFor("revoke")  // The owed revocation, held back.
        let opener = Task {
            var iterator = reports.makeAsyncIterator()
            let first = await iterator.next()
            gate.open()
            return (first, await iterator.next())
        }
        let result = await auth.signOutAndEndServerSession()
        let (first, second) = await opener.value
        #expect(first == .ended, "the logout's own revocation settled first")
        guard case .notConfirmed? = second else {
            Issue.record("the owed revocation was not refused after it: \(String(describing: second))")
            return
        }
        #expect(result == .ended, "the report of the session this call signed out, not the owed one's that came last")
        #expect(transport.count("revoke") == 2)
        #expect(vault.owedRevocations.isEmpty)
        await auth.stop()
    }
}
