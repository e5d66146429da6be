import AuthCore
import Testing

/// The combinators' values write their `==` and `hash(into:)` out (inlinable, for speed), so they
/// are checked here against what the derived ones promise: the case and the payload both count,
/// and equal values hash alike.
@Suite("Composed values compare and hash by case and payload")
struct CompositionEqualityTests {
    typealias Pair = Either<Int, String>

    /// Each pair of distinct values, and whether they should be equal.
    static let eitherPairs: [(Pair, Pair, Bool)] = [
        (.first(1), .first(1), true),
        (.first(1), .first(2), false),
        (.second("a"), .second("a"), true),
        (.second("a"), .second("b"), false),
        (.first(0), .second("0"), false),
        (.second("0"), .first(0), false),
    ]

    @Test("Either: equal only with the same case and an equal value", arguments: 0..<eitherPairs.count)
    func either(_ index: Int) {
        let (lhs, rhs, equal) = Self.eitherPairs[index]
        #expect((lhs == rhs) == equal)
        #expect((rhs == lhs) == equal)
        if equal { #expect(lhs.hashValue == rhs.hashValue) }
    }

    @Test("Either: the case is part of the hash, so first(x) and second(x) land apart in a set")
    func eitherCaseIsHashed() {
        let values: Set<Either<Int, Int>> = [.first(7), .second(7), .first(7)]
        #expect(values.count == 2)
    }

    @Test("Either describes its side and the value inside, without module-qualified type names, and hides what the value hides")
    func eitherDescription() throws {
        let nested: Either<Either<String, Int>, Int> = .first(.second(3))
        #expect(String(describing: nested) == "first(second(3))")
        let password = try Password(PasswordInput("pw-valid-secret"))
        let hidden: Either<Int, Password> = .second(password)
        #expect(!String(describing: hidden).contains("pw-valid-secret"))
        #expect(!String(describing: hidden).contains("Either<"))
    }

    @Test("AppIntent and AppPhase: equal only with the same case and an equal value")
    func appValues() {
        let intents: [AppIntent<Int, Int>] = [.entry(1), .entry(2), .session(1), .session(2)]
        let phases: [AppPhase<Int, Int>] = [.signedOut(1), .signedOut(2), .signedIn(1), .signedIn(2)]
        for (i, lhs) in intents.enumerated() {
            for (j, rhs) in intents.enumerated() { #expect((lhs == rhs) == (i == j), "\(lhs) vs \(rhs)") }
        }
        for (i, lhs) in phases.enumerated() {
            for (j, rhs) in phases.enumerated() { #expect((lhs == rhs) == (i == j), "\(lhs) vs \(rhs)") }
        }
        #expect(Set(intents).count == intents.count)
        #expect(Set(phases).count == phases.count)
    }

    @Test("LifecycleState: the phase and the context both count")
    func lifecycleState() {
        let machine = PasswordSignIn(identifiers: .email)
        let start = machine.initial
        var issued = start
        _ = issued.context.issue()
        #expect(start == machine.initial)
        #expect(start.hashValue == machine.initial.hashValue)
        #expect(start != issued, "a different request counter is a different state")
        var elsewhere = start
        _ = machine.reduce(&elsewhere, .intent(.submit(identifier: Samples.emailText, password: Samples.passwordInput), at: Samples.t0))
        #expect(elsewhere.phase != start.phase)
        #expect(elsewhere != start)
    }
}
