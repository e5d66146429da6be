import AuthCore
import AuthDiagrams
import Testing

extension DocumentedFlow: CustomTestStringConvertible {
    public var testDescription: String { id }
}

@Suite("Documented flows")
struct DocumentedFlowTests {
    @Test("every documented flow ends in the state and with the effects its seed documents", arguments: DocumentedFlows.all)
    func documentedFlow(_ flow: DocumentedFlow) {
        let run = flow.run()
        let failures = flow.failures(of: run)
        #expect(failures.isEmpty, "\(flow)\n\(failures.joined(separator: "\n"))\ntrace:\n\(run.log.joined(separator: "\n"))")
    }
}
