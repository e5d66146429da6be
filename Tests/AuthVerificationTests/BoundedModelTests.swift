import AuthCore
import AuthVerification
import Testing

@Suite("Models at other bounds")
struct BoundedModelTests {
    @Test("a model explored at lower bounds reaches fewer states, at higher ones more, and each report says its bounds")
    func boundsChangeTheSpace() {
        let model = AnyModel(Models.oneTimeCode(.email))
        #expect((model.inFlight, model.stale) == (4, 2))
        let narrow = model.bounded(inFlight: 1, stale: 0).explore()
        let usual = model.explore()
        #expect(narrow.complete && narrow.violations.isEmpty && usual.passed, "\(narrow.findings)")
        #expect(narrow.bounds == (1, 0) && usual.bounds == (4, 2))
        #expect(narrow.states < usual.states, "\(narrow.states) at 1/0, \(usual.states) at 4/2")
        #expect(model.bounded(inFlight: 1, stale: 0).name == model.name)
    }
}
