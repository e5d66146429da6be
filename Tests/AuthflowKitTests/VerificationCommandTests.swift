import AuthCore
import AuthSupport
import AuthTestSupport
import AuthVerification
@testable import AuthflowKit
import Foundation
import Testing

extension CommandRun {
    /// Runs `authflow` in-process on `models` instead of the shipped ones.
    init(_ words: [String], models: [AnyModel], fixtures: URL = Checkout.fixtures) {
        var out: [String] = []
        var err: [String] = []
        status = Authflow.run(words, models: models, fixtures: fixtures, out: { out.append($0) }, err: { err.append($0) })
        self.out = out
        self.err = err
    }

    /// Everything written to standard output, as one text.
    var text: String { out.joined(separator: "\n") }
}

/// Everday's password sign-in with one rule broken: an answer to an attempt the user abandoned
/// (start over) still signs in. The smallest planted bug the commands can find: submit, start
/// over, the abandoned attempt's grant — "stale answers change nothing" breaks in 3 events.
struct StaleGrantSignIn: Lifecycle {
    typealias Phase = PasswordSignIn.Phase
    typealias Intent = PasswordSignIn.Intent

    let base = PasswordSignIn(identifiers: .username)

    var initialPhase: PasswordSignIn.Phase { base.initialPhase }

    func step(_ phase: inout PasswordSignIn.Phase, _ event: AuthEvent<PasswordSignIn.Intent>, _ requests: inout FlowContext) -> [AuthEffect] {
        if case .reply(_, .granted(let grant), _) = event, case .enteringCredentials = phase {
            phase = .signedIn(grant)
            return []
        }
        return base.step(&phase, event, &requests)
    }
}

/// The models the command tests run on: two small shipped ones, and the broken sign-in under the
/// shipped sign-in's model.
enum CommandModels {
    static let clean = [AnyModel(Models.passwordSignIn()), AnyModel(Models.registration())]
    static let brokenName = "passwordSignIn.staleGrant"
    static let broken: AnyModel = {
        let shipped = Models.passwordSignIn()
        return AnyModel(
            Model(
                name: brokenName, machine: StaleGrantSignIn(), replies: shipped.replies, finalCases: shipped.finalCases,
                timeHorizon: shipped.timeHorizon
            ) { _ in Menus.passwordSignIn(.username) })
    }()
    static let all = clean + [broken]
    static let brokenInvariant = "stale answers change nothing"
}

/// Parses a command's standard output as JSON.
func json(_ run: CommandRun) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(run.text.utf8))
}

@Suite("authflow arguments")
struct ArgumentsTests {
    /// The options and flags the verification commands take (as `authflow` declares them).
    static let valued: Set<String> = ["depth", "seed", "runs", "length"]
    static let flags: Set<String> = ["json", "help"]

    /// A command line and how it parses.
    struct Parse: Sendable, CustomTestStringConvertible {
        var words: [String]
        var command: String?
        var positional: [String] = []
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var testDescription: String { words.joined(separator: " ") }
    }

    @Test(
        "command lines split into a command, positional arguments, options and flags",
        arguments: [
            Parse(words: ["verify"], command: "verify"),
            Parse(words: ["verify", "--json", "--runs", "5"], command: "verify", options: ["runs": "5"], flags: ["json"]),
            Parse(
                words: ["explore", "session.everday", "--depth", "7"], command: "explore", positional: ["session.everday"], options: ["depth": "7"]),
            Parse(words: ["explore", "--depth=7", "session.everday"], command: "explore", positional: ["session.everday"], options: ["depth": "7"]),
            Parse(
                words: ["fuzz", "oauthSignIn", "--seed", "0x2A", "--runs", "3", "--length", "50", "--json"], command: "fuzz",
                positional: ["oauthSignIn"], options: ["seed": "0x2A", "runs": "3", "length": "50"], flags: ["json"]),
            Parse(words: ["replay", "registration", "--seed", "12"], command: "replay", positional: ["registration"], options: ["seed": "12"]),
            Parse(words: ["--help"], command: nil, flags: ["help"]),
            Parse(words: ["fuzz", "-h"], command: "fuzz", flags: ["help"]),
            Parse(words: [], command: nil),
        ])
    func parses(_ expected: Parse) throws {
        let parsed = try Arguments.parse(expected.words, valued: Self.valued, flags: Self.flags)
        #expect(parsed.command == expected.command)
        #expect(parsed.positional == expected.positional)
        #expect(parsed.options == expected.options)
        #expect(parsed.flags == expected.flags)
    }

