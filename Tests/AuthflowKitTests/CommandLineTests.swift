@testable import AuthflowBench
@testable import AuthflowKit
import AuthTestSupport
import AuthCore
import AuthSupport
import AuthVerification
import Foundation
import Testing

/// What a numeric option is expected to do with each awkward value: written out here, not read
/// from `Authflow.commands`, so a rule changed there without thought shows up as a failure.
enum NumericExpectation {
    /// `command --option`, for every numeric option the commands take.
    static let options: Set<String> = [
        "verify --seed", "verify --runs", "verify --length", "verify --in-flight", "verify --stale", "explore --depth", "explore --in-flight",
        "explore --stale", "explore --max-states", "explore --max-seconds", "explore --threads", "fuzz --seed",
        "fuzz --runs", "fuzz --length", "fuzz --threads", "replay --seed", "replay --length", "serve --port",
    ]
    /// The awkward values: zero, negative, huge (past every integer type) and not a number.
    static let values = ["0", "-1", "99999999999999999999999", "lots"]
    /// The values among ``values`` an option accepts: a seed and a port take 0; no count does
    /// (not even `--stale`: at 0 the user could never act).
    static func accepted(_ option: String) -> Set<String> {
        option.hasSuffix("--seed") || option == "serve --port" ? ["0"] : []
    }
}

@Suite("authflow command line: numbers, help, per-command options")
struct CommandLineTests {
    @Test("the test below covers every numeric option the commands take, and only those")
    func everyNumericOptionCovered() {
        let declared = Set(
            Authflow.commands.flatMap { command in
                command.options.filter { $0.numeric != nil }.map { "\(command.name) --\($0.name)" }
            })
        #expect(declared == NumericExpectation.options)
    }

    @Test(
        "every numeric option refuses 0 (unless it is a seed or a port), -1, a huge value and a non-number: exit 64, a message naming it on standard error, nothing run",
        arguments: NumericExpectation.options.sorted(), NumericExpectation.values)
    func numericOption(_ option: String, _ value: String) throws {
        let parts = option.split(separator: " ").map(String.init)
        let command = try #require(Authflow.command(named: parts[0]))
        let words = [command.name] + command.requiredArguments + [parts[1], value]
        let arguments = try Arguments.parse(words, valued: Authflow.valued, flags: Authflow.flags)
        let refusal = Authflow.refusal(of: arguments, by: command)
        if NumericExpectation.accepted(option).contains(value) {
            #expect(refusal == nil, "\(words.joined(separator: " ")) was refused: \(refusal.map(String.init(describing:)) ?? "")")
            return
        }
        // Refused values stop before the command starts, so running it here is quick and safe.
        let run = CommandRun(words, models: CommandModels.clean)
        #expect(run.status == 64, "\(words.joined(separator: " ")) → \(run.status)")
        #expect(run.out.isEmpty)
        #expect(run.err.count == 1)
        #expect(run.err.first?.hasPrefix("authflow: \(parts[1]) takes a number") == true, "\(run.err)")
        #expect(run.err.first?.contains(value) == true)
    }

    /// The positional arguments each command reads at most: written out here, not read from
    /// `Authflow.commands`, so a command that starts taking (or stops reading) one shows up here.
    static let argumentsTaken = [
        "verify": 0, "explore": 1, "fuzz": 1, "replay": 1, "list": 0, "fixtures": 1, "diagrams": 0, "serve": 0, "demo": 0, "probe": 1,
        "bench": 0,
    ]

    @Test("each command takes the positional arguments written out above, and the test below covers every command")
    func argumentsDeclared() {
        #expect(Dictionary(uniqueKeysWithValues: Authflow.commands.map { ($0.name, $0.maxArguments) }) == Self.argumentsTaken)
    }

