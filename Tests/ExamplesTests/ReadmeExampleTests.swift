import AuthCore
import AuthTestSupport
@testable import AuthflowBench
@testable import AuthVerification
import Foundation
@testable import MyAppVerification
import Testing

/// The README's "Verifying your own composition" examples, on a composition that is no shipped
/// app (`myApp`, from the `MyAppVerification` example): five flows as an embedding app composes
/// them — registration and sign-in by email and password, a reset by emailed code that signs in,
/// a session that refreshes with rotation and revokes at logout. Its whole model is derived from
/// the composition: no menu, no case named by hand. The test explores it at 1 request in flight
/// and 1 answer left over, against a server that fails in two ways (a refusal and no network):
/// 1,095 states, a few seconds in a debug build; the verification executable, at 4 and 2.
@Suite("README example")
struct ReadmeExampleTests {
    // The README's lines, as written there.
    @Test func myAppHoldsEveryInvariant() {
        let model = Model(of: myApp, name: "myApp", maxInFlight: 1, maxStale: 1) { $0.failures = [.unauthorized(nil), .network] }
        let report = Explorer.explore(model)
        #expect(report.passed, "\(report.violations) \(report.findings)")
        #expect(report.states > 1_000, "the derived model reaches every flow, the refresh and the revocation")
        // The README gives the states this explores, twice.
        let readme = (try? Self.prose("README.md")) ?? ""
        #expect(readme.contains("(\(BenchFormat.grouped(report.states)) states at these bounds"))
        #expect(readme.contains("at 1 and 1 (\(BenchFormat.grouped(report.states)) with its two failures)"))
    }

    @Test("my app's derived menu keeps the model contract, checked ahead of time as the README says")
    func myMenuKeepsTheContract() {
        let model = Model(of: myApp, name: "myApp", maxInFlight: 1, maxStale: 1) { $0.failures = [.unauthorized(nil), .network] }
        let report = ContractCheck.check(model, states: 2_000)
        #expect(report.passed, "\(report.finding.map(String.init(describing:)) ?? "")")
        #expect(report.compared > 0)
    }

    @Test("the README's verification executable is MyAppVerification's, line for line, and checks myApp at 4 and 2")
    func verificationExecutable() throws {
        let example = try ExamplesTests.readmeBlock("verification", of: "MyAppVerification")
        #expect(example.readme == example.source)
        #expect(example.source.count + 1 <= 6, "a verification executable fits in six lines, the import included")
        #expect(MyAppVerification.models.map(\.name) == ["myApp"])
        #expect(MyAppVerification.models.map { [$0.inFlight, $0.stale] } == [[4, 2]])
    }

    @Test("the README and the DocC article give the states BENCHMARKS.md measured for this example at 4 and 2, and with every failure at 1 and 1")
    func documentedFigures() throws {
        let readme = try Self.prose("README.md")
        let article = try Self.prose("Sources/AuthVerification/AuthVerification.docc/VerifyingYourComposition.md")
        let benchmarks = try #require(
            BenchmarksFile.parse(try String(contentsOf: Checkout.root.appendingPathComponent("BENCHMARKS.md"), encoding: .utf8)))
        // The bench measures this very composition: with the same failures at 4 and 2, and with
        // every documented failure at 1 and 1.
        #expect(String(describing: BenchModels.fiveFlowApp) == String(describing: myApp))
        let verified = try #require(Self.states(ofRow: "user.fiveFlows.twoFailures at 4/2", in: benchmarks))
        let everyFailure = try #require(Self.states(ofRow: "user.fiveFlows at 1/1", in: benchmarks))
        #expect(readme.contains("closes at 4 in flight and 2 left over in \(verified) states"))
        #expect(article.contains("closes at 4 in flight and 2 left over in \(verified) states"))
        #expect(readme.contains("is \(everyFailure) states at 1 and 1"))
    }

    /// The text of `file` (a path from the checkout's root) with every run of white space made one
    /// space: a phrase is found however the text wraps.
    static func prose(_ file: String) throws -> String {
        try String(contentsOf: Checkout.root.appendingPathComponent(file), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The states the row of `benchmarks` whose figure begins with `label` gives in its details
    /// ("50,941 states (closure); …"), as written.
    static func states(ofRow label: String, in benchmarks: BenchmarksFile.Parts) -> String? {
        guard let row = benchmarks.blocks.flatMap(\.rows).first(where: { $0.first?.hasPrefix(label + ",") == true }),
            let details = row.last, let states = details.range(of: " states (")
        else { return nil }
        return String(details[..<states.lowerBound])
    }

    @Test("the verification executable's run passes on myApp (at 1 and 1 in a debug build; swift package verify runs 4 and 2 optimized)")
    func verificationExecutableRuns() {
        var out: [String] = []
        let status = Verification.run(
            MyAppVerification.models, arguments: ["--in-flight", "1", "--stale", "1", "--runs", "20"], out: { out.append($0) }, progress: { _ in },
            endProgress: {}, progressEvery: .seconds(3_600))
        #expect(status == .passed, "\(out.joined(separator: "\n"))")
        #expect(out.contains { $0.hasPrefix("  ✓ closed: ") }, "\(out.joined(separator: "\n"))")
    }
}
