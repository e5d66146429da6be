import AuthCore
import Testing

@testable import AuthVerification

/// Event labels name the edges of the explored graph and of the diagrams.
@Suite("Event labels")
struct EventLabelTests {
    static let failures: [AuthFailure] = [
        .badRequest(nil), .unauthorized("no"), .pendingApproval(nil), .forbidden(nil), .notFound(nil), .conflict("taken"),
        .rateLimited(retryAfter: .seconds(30)), .rateLimited(retryAfter: nil), .server(status: 503, nil), .network, .timeout,
        .malformed,
    ]

    @Test("a failed answer's label is its class: the case name its description starts with", arguments: failures)
    func failureLabel(_ failure: AuthFailure) {
        let caseName = failure.description.prefix { $0 != "(" }
        #expect(EventLabel.label(of: Reply.failed(failure)) == ("failed(\(caseName))", .failure))
    }
}