    @Test(
        "a command line with an unknown option, a flag given a value, or an option without one is refused, saying which",
        arguments: [
            (["verify", "--fast"], Arguments.Problem.unknown("fast")),
            (["verify", "--json=yes"], .unknown("json")),
            (["fuzz", "oauthSignIn", "--seed"], .missingValue("seed")),
            (["explore", "oauthSignIn", "--depth"], .missingValue("depth")),
        ])
    func refuses(_ words: [String], _ problem: Arguments.Problem) {
        #expect(throws: problem) { try Arguments.parse(words, valued: Self.valued, flags: Self.flags) }
    }

    @Test("seeds are decimal or 0x-hex, up to 2^64 - 1; counts are integers; absent options take the default")
    func numbers() throws {
        let parsed = try Arguments.parse(
            ["fuzz", "--seed", "0xFFFFFFFFFFFFFFFF", "--runs", "12"], valued: Self.valued, flags: Self.flags)
        #expect(try parsed.seed("seed", default: 0) == UInt64.max)
        #expect(try parsed.integer("runs", default: 1) == 12)
        #expect(try parsed.integer("length", default: 77) == 77)
        #expect(try parsed.seed("other", default: 5) == 5)
        #expect(try Arguments.parse(["--seed", "18446744073709551615"], valued: Self.valued, flags: []).seed("seed", default: 0) == UInt64.max)
        #expect(try Arguments.parse(["--seed", "0x2a"], valued: Self.valued, flags: []).seed("seed", default: 0) == 42)
    }

    @Test(
        "a value that is not a number is refused, naming the option and the value",
        arguments: [("seed", "-3"), ("seed", "0xZZ"), ("seed", "18446744073709551616"), ("runs", "many"), ("depth", "4.5")])
    func notANumber(_ option: String, _ value: String) throws {
        let parsed = try Arguments.parse(["--\(option)", value], valued: Self.valued, flags: [])
        #expect(throws: Arguments.Problem.notANumber(option: option, value: value)) {
            _ = option == "seed" ? try parsed.seed(option, default: 0) : UInt64(try parsed.integer(option, default: 0))
        }
    }
}

@Suite("authflow verify, explore, fuzz and replay")
struct VerificationCommandTests {
    // MARK: Usage and refusals

    @Test("--help, -h and help print the usage and exit 0; no command prints it and exits 64")
    func help() {
        for words in [["--help"], ["-h"], ["help"]] {
            let run = CommandRun(words, models: CommandModels.clean)
            #expect(run.status == 0, "\(words)")
            #expect(run.text == Authflow.usage, "\(words)")
        }
        let bare = CommandRun([], models: CommandModels.clean)
        #expect(bare.status == 64)
        #expect(bare.text == Authflow.usage)
        for command in [
            "verify", "explore <model> [--depth N]", "fuzz <model> [--seed S] [--runs N] [--length L]", "replay <model> --seed S", "--json",
        ] {
            #expect(Authflow.usage.contains(command), "the usage does not mention \(command)")
        }
    }

