import AuthCore
import AuthSupport
@testable import AuthVerification
import Testing

/// What a verification executable (`VerificationCommand`, run by `swift package verify`) prints
/// and exits with, run in-process on small models: the first row of the mutant table, its broken
/// reducer and the real one under the same model.
@Suite("verification executable")
struct VerificationRunTests {
    /// One run's status, results and progress lines.
    struct Run {
        var status: Verification.Status
        var out: [String]
        var progress: [String]

        init(_ models: [AnyModel], _ words: [String], progressEvery: Duration = .seconds(3_600)) {
            var out: [String] = []
            let progress = Locked<[String]>([])
            status = Verification.run(
                models, arguments: words, out: { out.append($0) }, progress: { line in progress.withLock { $0.append(line) } },
                endProgress: {}, progressEvery: progressEvery)
            self.out = out
            self.progress = progress.withLock { $0 }
        }

        var text: String { out.joined(separator: "\n") }
    }

    static let row = MutantTable.rows[0]

    @Test func aModelThatHoldsPasses() {
        let run = Run([Self.row.original], ["--runs", "20"])
        #expect(run.status == .passed, "\(run.text)")
        #expect(run.text.contains("✓ model contract"))
        #expect(run.text.contains("✓ closed: "), "\(run.text)")
        #expect(run.text.contains("✓ fuzzing: 20 walks"), "\(run.text)")
        #expect(run.out.last == "✓ 1 model verified")
    }

    @Test("models that hold pass together, counted in the plural")
    func modelsThatHoldPass() throws {
        let second = try #require(MutantTests.originals.first { $0.name != Self.row.original.name })
        let run = Run([Self.row.original, second], ["--in-flight", "1", "--stale", "1", "--runs", "0"])
        #expect(run.status == .passed, "\(run.text)")
        #expect(run.out.last == "✓ 2 models verified", "\(run.text)")
    }

    @Test("a broken reducer fails, with the invariant and its shortest trace")
    func aBrokenReducerFails() {
        let run = Run([Self.row.original, Self.row.mutant], ["--runs", "20"])
        #expect(run.status == .failed)
        #expect(run.text.contains("✗ \(Self.row.invariant)"), "\(run.text)")
        // The trace's steps are numbered, the last one the shortest trace's length.
        #expect(run.text.contains("  \(Self.row.shortest). ["), "\(run.text)")
        #expect(!run.text.contains("  \(Self.row.shortest + 1). ["), "\(run.text)")
        #expect(run.progress.contains { $0.contains("found \(Self.row.invariant)") }, "each violation is announced as it is found")
        #expect(run.out.last == "✗ verification failed")
    }

    @Test("a limit gives \"not closed\" with how far it came, and exit status 2")
    func aLimitIsNotAPass() {
        let run = Run([Self.row.original], ["--max-states", "5", "--runs", "0"])
        #expect(run.status == .notClosed)
        #expect(run.text.contains("not closed: explored "), "\(run.text)")
        #expect(run.text.contains("the state limit stopped it"), "\(run.text)")
        #expect(!run.text.contains("fuzzing"), "--runs 0 skips fuzzing")
    }

    @Test func progressIsReportedAsItGoes() {
        let run = Run([Self.row.original], ["--runs", "0"], progressEvery: .zero)
        #expect(run.progress.contains { $0.hasPrefix("  exploring \(Self.row.original.name): ") && $0.contains(" states, ") })
    }

    @Test func boundsAndModelsAreChosenOnTheCommandLine() {
        let run = Run(
            [Self.row.original, Self.row.mutant],
            ["--only", Self.row.original.name, "--in-flight", "2", "--stale", "1", "--threads", "1", "--runs", "0"])
        #expect(run.status == .passed, "\(run.text)")
        #expect(run.text.contains("\(Self.row.original.name) (at most 2 in flight, 1 left over)"), "\(run.text)")
        #expect(!run.text.contains(Self.row.mutant.name))
        // A model named twice is verified once.
        let twice = Run([Self.row.original], ["--only", "\(Self.row.original.name),\(Self.row.original.name)", "--runs", "0"])
        #expect(twice.status == .passed, "\(twice.text)")
        #expect(twice.out.last == "✓ 1 model verified", "\(twice.text)")
    }

    @Test(
        "a refused command line runs nothing and says why",
        arguments: [
            (["--in-flight", "0"], "--in-flight takes a number from 1 to 8, not 0"),
            (["--stale", "many"], "--stale takes a number, not 'many'"),
            (["--max-states", "0"], "--max-states takes a number from 1"),
            (["--max-seconds", "0"], "--max-seconds takes a number from 1 to 86400, not 0"),
            (["--threads", "0"], "--threads takes a number from 1 to 64, not 0"),
            (["--only", "nothing.here"], "no model named 'nothing.here'"),
            (["--only", ","], "--only names no model; the models: "),
            (["--only="], "--only names no model; the models: "),
            (["--fast"], "unknown option --fast"),
            (["verify"], "unexpected argument 'verify'"),
            (["--seed"], "--seed needs a value"),
            (["--runs", "99999999999999999999"], "--runs takes a number, not '99999999999999999999'"),
        ])
    func refuses(_ words: [String], _ message: String) {
        let run = Run([Self.row.original], words)
        #expect(run.status == .usage)
        #expect(run.out.first?.contains(message) == true, "\(run.out.first ?? "")")
        #expect(run.text.contains("USAGE"))
        #expect(!run.text.contains("model contract"), "nothing ran")
    }

    @Test("an executable with no model fails rather than passing on nothing")
    func noModelFails() {
        let run = Run([], [])
        #expect(run.status == .failed)
        #expect(run.out == ["✗ no model to verify: list at least one in `models`"])
    }

    @Test func helpRunsNothing() {
        let run = Run([Self.row.mutant], ["--help"])
        #expect(run.status == .passed)
        #expect(run.text.contains("--max-seconds S"))
        #expect(!run.text.contains("model contract"))
    }
}