    @Test(
        "a positional argument past those a command reads (a model named to verify) is refused: exit 64, the word named on standard error, nothing run",
        arguments: Self.argumentsTaken.keys.sorted())
    func extraArgument(_ name: String) throws {
        let command = try #require(Authflow.command(named: name))
        let given = try Arguments.parse([name] + command.requiredArguments, valued: Authflow.valued, flags: Authflow.flags)
        let fillers = (given.positional.count..<command.maxArguments).map { "argument\($0)" }
        let words = [name] + command.requiredArguments + fillers + ["app.hero365"]
        let arguments = try Arguments.parse(words, valued: Authflow.valued, flags: Authflow.flags)
        // Checked before running: were it not refused, `serve` would serve and `bench` measure.
        try #require(
            Authflow.refusal(of: arguments, by: command)
                == .extraArgument(command: name, argument: "app.hero365", takes: command.maxArguments))
        let run = CommandRun(words, models: CommandModels.clean)
        #expect(run.status == 64, "\(words.joined(separator: " ")) → \(run.status)")
        #expect(run.out.isEmpty)
        #expect(run.err == ["authflow: \(Arguments.Problem.extraArgument(command: name, argument: "app.hero365", takes: command.maxArguments))"])
        #expect(run.err.first?.contains("'app.hero365'") == true)
    }

    @Test("a count in range runs: --runs 1 --length 1, --depth 1, --threads 3, and the largest --runs a fuzz takes is accepted")
    func countsInRange() throws {
        #expect(CommandRun(["fuzz", "passwordSignIn", "--runs", "1", "--length", "1"], models: CommandModels.clean).status == 0)
        #expect(CommandRun(["fuzz", "passwordSignIn", "--runs", "5", "--threads", "3"], models: CommandModels.clean).status == 0)
        #expect(CommandRun(["explore", "passwordSignIn", "--depth", "1"], models: CommandModels.clean).status == 0)
        #expect(CommandRun(["explore", "passwordSignIn", "--threads", "3"], models: CommandModels.clean).status == 0)
        let fuzz = try #require(Authflow.command(named: "fuzz"))
        let largest = try Arguments.parse(
            ["fuzz", "passwordSignIn", "--runs", "\(Authflow.Limits.runs.upperBound)"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(Authflow.refusal(of: largest, by: fuzz) == nil)
        let past = try Arguments.parse(
            ["fuzz", "passwordSignIn", "--runs", "\(Authflow.Limits.runs.upperBound + 1)"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(Authflow.refusal(of: past, by: fuzz) != nil)
    }

    @Test(
        "`authflow <command> --help` and `authflow help <command>` print that command's usage, options and an example, and exit 0",
        arguments: Authflow.commands.map(\.name))
    func commandHelp(_ name: String) throws {
        let command = try #require(Authflow.command(named: name))
        for words in [[name, "--help"], [name, "-h"], ["help", name]] {
            let run = CommandRun(words, models: CommandModels.clean)
            #expect(run.status == 0, "\(words)")
            #expect(run.out == [command.help], "\(words)")
        }
        let help = command.help
        #expect(help != Authflow.usage)
        #expect(help.hasPrefix("authflow \(name) — "))
        #expect(help.contains("USAGE\n  authflow \(name)"))
        #expect(help.contains("\nEXAMPLE"))
        #expect(help.contains("\n  authflow \(command.examples[0])"))
        for option in command.options { #expect(help.contains("  --\(option.name)"), "\(name) --help lacks --\(option.name)") }
        // Every example is a command line the command accepts, its words split as a shell splits them.
        for example in command.examples {
            let arguments = try Arguments.parse(Self.shellWords(example), valued: Authflow.valued, flags: Authflow.flags)
            #expect(arguments.command == name)
            #expect(Authflow.refusal(of: arguments, by: command) == nil, "\(example)")
        }
    }

    /// `line`'s words as a POSIX shell splits them: at unquoted spaces, with single quotes taken
    /// literally and a backslash in double quotes escaping the next character (the examples'
    /// `--oauth-command '…'` and `"{…}"` arguments).
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word: String?
        var quote: Character?
        var escaped = false
        for character in line {
            if escaped {
                word = (word ?? "") + String(character)
                escaped = false
            } else if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\", open == "\"" {
                    escaped = true
                } else {
                    word = (word ?? "") + String(character)
                }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == " " {
                if let finished = word { words.append(finished) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let finished = word { words.append(finished) }
        return words
    }

    @Test("examples are split as a shell splits them: quoted spaces stay in one word")
    func shellSplitting() {
        #expect(Self.shellWords("probe x --c 'a b' \"d \\\"e\\\" f\" g") == ["probe", "x", "--c", "a b", "d \"e\" f", "g"])
        #expect(Self.shellWords("a  ''") == ["a", ""])
    }

    @Test("help for a command that does not exist exits 64")
    func helpForNothing() {
        let run = CommandRun(["help", "frobnicate"], models: CommandModels.clean)
        #expect(run.status == 64)
        #expect(run.err == ["authflow: no command 'frobnicate' (see --help)"])
    }

    @Test(
        "an option of another command is refused with exit 64, naming the command and the option",
        arguments: [
            (["verify", "--port", "1"], "verify takes no --port (see authflow verify --help)"),
            (["explore", "passwordSignIn", "--runs", "3"], "explore takes no --runs (see authflow explore --help)"),
            (["list", "--json"], "list takes no --json (see authflow list --help)"),
            (["serve", "--quick"], "serve takes no --quick (see authflow serve --help)"),
        ])
    func otherCommandsOptions(_ words: [String], _ reason: String) {
        let run = CommandRun(words, models: CommandModels.clean)
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err == ["authflow: \(reason)"])
    }

    @Test("fuzz prints the seed it used and a replay command for its first walk, which replays that walk step by step, redacted")
    func fuzzPrintsSeed() throws {
        let fuzz = CommandRun(["fuzz", "passwordSignIn", "--seed", "0x2a", "--runs", "2", "--length", "12"], models: CommandModels.clean)
        #expect(fuzz.status == 0)
        let line = try #require(fuzz.out.first { $0.hasPrefix("seed ") }, "\(fuzz.text)")
        #expect(line.hasPrefix("seed 0x2A "))
        let configuration = FuzzConfiguration(seed: 0x2A, runs: 2, length: 12)
        let command = "authflow replay passwordSignIn --seed \(configuration.seed(ofRun: 0)) --length 12"
        #expect(line.hasSuffix(command), "\(line)")
        // Without --seed, the default seed is printed.
        let defaulted = CommandRun(["fuzz", "passwordSignIn", "--runs", "1", "--length", "5"], models: CommandModels.clean)
        #expect(defaulted.text.contains("seed 0x\(String(FuzzConfiguration().seed, radix: 16, uppercase: true)) "))

        let replay = CommandRun(command.split(separator: " ").dropFirst().map(String.init), models: CommandModels.clean)
        #expect(replay.status == 0)
        let steps = replay.out.filter { $0.hasPrefix("  ") }
        #expect(!steps.isEmpty && steps.count <= 12)
        // The walk the fuzz session took first, as the engine walks it.
        let walk = AnyModel(Models.passwordSignIn()).walk(seed: configuration.seed(ofRun: 0), length: 12)
        #expect(steps == walk.steps.enumerated().map { "  \($0.offset + 1). \($0.element)" })
        for secret in [Inputs.password.reveal(), Inputs.code.reveal()] {
            #expect(!replay.text.contains(secret), "replay printed a secret")
        }
        #expect(replay.text.contains("‹password›"), "the walk submits a password, shown redacted")
    }
}

@Suite("authflow serve: request log", .timeLimit(.minutes(15)))
struct ServeLogTests {
    /// Serves every backend on a free port while `requests` run against it; what it printed.
    static func serve(_ words: [String], _ requests: @escaping (UInt16) -> Void) throws -> (status: Int32, out: [String]) {
        var out: [String] = []
        let arguments = try Arguments.parse(words, valued: Authflow.valued, flags: Authflow.flags)
        let status = try Authflow.serve(arguments, out: { out.append($0) }, err: { Issue.record("unexpected error: \($0)") }) { running in
            requests(running.port)
        }
        return (status, out)
    }

    @Test("serve logs each request it answers: method, path, status, time; the query is left out, so no address or token shows")
    func logs() throws {
        let (status, out) = try Self.serve(["serve", "--port", "0"]) { port in
            _ = statusOfGET("http://127.0.0.1:\(port)/subspace/health")
            _ = statusOfGET("http://127.0.0.1:\(port)/__dev/outbox?to=kid@school.edu")
            _ = statusOfGET("http://127.0.0.1:\(port)/everday/api/auth/login?token=tok-secret-123")
        }
        #expect(status == 0)
        let entries = out.filter { $0.hasSuffix(" ms") }
        #expect(entries.count == 3, "\(out)")
        let pattern = #/^\d\d:\d\d:\d\d (GET|POST) (\S+) (\d{3}|dropped) [0-9.]+ ms$/#
        let parsed = entries.compactMap { try? pattern.wholeMatch(in: $0) }.map { ("\($0.output.2)", "\($0.output.3)") }
        #expect(parsed.count == 3, "\(entries)")
        #expect(parsed.first?.0 == "/subspace/health" && parsed.first?.1 == "200")
        #expect(parsed.contains { $0 == ("/__dev/outbox?…", "200") })
        #expect(parsed.contains { $0 == ("/everday/api/auth/login?…", "405") })
        let text = out.joined(separator: "\n")
        #expect(!text.contains("school.edu") && !text.contains("tok-secret"))
        #expect(out.last == "stopped")
    }

    @Test("serve --quiet logs no request")
    func quiet() throws {
        let (status, out) = try Self.serve(["serve", "--port", "0", "--quiet"]) { port in
            #expect(statusOfGET("http://127.0.0.1:\(port)/subspace/health") == 200)
        }
        #expect(status == 0)
        #expect(!out.contains { $0.hasSuffix(" ms") }, "\(out)")
        #expect(!out.isEmpty && out.last == "stopped")
    }
}

@Suite("authflow bench: --strict and the 120-column table")
struct BenchStrictAndWidthTests {
    @Test("bench exits 0 whatever the figures; --strict exits 1 when a printed target is not met, 0 when every one is")
    func strict() {
        let report = SampleReport.report
        #expect(report.rows.contains { $0.met == false })
        #expect(Authflow.benchStatus(report, strict: false) == 0)
        #expect(Authflow.benchStatus(report, strict: true) == 1)
        var met = report
        met.rows = report.rows.filter { $0.met != false }
        #expect(Authflow.benchStatus(met, strict: true) == 0)
    }

    @Test("bench --help names --strict and --wide")
    func help() throws {
        let help = try #require(Authflow.command(named: "bench")).help
        #expect(help.contains("--strict") && help.contains("--wide"))
    }

    /// Lines wider than 120 columns.
    static func wide(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.count > BenchTable.narrowWidth }
    }

    @Test("without --wide the table, headings and notes fit 120 columns, each figure's details on a line under its section")
    func narrow() {
        let report = SampleReport.report
        #expect(!Self.wide(report.text).isEmpty, "the wide form is wider, or this test shows nothing")
        #expect(Self.wide(report.narrowText).isEmpty, "\(Self.wide(report.narrowText))")
        let lines = report.narrowText.split(separator: "\n").map(String.init)
        #expect(lines.contains("    SessionLifecycle (rotating refresh): 111 ns/step; 10,000 events"))
        #expect(lines.contains { $0.hasPrefix("figure ") && !$0.contains("detail") })
        // The details follow their section's rows, before the next section's heading.
        let detail = lines.firstIndex { $0.hasPrefix("    session.everday: 29,846 states") }
        let heading = lines.firstIndex { $0.hasPrefix("▸ large model") }
        #expect(detail != nil && heading != nil && detail! < heading!)
    }

    @Test("without --wide a figure whose name leaves no room for its cells stands on a line of its own, its cells under it")
    func narrowLongName() {
        let long = String(repeating: "n", count: 70)
        let cells = ["1.00 M/s", "0.99 M/s – 1.01 M/s", "3", "≥ 2 M events/s (a long target)", "NOT met"]
        let blocks = [BenchTable.Block(heading: "▸ section", rows: [["short"] + cells + ["d"], [long] + cells + ["d"]])]
        let lines = BenchTable.renderNarrow(blocks)
        #expect(lines.allSatisfy { $0.count <= BenchTable.narrowWidth }, "\(lines)")
        let name = lines.firstIndex(of: long)
        #expect(name != nil && lines[name! + 1].hasPrefix(" ") && lines[name! + 1].hasSuffix("NOT met"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("short ") && $0.hasSuffix("NOT met") }, "\(lines)")
    }

    @Test(
        "the committed BENCHMARKS.md's figures, rendered without --wide, fit 120 columns",
        .enabled(if: FileManager.default.fileExists(atPath: BenchmarksFileTests.file.path)))
    func committedFigures() throws {
        let parts = try #require(BenchmarksFile.parse(try String(contentsOf: BenchmarksFileTests.file, encoding: .utf8)))
        let lines = BenchTable.renderNarrow(parts.blocks)
        #expect(lines.count > parts.blocks.count * 2)
        #expect(lines.filter { $0.count > BenchTable.narrowWidth }.isEmpty, "\(lines.filter { $0.count > BenchTable.narrowWidth })")
    }
}
