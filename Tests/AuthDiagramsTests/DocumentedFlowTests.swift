import AuthCore
import AuthDiagrams
import Testing

extension DocumentedFlow: CustomTestStringConvertible {
    public var testDescription: String { id }
}

@Suite("Documented flows")
struct DocumentedFlowTests {
    @Test("every documented flow ends in the state and with the effects its API document describes", arguments: DocumentedFlows.all)
    func documentedFlow(_ flow: DocumentedFlow) {
        let run = flow.run()
        let failures = flow.failures(of: run)
        #expect(failures.isEmpty, "\(flow)\n\(failures.joined(separator: "\n"))\ntrace:\n\(run.log.joined(separator: "\n"))")
    }
}

@Suite("Documented flows can fail")
struct DocumentedFlowFailureTests {
    static let signIn: [FlowStep] = [
        .user(AnyIntent(PasswordSignIn.Intent.submit(identifier: "john@example.com", password: PasswordInput("password123")))),
        .answer(.signIn, .granted(Grant(accessToken: AccessToken("t"), user: UserProfile(id: "u")))),
    ]

    @Test("a flow that ends elsewhere than documented fails, naming both states")
    func wrongEnd() {
        let flow = DocumentedFlow(
            "test.wrongEnd", backend: .subspace, section: "section", app: Apps.subspace(), steps: Self.signIn,
            endsIn: "signedOut.first.editing")
        #expect(flow.failures(of: flow.run()) == ["ends in signedIn.active.idle, not signedOut.first.editing"])
    }

    @Test("answering a request the reducer never sent fails the flow")
    func requestNeverSent() {
        let flow = DocumentedFlow(
            "test.unsent", backend: .subspace, section: "section", app: Apps.subspace(),
            steps: Self.signIn + [.answer(.refresh, .failed(.network))], endsIn: "signedIn.active.idle")
        let failures = flow.failures(of: flow.run())
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("step 3: no refresh request outstanding") == true)
    }

    @Test(
        "an effect the API document names that does not happen fails the flow",
        arguments: [
            FlowExpectation.vaultCleared, .vaultUntouched, .vaultHolds(access: "other", refresh: nil), .notSent(.signIn),
            .emitted(.offline), .completed(.passwordSet), .completedAs("codeSent"), .sent(.refresh(RefreshToken("r"))),
            .sentCall(with: Bearer(token: AccessToken("t"), userID: "u")),
        ])
    func unmetExpectation(_ expectation: FlowExpectation) {
        let flow = DocumentedFlow(
            "test.expectation", backend: .subspace, section: "section", app: Apps.subspace(), steps: Self.signIn,
            endsIn: "signedIn.active.idle", expecting: [expectation])
        #expect(flow.failures(of: flow.run()).count == 1)
    }

    @Test("a user step that no flow of the app takes fails the flow, naming the intent's type")
    func unroutableStep() {
        let flow = DocumentedFlow(
            "test.unroutable", backend: .subspace, section: "section", app: Apps.subspace(),
            steps: [.user(AnyIntent(CodeRegistration.Intent.requestNewCode))], endsIn: "signedOut.first.editing")
        #expect(flow.failures(of: flow.run()) == ["step 1: no flow of the app takes Intent"])
    }

    @Test("the documented flows have unique ids and cover every backend")
    func idsAndBackends() {
        let ids = DocumentedFlows.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(Set(DocumentedFlows.all.map(\.backend)) == Set(Backend.documented))
    }
}