    @Test(
        "a command line authflow refuses exits 64 and says why on standard error, printing nothing else",
        arguments: [
            (["frobnicate"], "unknown command 'frobnicate' (see --help)"),
            (["verify", "--fast"], "unknown option --fast (see --help)"),
            (["explore", "passwordSignIn", "--depth", "deep"], "--depth takes a number, not 'deep'"),
            (["fuzz", "passwordSignIn", "--runs"], "--runs needs a value"),
            (["fuzz", "passwordSignIn", "--seed", "0xG"], "--seed takes a number, not '0xG'"),
            (["explore"], "name a model: passwordSignIn, registration"),
            (["explore", "session.everday"], "no model 'session.everday'; models: passwordSignIn, registration"),
            (["replay", "passwordSignIn"], "replay needs --seed"),
            (["verify", "--length", "x"], "--length takes a number, not 'x'"),
        ])
    func refused(_ words: [String], _ reason: String) {
        let run = CommandRun(words, models: CommandModels.clean)
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err == ["authflow: \(reason)"])
    }

    @Test("list names the models it was given, in order")
    func list() {
        #expect(CommandRun(["list"], models: CommandModels.all).out == ["passwordSignIn", "registration", CommandModels.brokenName])
        #expect(CommandRun(["list"], models: []).out.isEmpty)
    }

    // MARK: explore

    @Test("explore --max-states stops a model short of closure and says so: not closed, how far, exit 0 with nothing found")
    func exploreWithinAStateLimit() {
        let run = CommandRun(["explore", "registration", "--max-states", "5"], models: CommandModels.all)
        #expect(run.status == 0, "\(run.text)")
        #expect(run.out.first?.contains(": 5 states,") == true, "\(run.text)")
        #expect(run.out.last?.hasPrefix("not closed: explored 5 states to depth ") == true, "\(run.text)")
        #expect(run.out.last?.contains("(the state limit stopped it)") == true, "\(run.text)")
        #expect(!run.text.contains("✓"))
    }

    @Test(
        "explore refuses a time or state limit out of range before exploring",
        arguments: [["--max-seconds", "0"], ["--max-states", "-3"], ["--max-seconds", "1e9"]])
    func exploreLimitsOutOfRange(_ option: [String]) {
        let run = CommandRun(["explore", "registration"] + option, models: CommandModels.all)
        #expect(run.status == 64, "\(run.text)")
        #expect(run.out.isEmpty)
    }

    @Test("explore exits 0 on a sound model explored to closure, and 1 on a planted bug, printing its shortest trace")
    func exploreStatus() {
        let clean = CommandRun(["explore", "passwordSignIn"], models: CommandModels.all)
        #expect(clean.status == 0, "\(clean.text)")
        #expect(clean.out.first?.hasPrefix("passwordSignIn (at most 4 in flight, 2 left over): ") == true, "\(clean.text)")
        #expect(clean.out.last?.hasPrefix("✓ closed: 13 states to depth ") == true, "\(clean.text)")
        #expect(clean.out.last?.hasSuffix("; every invariant holds and the structure is sound") == true, "\(clean.text)")

        let broken = CommandRun(["explore", CommandModels.brokenName], models: CommandModels.all)
        #expect(broken.status == 1)
        let violation = broken.out.first { $0.hasPrefix("✗ \(CommandModels.brokenInvariant)") }
        // Submit, start over, the abandoned attempt's grant.
        #expect(violation?.split(separator: "\n").count == 1 + 3, "\(broken.text)")
        #expect(!broken.text.contains("✓"))
    }

    @Test("explore --depth N stops N events deep: a bug 3 events deep is not reached with --depth 2, and is with --depth 3")
    func exploreDepth() throws {
        let shallow = CommandRun(["explore", CommandModels.brokenName, "--depth", "2", "--json"], models: CommandModels.all)
        #expect(shallow.status == 0, "\(shallow.text)")
        let bounded = try #require(try json(shallow) as? [String: Any])
        #expect(bounded["complete"] as? Bool == false)
        #expect(bounded["depth"] as? Int == 2)
        #expect((bounded["violations"] as? [String])?.isEmpty == true)

        let deep = CommandRun(["explore", CommandModels.brokenName, "--depth=3", "--json"], models: CommandModels.all)
        #expect(deep.status == 1)
        let found = try #require(try json(deep) as? [String: Any])
        #expect(found["depth"] as? Int == 3)
        #expect((found["violations"] as? [String])?.first?.hasPrefix("✗ \(CommandModels.brokenInvariant)") == true)
        #expect(found["passed"] as? Bool == false)
    }

    @Test("explore --in-flight N --stale M explores the model at those bounds and says so; out-of-range bounds exit 64")
    func exploreBounds() throws {
        let run = CommandRun(["explore", "registration", "--in-flight", "1", "--stale", "1", "--json"], models: CommandModels.all)
        let object = try #require(try json(run) as? [String: Any], "\(run.text)")
        #expect(object["inFlight"] as? Int == 1 && object["stale"] as? Int == 1)
        #expect((object["states"] as? Int ?? 0) > 1, "the user acts at 1/1")
        #expect(object["complete"] as? Bool == true)
        #expect((object["violations"] as? [String])?.isEmpty == true)
        let usual = try #require(try json(CommandRun(["explore", "registration", "--json"], models: CommandModels.all)) as? [String: Any])
        #expect(usual["inFlight"] as? Int == 4 && usual["stale"] as? Int == 2)
        #expect((object["states"] as? Int ?? 0) < (usual["states"] as? Int ?? 0), "fewer states at 1/1 than at 4/2")
        for (option, value) in [("--in-flight", "0"), ("--in-flight", "9"), ("--stale", "0"), ("--stale", "-1"), ("--stale", "many")] {
            #expect(CommandRun(["explore", "registration", option, value], models: CommandModels.all).status == 64, "\(option) \(value)")
        }
    }

    @Test("explore --no-reduction runs the plain search: more states where calls overlap, the same verdicts, the broken model caught alike")
    func exploreWithoutReduction() throws {
        let models = CommandModels.all + [AnyModel(Models.realtime())]
        func figures(_ words: [String]) throws -> [String: Any] {
            try #require(try json(CommandRun(words + ["--json"], models: models)) as? [String: Any])
        }
        let reduced = try figures(["explore", "realtimeConnection"])
        let plain = try figures(["explore", "realtimeConnection", "--no-reduction"])
        #expect(reduced["passed"] as? Bool == true && plain["passed"] as? Bool == true)
        #expect((reduced["states"] as? Int ?? 0) < (plain["states"] as? Int ?? 0), "\(reduced["states"] ?? 0) and \(plain["states"] ?? 0)")
        let broken = try figures(["explore", CommandModels.brokenName, "--no-reduction"])
        #expect((broken["violations"] as? [String])?.first?.hasPrefix("✗ \(CommandModels.brokenInvariant)") == true)
        let verify = CommandRun(["verify", "--no-reduction", "--runs", "1"], models: CommandModels.clean)
        #expect(verify.status == 0 && verify.text.contains("the plain search (no reduction)"), "\(verify.text)")
        #expect(verify.text.contains("the reduced search checked against it"), "\(verify.text)")
    }

    /// `verify --no-reduction` holds the reduced search to the plain one; the check must be able
    /// to fail: two explorations that differ (here two different flows) disagree on every point.
    @Test("the reduction check finds nothing between a model's two searches, and names every difference between two that differ")
    func reductionCheckCanFail() {
        let model = AnyModel(Models.realtime())
        let plain = model.explore(limits: ExplorationLimits(reduction: .plain))
        #expect(ReductionCheck.disagreements(plain: plain, reduced: model.explore(limits: ExplorationLimits())).isEmpty)
        let other = AnyModel(Models.passwordSignIn()).explore(limits: ExplorationLimits())
        let found = ReductionCheck.disagreements(plain: plain, reduced: other)
        #expect(found.contains { $0.hasPrefix("the drawn graph differs") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("cases reached in one search only") }, "\(found)")
        let larger = ReductionCheck.disagreements(plain: other, reduced: plain)
        #expect(larger.contains { $0.hasPrefix("more states with the reduction") }, "\(larger)")
    }

    @Test("explore --json prints one object with the report's figures, and nothing else")
    func exploreJSON() throws {
        let run = CommandRun(["explore", "registration", "--json"], models: CommandModels.all)
        #expect(run.status == 0)
        #expect(run.out.count == 1)
        let object = try #require(try json(run) as? [String: Any])
        #expect(Set(object.keys) == VerifyKeys.row)
        #expect(object["model"] as? String == "registration")
        #expect(object["passed"] as? Bool == true)
        #expect(object["complete"] as? Bool == true)
        #expect((object["states"] as? Int ?? 0) > 1)
        #expect((object["transitions"] as? Int ?? 0) >= (object["states"] as? Int ?? 0) - 1)
        #expect(object["invariants"] as? Int == Models.registration().invariants.count)
        #expect(object["fuzzFailure"] is NSNull)
    }

    // MARK: fuzz and replay

    @Test("fuzz --runs N --length L runs N walks of at most L events and exits 0 when nothing breaks")
    func fuzzClean() throws {
        let run = CommandRun(["fuzz", "passwordSignIn", "--seed", "7", "--runs", "3", "--length", "25", "--json"], models: CommandModels.all)
        #expect(run.status == 0)
        let object = try #require(try json(run) as? [String: Any])
        #expect(Set(object.keys) == ["model", "runs", "events", "freshEvents", "eventsPerSecond", "failure"])
        #expect(object["runs"] as? Int == 3)
        let events = try #require(object["events"] as? Int)
        #expect(events > 3 && events <= 3 * 25)
        #expect(object["failure"] is NSNull)
        let text = CommandRun(["fuzz", "passwordSignIn", "--runs", "2", "--length", "10"], models: CommandModels.all)
        #expect(text.status == 0)
        #expect(text.out.last == "✓ no violation")
    }

    @Test("fuzz follows the transitions it checked before unless --no-reuse, and walks the same either way")
    func fuzzReuse() throws {
        let words = ["fuzz", "passwordSignIn", "--seed", "7", "--runs", "20", "--length", "100", "--json"]
        let reused = try #require(try json(CommandRun(words, models: CommandModels.all)) as? [String: Any])
        let afresh = try #require(try json(CommandRun(words + ["--no-reuse"], models: CommandModels.all)) as? [String: Any])
        let events = try #require(reused["events"] as? Int)
        #expect(afresh["events"] as? Int == events)
        #expect(afresh["freshEvents"] as? Int == events)
        let fresh = try #require(reused["freshEvents"] as? Int)
        #expect(fresh > 0 && fresh * 4 < events, "\(fresh) of \(events) stepped afresh")
        let text = CommandRun(["fuzz", "passwordSignIn", "--runs", "2", "--length", "10", "--no-reuse"], models: CommandModels.all)
        #expect(text.out.first?.contains("20 checked events (20 stepped afresh") == true, "\(text.text)")
    }

    @Test("fuzz exits 1 on a planted bug and prints the replay command that reproduces it, byte for byte")
    func fuzzThenReplay() throws {
        let fuzz = CommandRun(["fuzz", CommandModels.brokenName, "--runs", "100", "--length", "40"], models: CommandModels.all)
        #expect(fuzz.status == 1)
        let command = try #require(fuzz.out.last)
        #expect(command.hasPrefix("replay: authflow replay \(CommandModels.brokenName) --seed "), "\(fuzz.text)")
        let failure = try #require(fuzz.out.dropLast().last)
        #expect(failure.contains("✗ \(CommandModels.brokenInvariant)"))

        let words = command.dropFirst("replay: authflow ".count).split(separator: " ").map(String.init)
        let replay = CommandRun(words, models: CommandModels.all)
        #expect(replay.status == 1)
        // The walk step by step, then the failure as fuzz printed it.
        #expect(replay.out.last == failure)
        #expect(replay.out.first?.hasPrefix("\(CommandModels.brokenName): the walk of seed ") == true, "\(replay.text)")
        #expect(replay.out.dropFirst().first?.hasPrefix("  1. [") == true, "\(replay.text)")
    }

    @Test("fuzz on a model that breaks its contract exits 1, names the break and offers no replay command that would not reproduce it")
    func fuzzBrokenContract() throws {
        // Sign-in whose menu, read again at a world met before, lacks its last intent.
        final class Read: Sendable { let worlds = Locked<Set<World<PasswordSignIn>>>([]) }
        let read = Read()
        let shipped = Models.passwordSignIn()
        let model = AnyModel(
            Model(name: "passwordSignIn.unsteadyMenu", machine: shipped.machine, replies: shipped.replies, finalCases: shipped.finalCases) {
                snapshot in
                let menu = Menus.passwordSignIn(.username)
                let first = read.worlds.withLock { $0.insert(snapshot.world).inserted }
                return first ? menu : Array(menu.dropLast())
            })
        let fuzz = CommandRun(["fuzz", "passwordSignIn.unsteadyMenu", "--runs", "20", "--length", "100"], models: [model])
        #expect(fuzz.status == 1)
        #expect(fuzz.text.contains("✗ \(Fuzzer.brokenContractName)"), "\(fuzz.text)")
        #expect(fuzz.out.last?.hasPrefix("no replay: ") == true, "\(fuzz.text)")
        #expect(!fuzz.text.contains("replay: authflow replay"))

        // verify checks each model's contract before it trusts its exploration.
        let verify = CommandRun(["verify", "--runs", "1", "--length", "10"], models: [model])
        #expect(verify.status == 1)
        #expect(verify.text.contains("passwordSignIn.unsteadyMenu model contract: ✗ \(Finding.Kind.brokenModelContract.rawValue)"), "\(verify.text)")
        let json = CommandRun(["verify", "--json", "--runs", "1", "--length", "10"], models: [model])
        #expect(json.text.contains(#""modelContract":"✗ "#), "\(json.text)")
    }

    @Test("fuzz --json and replay --json describe the same failure: seed, invariant, lengths and trace")
    func fuzzAndReplayJSON() throws {
        // The first of a few fixed seeds whose failing run's seed is above Int64.max (about half are).
        let runs = (0x5EED...0x5EF4).lazy.map { start in
            CommandRun(
                ["fuzz", CommandModels.brokenName, "--seed", "\(start)", "--runs", "100", "--length", "40", "--json"], models: CommandModels.all)
        }
        let fuzz = try #require(
            runs.first { run in
                guard let report = try? json(run) as? [String: Any], let failure = report["failure"] as? [String: Any] else { return false }
                return ((failure["seed"] as? NSNumber)?.uint64Value ?? 0) > UInt64(Int64.max)
            })
        #expect(fuzz.status == 1)
        let report = try #require(try json(fuzz) as? [String: Any])
        #expect(report["model"] as? String == CommandModels.brokenName)
        let failure = try #require(report["failure"] as? [String: Any])
        #expect(Set(failure.keys) == VerifyKeys.failure)
        #expect(failure["invariant"] as? String == CommandModels.brokenInvariant)
        let trace = try #require(failure["trace"] as? [String])
        #expect(trace.count == failure["shrunkLength"] as? Int)
        #expect(trace.count >= 3 && trace.count <= failure["originalLength"] as? Int ?? 0)
        // Seeds are 64-bit: JSON readers that hold numbers as doubles would round most of them.
        let seed = try #require((failure["seed"] as? NSNumber)?.uint64Value)
        // This one is above Int64.max (a reader of signed 64-bit integers would refuse it too).
        #expect(seed > UInt64(Int64.max))
        #expect(fuzz.text.contains("\"seed\":\(seed),"), "the seed did not survive JSON parsing: \(fuzz.text)")

        let replay = CommandRun(["replay", CommandModels.brokenName, "--seed", "\(seed)", "--length", "40", "--json"], models: CommandModels.all)
        #expect(replay.status == 1)
        let replayed = try #require(try json(replay) as? [String: Any])
        #expect(replayed as NSDictionary == failure as NSDictionary)
    }

    @Test("replay of a seed whose walk breaks nothing says so and exits 0")
    func replayClean() {
        let run = CommandRun(["replay", "passwordSignIn", "--seed", "0x2A", "--length", "30"], models: CommandModels.all)
        #expect(run.status == 0)
        #expect(run.out.last == "passwordSignIn: seed 42 runs 30 events without a violation")
        // The walk, step by step, numbered, before the verdict: 30 events, as long as the walk went.
        let steps = run.out.dropFirst().dropLast()
        #expect(run.out.first == "passwordSignIn: the walk of seed 42, \(steps.count) events (events redacted):")
        #expect(!steps.isEmpty && steps.count <= 30)
        #expect(steps.enumerated().allSatisfy { $0.element.hasPrefix("  \($0.offset + 1). [") }, "\(run.text)")
    }

    // MARK: verify

    /// The lines of `verify`'s table (its first output), without the padding after the last column.
    static func tableRows(_ run: CommandRun) -> [String] {
        (run.out.first ?? "").split(separator: "\n").map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    @Test("verify exits 0 when every model explores to closure and fuzzes clean, printing a row per model")
    func verifyClean() {
        let run = CommandRun(["verify", "--runs", "2", "--length", "30"], models: CommandModels.clean)
        #expect(run.status == 0, "\(run.text)")
        let rows = Self.tableRows(run)
        #expect(rows.first?.hasPrefix("model") == true)
        #expect(rows.dropFirst(2).map { $0.prefix { $0 != " " } } == ["passwordSignIn", "registration"])
        #expect(rows.dropFirst(2).allSatisfy { $0.hasSuffix("✓") }, "\(rows)")
        #expect(run.out.last?.hasPrefix("\n2 models, ") == true)
    }

    @Test(
        "verify explores every model at 4/2 at least, --quick at its own bounds, --in-flight N --stale M at those, and prints them"
    )
    func verifyBounds() throws {
        func rows(_ words: [String], models: [AnyModel] = CommandModels.clean) throws -> [[String: Any]] {
            let run = CommandRun(["verify", "--json", "--runs", "1", "--length", "10"] + words, models: models)
            #expect(run.status == 0, "\(run.text)")
            return try #require(try json(run) as? [[String: Any]]).filter { $0["model"] != nil }
        }
        func bounds(_ rows: [[String: Any]]) -> [[Int?]] { rows.map { [$0["inFlight"] as? Int, $0["stale"] as? Int] } }
        // Models held at 1/1 by their own bounds, as the largest shipped ones are held lower.
        let held = CommandModels.clean.map { $0.bounded(inFlight: 1, stale: 1) }
        let full = try rows([], models: held)
        let quick = try rows(["--quick"], models: held)
        #expect(bounds(full) == [[4, 2], [4, 2]], "the default run raises a model's lower bounds to 4/2")
        #expect(bounds(quick) == [[1, 1], [1, 1]], "--quick keeps each model's own")
        #expect(quick.allSatisfy { ($0["states"] as? Int ?? 0) > 1 }, "the user acts at 1/1")
        #expect(full.allSatisfy { $0["complete"] as? Bool == true } && quick.allSatisfy { $0["complete"] as? Bool == true })
        let registration = try #require(quick.last?["states"] as? Int)
        #expect(registration < (full.last?["states"] as? Int ?? 0), "fewer states at 1/1 than at 4/2")
        #expect(bounds(try rows(["--in-flight", "1", "--stale", "1"])) == [[1, 1], [1, 1]])
        #expect(bounds(try rows(["--stale", "1"])) == [[4, 1], [4, 1]], "--stale alone keeps the in-flight bound of the run")
        #expect(bounds(try rows(["--quick", "--stale", "2"], models: held)) == [[1, 2], [1, 2]], "… and of --quick")
        // A model whose own bounds are higher keeps them.
        let wide = [CommandModels.clean[0].bounded(inFlight: 6, stale: 3)]
        #expect(bounds(try rows([], models: wide)) == [[6, 3]])
        #expect(CommandRun(["verify", "--in-flight", "9"], models: CommandModels.clean).status == 64)
    }

    @Test("verify exits 1 when one model has a violation, and names it under the table")
    func verifyBroken() {
        let run = CommandRun(["verify", "--runs", "2", "--length", "30"], models: CommandModels.all)
        #expect(run.status == 1)
        let rows = Self.tableRows(run)
        #expect(rows.last?.hasPrefix(CommandModels.brokenName) == true)
        #expect(rows.last?.hasSuffix("✗") == true)
        #expect(run.out.contains { $0.hasPrefix("\n\(CommandModels.brokenName): ✗ \(CommandModels.brokenInvariant)") }, "\(run.text)")
    }

    @Test("verify --json prints an array of rows, one per model, that says which passed")
    func verifyJSON() throws {
        let run = CommandRun(["verify", "--json", "--runs", "2", "--length", "30"], models: CommandModels.all)
        #expect(run.status == 1)
        #expect(run.out.count == 1)
        let all = try #require(try json(run) as? [[String: Any]])
        let rows = all.filter { $0["model"] != nil }
        let contracts = all.filter { $0["contract"] != nil }
        #expect(rows.count + contracts.count == all.count)
        #expect(contracts.map { $0["contract"] as? String } == Backend.documented.map(\.id), "a row per shipped contract, after the models")
        #expect(contracts.allSatisfy { $0["passed"] as? Bool == true && ($0["damagedBodies"] as? Int ?? 0) > 0 })
        #expect(rows.map { $0["model"] as? String } == CommandModels.all.map(\.name))
        for row in rows { #expect(Set(row.keys) == VerifyKeys.row) }
        #expect(rows.map { $0["passed"] as? Bool } == [true, true, false])
        #expect(rows.map { ($0["violations"] as? [String])?.count } == [0, 0, 1])
        #expect(rows.allSatisfy { ($0["fuzzEvents"] as? Int ?? 0) > 0 })
    }
}

/// The keys of `authflow`'s JSON objects.
enum VerifyKeys {
    /// A row of `verify --json`, and `explore --json`.
    static let row: Set<String> = [
        "model", "inFlight", "stale", "states", "transitions", "depth", "invariants", "complete", "seconds", "statesPerSecond", "fuzzEvents",
        "violations", "findings", "fuzzFailure", "modelContract", "reductionDisagreements", "passed",
    ]
    /// A fuzz failure (`fuzz --json`'s `failure`, `replay --json`).
    static let failure: Set<String> = ["seed", "invariant", "originalLength", "shrunkLength", "trace"]
}
