import AuthCore
import AuthVerification
import Testing

@Suite("Models at other bounds")
struct BoundedModelTests {
    @Test("a model explored at lower bounds reaches fewer states, at higher ones more, and each report says its bounds")
    func boundsChangeTheSpace() {
        let model = AnyModel(Models.oneTimeCode(.email))
        #expect((model.inFlight, model.stale) == (4, 2))
        let narrow = model.bounded(inFlight: 1, stale: 1).explore()
        let usual = model.explore()
        #expect(narrow.complete && narrow.violations.isEmpty && usual.passed, "\(narrow.findings)")
        #expect(narrow.bounds == (1, 1) && usual.bounds == (4, 2))
        #expect(narrow.states > 100, "the user still acts at 1/1: \(narrow.states) states")
        #expect(narrow.states < usual.states, "\(narrow.states) at 1/1, \(usual.states) at 4/2")
        #expect(model.bounded(inFlight: 1, stale: 1).name == model.name)
    }

    @Test("a bound of 0 is raised to 1: the user acts only while fewer requests are in flight and fewer answers left over than the bounds")
    func zeroBoundsAreRaised() {
        let model = AnyModel(Models.passwordSignIn())
        let zero = model.bounded(inFlight: 0, stale: 0).explore()
        #expect(zero.bounds == (1, 1))
        #expect(zero.states > 1 && zero.transitions > 0, "the user acted: \(zero.states) states")
    }

    @Test("raising a model to at least 4/2 raises only the lower bounds and keeps a higher one, as verify runs every model")
    func raisingKeepsHigherBounds() {
        let model = AnyModel(Models.passwordSignIn())
        let low = model.bounded(inFlight: 1, stale: 1).raised(toAtLeast: Models.fullBounds)
        #expect((low.inFlight, low.stale) == (4, 2))
        let mixed = model.bounded(inFlight: 6, stale: 1).raised(toAtLeast: Models.fullBounds)
        #expect((mixed.inFlight, mixed.stale) == (6, 2))
        let high = model.bounded(inFlight: 5, stale: 3).raised(toAtLeast: Models.fullBounds)
        #expect((high.inFlight, high.stale) == (5, 3))
        #expect(high.raised(toAtLeast: Models.fullBounds).explore().bounds == (5, 3))
        #expect(low.explore().bounds == (4, 2))
    }
}
