@testable import AuthflowBench
@testable import AuthflowKit
import AuthCore
import AuthSupport
import AuthTestSupport
import AuthVerification
import Foundation
import Testing

// `authflow bench` prints figures; no test here times anything or asserts a speed. They check
// the command line, the statistics, the renderers and that BENCHMARKS.md is what the renderer writes.

@Suite("authflow bench: command line")
struct BenchArgumentTests {
    @Test("--quick, --json and --write parse as flags of the bench command")
    func flagsParse() throws {
        let arguments = try Arguments.parse(["bench", "--quick", "--json", "--write"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(arguments.command == "bench")
        #expect(arguments.flags == ["quick", "json", "write"])
        #expect(arguments.positional.isEmpty)
        #expect(BenchConfiguration.chosen(by: arguments) == .quick)
    }

    @Test("without --quick the full configuration is chosen")
    func fullByDefault() throws {
        let arguments = try Arguments.parse(["bench", "--json"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(BenchConfiguration.chosen(by: arguments) == .full)
        #expect(BenchConfiguration.full.explorerStateCap == nil, "the full run explores every shipped model to closure")
        #expect(BenchConfiguration.full.largeStateCap == nil, "the full run explores the large model to closure")
        #expect(
            BenchConfiguration.full.largeClosureStateCap == nil && BenchConfiguration.quick.largeClosureStateCap == nil,
            "every run's closure table explores the large model to closure")
        #expect(BenchConfiguration.full.growthCallers == [1, 2, 3, 4])
        #expect(BenchConfiguration.quick.singleFlightCalls == [1, 10, 100, 1_000])
    }

    @Test("an unknown flag is refused before anything is measured")
    func unknownFlag() {
        #expect(throws: Arguments.Problem.unknown("fast")) {
            try Arguments.parse(["bench", "--fast"], valued: Authflow.valued, flags: Authflow.flags)
        }
        let run = CommandRun(["bench", "--fast"])
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
    }

    @Test(
        "bench refuses positional arguments and options of other commands with status 64",
        arguments: [
            ["bench", "now"], ["bench", "--seed", "7"], ["bench", "--quick", "--check"],
        ])
    func refusals(words: [String]) {
        let run = CommandRun(words)
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err.joined().contains("bench takes"), "\(run.err)")
    }

    @Test("--only picks sections by their names, comma-separated; without it every section is measured")
    func onlyPicksSections() throws {
        let some = try Arguments.parse(["bench", "--quick", "--only", "reducer,fuzzer"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(try BenchConfiguration.sections(chosenBy: some) == [.reducer, .fuzzer])
        let every = try Arguments.parse(["bench", "--quick"], valued: Authflow.valued, flags: Authflow.flags)
        #expect(try BenchConfiguration.sections(chosenBy: every) == Set(BenchSection.allCases))
    }

    @Test(
        "--only refuses an unknown or empty section name, and --write with --only but for composition alone, with status 64",
        arguments: [
            ["bench", "--only", "reducers"], ["bench", "--only", "reducer,"], ["bench", "--only", ""], ["bench", "--only", "reducer", "--write"],
            ["bench", "--only", "composition,reducer", "--write"],
        ])
    func onlyRefusals(words: [String]) {
        let run = CommandRun(words)
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err.joined().contains("--only"), "\(run.err)")
    }

    @Test("--python refuses an empty name and one env would read as its own option, with status 64", arguments: ["", " ", "-S"])
    func pythonRefusals(python: String) {
        let run = CommandRun(["bench", "--only", "fuzzer", "--python", python])
        #expect(run.status == 64)
        #expect(run.out.isEmpty)
        #expect(run.err.joined().contains("--python takes"), "\(run.err)")
    }

    @Test("--help names the bench command and its flags")
    func help() {
        let run = CommandRun(["--help"])
        #expect(run.status == 0)
        #expect(run.out.joined().contains("authflow bench [--quick] [--json] [--write]"))
        #expect(!run.out.joined().contains("not built yet"))
    }
}

@Suite("authflow bench: statistics and number formats")
struct BenchStatisticsTests {
    @Test("median of an odd and an even number of samples, in any order")
    func median() {
        #expect(Spread([3, 1, 2]).median == 2)
        #expect(Spread([4, 1, 3, 2]).median == 2.5)
        #expect(Spread([7]).median == 7)
        #expect(Spread.median([10, 30, 20, 1_000]) == 25)
    }

    @Test("spread: smallest, largest, quartiles (R-7) and interquartile range")
    func spread() {
        let spread = Spread([4, 2, 1, 3])
        #expect(spread.sorted == [1, 2, 3, 4])
        #expect(spread.count == 4)
        #expect(spread.min == 1)
        #expect(spread.max == 4)
        #expect(spread.lowerQuartile == 1.75)
        #expect(spread.upperQuartile == 3.25)
        #expect(spread.interquartileRange == 1.5)
        #expect(Spread.quantile([1, 2, 3, 4, 5], 0) == 1)
        #expect(Spread.quantile([1, 2, 3, 4, 5], 1) == 5)
        #expect(Spread.quantile([1, 2, 3, 4, 5], 0.9) == 4.6)
        #expect(Spread.quantile([1, 2, 3, 4, 5], 2) == 5, "q is clamped to 0…1")
    }

    @Test("mapping through a decreasing function keeps the spread sorted (steps/s → ns/step)")
    func mapping() {
        let perSecond = Spread([1e8, 2e7, 5e7])
        let nanoseconds = perSecond.map { 1e9 / $0 }
        #expect(nanoseconds.sorted == [10, 20, 50])
        #expect(nanoseconds.median == 20)
    }

    @Test(
        "numbers are written with grouped thousands, three significant digits and SI suffixes",
        arguments: [
            (BenchFormat.grouped(1_234_567), "1,234,567"), (BenchFormat.grouped(-1_000), "-1,000"), (BenchFormat.grouped(999), "999"),
            (BenchFormat.fixed(1.0504, 3), "1.050"), (BenchFormat.fixed(-0.25, 1), "-0.3"), (BenchFormat.fixed(12_345.678, 2), "12,345.68"),
            (BenchFormat.significant(123.4), "123"), (BenchFormat.significant(12.34), "12.3"), (BenchFormat.significant(1.234), "1.23"),
            (BenchFormat.significant(0.01234), "0.0123"), (BenchFormat.si(20_000_000), "20.0 M"), (BenchFormat.si(1_234), "1.23 k"),
            (BenchFormat.si(512), "512"), (BenchFormat.duration(0.000_081), "81.0 µs"), (BenchFormat.duration(2.5), "2.50 s"),
            (BenchFormat.duration(0.0123), "12.3 ms"), (BenchFormat.duration(4e-8), "40.0 ns"), (BenchFormat.bytes(1_500_000), "1.43 MiB"),
            (BenchFormat.bytes(512), "512 B"), (BenchFormat.bytes(3 * 1_073_741_824), "3.00 GiB"),
        ])
    func formats(written: String, expected: String) {
        #expect(written == expected)
    }

    @Test(
        "a number that rounds up to the next unit is written in it, with three significant digits",
        arguments: [
            (BenchFormat.si(999_600), "1.00 M"), (BenchFormat.si(999_400), "999 k"), (BenchFormat.si(999.7), "1.00 k"),
            (BenchFormat.si(-999_600), "-1.00 M"), (BenchFormat.significant(9.996), "10.0"), (BenchFormat.significant(99.96), "100"),
            (BenchFormat.significant(0.09996), "0.100"), (BenchFormat.significant(0.9996), "1.00"),
            (BenchFormat.duration(0.000_999_7), "1.00 ms"), (BenchFormat.duration(0.999_7), "1.00 s"), (BenchFormat.duration(9.996e-7), "1.00 µs"),
            (BenchFormat.bytes(1_073_700_000), "1.00 GiB"), (BenchFormat.bytes(1_023.9), "1.00 KiB"), (BenchFormat.bytes(1_023), "1,023 B"),
        ])
    func roundsIntoTheNextUnit(written: String, expected: String) {
        #expect(written == expected)
    }

    @Test(
        "numbers read back with their units",
        arguments: [
            ("9.27 M/s", 9_270_000.0), ("498 µs", 0.000_498), ("1,000", 1_000), ("40.0 MiB", 41_943_040), ("1.077", 1.077),
            ("20 M steps/s", 20_000_000), ("1 refresh in every run", 1), ("4, the explorer's shortest", 4), ("2.50 s", 2.5), ("81.0 ns", 8.1e-8),
        ])
    func reading(text: String, value: Double) throws {
        let read = try #require(BenchFormat.number(in: Substring(text)))
        #expect(abs(read - value) <= abs(value) * 1e-12)
    }

    @Test("text that does not start with a number reads as nothing")
    func notANumber() {
        #expect(BenchFormat.number(in: "—") == nil)
        #expect(BenchFormat.number(in: "(one run)") == nil)
    }
}

/// A report with a row in every section, targets met and not met, for the renderer tests.
enum SampleReport {
    static let machine = MachineDescription(architecture: "x86_64", cores: 2, cpu: "Test CPU", os: "Test OS 1 (Linux 6.0)", swift: "Swift 6.3.1")

    static var rows: [BenchRow] {
        [
            BenchRow(
                .reducer, "SessionLifecycle (rotating refresh)", unit: .perSecond, spread: Spread([8.1e6, 9.3e6, 9.0e6]),
                target: BenchTarget(.atLeast, 20e6, "20 M steps/s"),
                details: [BenchDetail("nanosecondsPerStep", .double(111), "111 ns/step"), BenchDetail("events", .int(10_000), "10,000 events")]),
            BenchRow(.reducer, "passwordSignIn", unit: .perSecond, spread: Spread([25e6, 24e6, 26e6])),
            BenchRow(
                .explorer, "session.everday", unit: .perSecond, spread: Spread([6_000, 6_500, 7_000]),
                details: [BenchDetail("states", .int(29_846), "29,846 states (closure)"), BenchDetail("levels", .text("1 1 4"))]),
            BenchRow(
                .largeModel, "session.everday×4 callers: distinct states/s", unit: .perSecond, spread: Spread([1.2e6, 1.1e6]),
                target: BenchTarget(.atLeast, 1e6, "1 M states/s")),
            BenchRow(.largeModel, "session.everday×4 callers: peak RSS", unit: .bytes, spread: Spread([300 * 1_048_576])),
            BenchRow(.growth, "1 caller: exploration time", unit: .seconds, spread: Spread([0.06, 0.07, 0.065])),
            BenchRow(.growth, "2 callers: exploration time", unit: .seconds, spread: Spread([0.2, 0.21, 0.19])),
            BenchRow(
                .closure, "app.everday at 4/2", unit: .seconds, spread: Spread([21.3]),
                details: [BenchDetail("states", .int(118_099), "118,099 states (closure)"), BenchDetail("complete", .bool(true))]),
            BenchRow(
                .composition, "user.fiveFlows at 4/2, release build", unit: .seconds, spread: Spread([12.5]),
                details: [BenchDetail("states", .int(90_000), "90,000 states (closure)"), BenchDetail("complete", .bool(true))]),
            BenchRow(
                .fuzzer, "codeRegistration", unit: .perSecond, spread: Spread([2.5e6, 2.4e6, 2.6e6]),
                target: BenchTarget(.atLeast, 2e6, "2 M events/s")),
            BenchRow(
                .fuzzer, "app.hero365", unit: .perSecond, spread: Spread([17e3, 16e3, 18e3]), target: BenchTarget(.atLeast, 2e6, "2 M events/s")),
            BenchRow(.plantedBug, "explorer: shortest trace (events)", unit: .count, spread: Spread([4, 4, 4])),
            BenchRow(
                .plantedBug, "fuzzer: shrunk trace (events)", unit: .count, spread: Spread([4, 4, 4]),
                target: BenchTarget(.atMost, 4, "4, the explorer's shortest")),
            BenchRow(.runnerOverhead, "A: AuthRunner.authorized latency", unit: .seconds, spread: Spread([0.000_49, 0.000_50])),
            BenchRow(.runnerOverhead, "B: bare URLSession latency", unit: .seconds, spread: Spread([0.000_46, 0.000_45])),
            BenchRow(.runnerOverhead, "ratio A/B", unit: .ratio, spread: Spread([1.07, 1.09, 1.08]), target: BenchTarget(.atMost, 1.05, "1.05")),
            BenchRow(
                .singleFlight, "N = 1,000: refreshes the server saw", unit: .count, spread: Spread([1, 1, 2]),
                target: BenchTarget(.exactly, 1, "1 refresh in every run")),
            BenchRow(
                .singleFlight, "N = 10: refreshes the server saw", unit: .count, spread: Spread([1, 1, 1]),
                target: BenchTarget(.exactly, 1, "1 refresh in every run")),
            BenchRow(.singleFlight, "N = 10: wall time", unit: .seconds, spread: Spread([0.006])),
        ]
    }

    static var report: BenchReport {
        BenchReport(
            machine: machine, configuration: "quick", date: "2026-01-02T03:04:05Z", rows: rows,
            notes: ["memory: how it is read", "a note with \"quotes\" and a | bar"], seconds: 42.5)
    }
}

@Suite("authflow bench: report renderers")
struct BenchReportTests {
    @Test("met and not met are judged from the figure against the target")
    func verdicts() {
        let verdicts = Dictionary(uniqueKeysWithValues: SampleReport.rows.map { ($0.figure, $0.met) })
        #expect(verdicts["SessionLifecycle (rotating refresh)"] == false, "median 9.0 M < 20 M")
        #expect(verdicts["passwordSignIn"] == .some(nil), "no target, no verdict")
        #expect(verdicts["session.everday×4 callers: distinct states/s"] == true, "median 1.15 M ≥ 1 M")
        #expect(verdicts["codeRegistration"] == true)
        #expect(verdicts["app.hero365"] == false)
        #expect(verdicts["fuzzer: shrunk trace (events)"] == true, "4 ≤ 4")
        #expect(verdicts["ratio A/B"] == false, "1.08 > 1.05")
        #expect(verdicts["N = 1,000: refreshes the server saw"] == false, "median 1, but one run saw 2: every run must see 1")
        #expect(verdicts["N = 10: refreshes the server saw"] == true)
    }

    @Test("a figure is judged as printed: a ratio of 1.0504 prints 1.050 and meets ≤ 1.05")
    func judgedAsPrinted() {
        let row = BenchRow(.runnerOverhead, "ratio A/B", unit: .ratio, spread: Spread([1.0504]), target: BenchTarget(.atMost, 1.05, "1.05"))
        #expect(row.formattedMedian == "1.050")
        #expect(row.met == true)
        #expect(BenchTable.judge(row.cells) == true)
    }

    @Test("the printed table shows every figure, with its median, spread, n, target and verdict")
    func textTable() throws {
        let report = SampleReport.report
        let text = report.text
        #expect(text.hasPrefix("authflow bench --quick — x86_64, 2 cores (Test CPU), Test OS 1 (Linux 6.0), Swift 6.3.1"))
        for row in report.rows {
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(row.figure + " ") }, "\(row.figure) missing")
            #expect(line.contains(row.formattedMedian))
            #expect(line.contains(row.formattedSpread))
            #expect(line.contains(row.target?.text ?? "—"))
            if let met = row.met { #expect(line.contains(met ? "  met" : "NOT met")) }
        }
        for section in BenchSection.allCases { #expect(text.contains(section.heading)) }
        #expect(text.contains("9.00 M/s"), "the reducer's median")
        #expect(text.contains("8.10 M/s – 9.30 M/s"), "its spread")
        #expect(text.contains("(one run)"))
        #expect(!text.contains("1 1 4"), "JSON-only details stay out of the table")
    }

    @Test("the table reads back into the cells it was rendered from, and every verdict agrees with its figure")
    func tableReadsBack() throws {
        let report = SampleReport.report
        let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("figure ") })
        let end = try #require(lines[start...].firstIndex(of: ""))
        let blocks = try #require(BenchTable.parse(Array(lines[start..<end])))
        #expect(blocks == report.blocks)
        #expect(BenchTable.render(blocks) == Array(lines[start..<end]))
        for row in blocks.flatMap(\.rows) where row[4] != BenchTable.none {
            #expect(BenchTable.judge(row) == (row[5] == "met"), "\(row)")
        }
    }

    @Test("targets shared by several rows are summed up in one line, each verdict from the rows")
    func targetSummary() {
        let summary = SampleReport.report.targetSummary
        #expect(summary.contains("NOT met: reducer, SessionLifecycle (rotating refresh) — 9.00 M/s (target ≥ 20 M steps/s)"))
        #expect(summary.contains("met: large model, session.everday×4 callers: distinct states/s — 1.15 M/s (target ≥ 1 M states/s)"))
        #expect(
            summary.contains("NOT met: fuzzer, ≥ 2 M events/s — met by 1 of 2; medians from 17.0 k/s (app.hero365) to 2.50 M/s (codeRegistration)"))
        #expect(summary.contains("NOT met: single-flight, = 1 refresh in every run — met by 1 of 2; every median 1"))
        #expect(summary.count == 6)
    }

    @Test("the JSON parses, with every figure, its samples, target and verdict")
    func json() throws {
        let report = SampleReport.report
        let object = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "authflow bench --quick")
        #expect(object["date"] as? String == "2026-01-02T03:04:05Z")
        let machine = try #require(object["machine"] as? [String: Any])
        #expect(machine["architecture"] as? String == "x86_64")
        #expect(machine["cores"] as? Int == 2)
        #expect((object["notes"] as? [String])?.last == "a note with \"quotes\" and a | bar")
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.count == report.rows.count)
        for (json, row) in zip(rows, report.rows) {
            #expect(json["figure"] as? String == row.figure)
            #expect(json["section"] as? String == row.section.rawValue)
            #expect(json["median"] as? Double == row.spread.median)
            #expect(json["min"] as? Double == row.spread.min)
            #expect(json["max"] as? Double == row.spread.max)
            #expect(json["n"] as? Int == row.spread.count)
            #expect((json["samples"] as? [Double]) == row.spread.sorted)
            if let target = row.target {
                let judged = try #require(json["target"] as? [String: Any])
                #expect(judged["text"] as? String == target.text)
                #expect(judged["bound"] as? Double == target.bound)
                #expect(json["met"] as? Bool == row.met)
            } else {
                #expect(json["target"] is NSNull)
                #expect(json["met"] is NSNull)
            }
            #expect((json["details"] as? [String: Any])?.count == row.details.count)
        }
        let targets = try #require(object["targets"] as? [[String: Any]])
        #expect(targets.count == report.rows.filter { $0.target != nil }.count)
        #expect(targets.first?["met"] as? Bool == false)
    }

    @Test("BENCHMARKS.md is the printed run under a preamble naming the machine, OS, Swift and date")
    func markdown() throws {
        let report = SampleReport.report
        let parts = try #require(BenchmarksFile.parse(report.markdown))
        #expect(parts.printed == report.text)
        #expect(parts.blocks == report.blocks)
        #expect(parts.targets == report.targetSummary)
        #expect(parts.preamble.contains("- Machine: `x86_64` (`uname -m`), 2 cores online (Test CPU)"))
        #expect(parts.preamble.contains("- OS: Test OS 1 (Linux 6.0)"))
        #expect(parts.preamble.contains("- Swift: Swift 6.3.1, \(Bench.build) build"), "the build the figures were measured in")
        #expect(parts.preamble.contains("- Date: 2026-01-02T03:04:05Z"))
        #expect(report.markdown.hasPrefix("# Benchmarks\n"))
    }

    @Test("a hand edit of a figure, a verdict or a column is caught when the file is read back")
    func handEditsCaught() throws {
        let file = SampleReport.report.markdown
        let edits = [
            file.replacingOccurrences(of: "NOT met  111 ns/step", with: "met      111 ns/step"),
            file.replacingOccurrences(of: "9.00 M/s  8.10 M/s", with: "21.0 M/s  8.10 M/s"),
            file.replacingOccurrences(of: "session.everday  ", with: "session.everyday"),
        ]
        for edited in edits {
            #expect(edited != file)
            #expect(BenchmarksCheck.problems(edited).isEmpty == false)
        }
        #expect(BenchmarksCheck.problems(file).isEmpty)
    }
}

@Suite("authflow bench --write: one build's composition rows beside the other's")
struct BenchWriteTests {
    static let build = Bench.build
    static let other = Bench.otherBuild

    /// The sample report, its composition rows measured in `build`, at `seconds` each.
    static func report(
        compositionIn build: String, seconds: Double, onlyComposition: Bool = false, machine: MachineDescription = SampleReport.machine
    )
        -> BenchReport
    {
        let composition = ["user.fiveFlows at 1/1", "user.fiveFlows at 4/2"].map { name in
            BenchRow(
                .composition, "\(name), \(build) build", unit: .seconds, spread: Spread([seconds]),
                details: [BenchDetail("states", .int(6_765), "6,765 states (closure)")])
        }
        let others = SampleReport.rows.filter { $0.section != .composition }
        return BenchReport(
            machine: machine, configuration: "quick", date: "2026-02-03T04:05:06Z",
            rows: onlyComposition ? composition : others + composition, notes: ["a note"], seconds: 99)
    }

    static func compositionRows(_ file: String) throws -> [[String]] {
        let parts = try #require(BenchmarksFile.parse(file))
        return try #require(parts.blockIndex(of: .composition).map { parts.blocks[$0].rows })
    }

    @Test("--only composition --write puts this build's rows after the other build's, leaves every other figure, and replaces them when run again")
    func compositionBesideTheOtherBuild() throws {
        let whole = Self.report(compositionIn: Self.other, seconds: 1).markdown.replacingOccurrences(
            of: BenchSection.composition.explanation, with: "as an older run worded it")
        let once = try Self.report(compositionIn: Self.build, seconds: 7, onlyComposition: true).written(sections: [.composition], over: whole)
        #expect(BenchmarksCheck.problems(once) == [])
        let rows = try Self.compositionRows(once)
        #expect(
            rows.map { $0[0] } == [
                "user.fiveFlows at 1/1, \(Self.other) build", "user.fiveFlows at 4/2, \(Self.other) build",
                "user.fiveFlows at 1/1, \(Self.build) build", "user.fiveFlows at 4/2, \(Self.build) build",
            ])
        #expect(rows.map { $0[1] } == ["1.00 s", "1.00 s", "7.00 s", "7.00 s"])
        let before = try #require(BenchmarksFile.parse(whole))
        let after = try #require(BenchmarksFile.parse(once))
        #expect(
            after.blocks.filter { !$0.heading.hasPrefix(BenchSection.composition.headingPrefix) }
                == before.blocks.filter { !$0.heading.hasPrefix(BenchSection.composition.headingPrefix) })
        #expect(after.targets == before.targets)
        #expect(after.blocks.map(\.heading) == BenchSection.allCases.map(\.heading), "the section's heading as the code words it now")
        #expect(after.preamble.dropLast() == before.preamble[...])
        #expect(
            after.preamble.last?.hasPrefix("- Composition rows of the \(Self.build) build: 2026-02-03T04:05:06Z, `swift run") == true,
            "\(after.preamble)")

        let twice = try Self.report(compositionIn: Self.build, seconds: 9, onlyComposition: true).written(sections: [.composition], over: once)
        #expect(try Self.compositionRows(twice).map { $0[1] } == ["1.00 s", "1.00 s", "9.00 s", "9.00 s"])
        #expect(try #require(BenchmarksFile.parse(twice)).preamble.count == after.preamble.count)
    }

    @Test("a whole run's --write keeps the other build's composition rows measured on this machine, and drops them from another machine's file")
    func wholeRunKeepsTheOtherBuild() throws {
        let whole = Self.report(compositionIn: Self.build, seconds: 1).markdown
        // The other build's rows, as its `--only composition --write` puts them in; then this build runs everything again.
        let otherRows = try Self.compositionRows(Self.report(compositionIn: Self.other, seconds: 7).markdown)
        let merged = try #require(
            BenchmarksFile.replacingRows(
                of: .composition, build: Self.other, by: otherRows, preambleLine: "- Composition rows of the \(Self.other) build: then", in: whole))
        let again = Self.report(compositionIn: Self.build, seconds: 2)
        let written = try again.written(sections: Set(BenchSection.allCases), over: merged)
        #expect(BenchmarksCheck.problems(written) == [])
        #expect(
            try Self.compositionRows(written).map { $0[0] + " " + $0[1] } == [
                "user.fiveFlows at 1/1, \(Self.build) build 2.00 s", "user.fiveFlows at 4/2, \(Self.build) build 2.00 s",
                "user.fiveFlows at 1/1, \(Self.other) build 7.00 s", "user.fiveFlows at 4/2, \(Self.other) build 7.00 s",
            ])
        #expect(try #require(BenchmarksFile.parse(written)).preamble.contains { $0.hasPrefix("- Composition rows of the \(Self.other) build:") })

        var updated = SampleReport.machine
        updated.os = "Test OS 1 (Linux 6.1)"
        let afterUpdate = try Self.report(compositionIn: Self.build, seconds: 2, machine: updated).written(
            sections: Set(BenchSection.allCases), over: merged)
        #expect(try Self.compositionRows(afterUpdate).count == 4, "a kernel update alone keeps the other build's rows")

        var elsewhere = SampleReport.machine
        elsewhere.cpu = "Another CPU"
        let fromElsewhere = try Self.report(compositionIn: Self.build, seconds: 2, machine: elsewhere).written(
            sections: Set(BenchSection.allCases), over: merged)
        #expect(fromElsewhere == Self.report(compositionIn: Self.build, seconds: 2, machine: elsewhere).markdown)
        #expect(try Self.compositionRows(fromElsewhere).count == 2)
    }

    @Test("--only composition --write is refused without a file, over another machine's, and for any other section")
    func refusals() throws {
        let composition = Self.report(compositionIn: Self.build, seconds: 7, onlyComposition: true)
        #expect(throws: BenchWriteProblem.self) { try composition.written(sections: [.composition], over: nil) }
        #expect(throws: BenchWriteProblem.self) { try composition.written(sections: [.composition], over: "# Benchmarks\n\nnot a table\n") }
        var elsewhere = SampleReport.machine
        elsewhere.cpu = "Another CPU"
        let file = Self.report(compositionIn: Self.other, seconds: 1, machine: elsewhere).markdown
        #expect(throws: BenchWriteProblem.self) { try composition.written(sections: [.composition], over: file) }
        #expect(throws: BenchWriteProblem.self) { try composition.written(sections: [.composition, .closure], over: SampleReport.report.markdown) }
    }
}

/// What is wrong with a `BENCHMARKS.md`, judged only from its text.
enum BenchmarksCheck {
    static func problems(_ file: String) -> [String] {
        guard let parts = BenchmarksFile.parse(file) else { return ["not a file authflow bench --write writes"] }
        var problems: [String] = []
        let printed = parts.printed.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let rendered = BenchTable.render(parts.blocks)
        if let start = printed.firstIndex(where: { $0.hasPrefix("figure ") }),
            Array(printed[start..<min(printed.count, start + rendered.count)]) != rendered
        {
            problems.append("the table differs from what the renderer makes of its own cells")
        }
        for row in parts.blocks.flatMap(\.rows) where row.count == BenchReport.header.count && row[4] != BenchTable.none {
            if BenchTable.judge(row) != (row[5] == BenchTable.verdict(true)) {
                problems.append("\(row[0]): the verdict does not follow from the figure")
            }
        }
        if BenchTable.targetSummary(parts.blocks) != parts.targets { problems.append("the targets do not follow from the table") }
        for prefix in ["- Machine: `", "- OS: ", "- Swift: ", "- Date: "] where !parts.preamble.contains(where: { $0.hasPrefix(prefix) }) {
            problems.append("the preamble lacks \(prefix)")
        }
        return problems
    }
}

@Suite("BENCHMARKS.md")
struct BenchmarksFileTests {
    static let file = Checkout.root.appendingPathComponent("BENCHMARKS.md")

    @Test(
        "the committed BENCHMARKS.md has the structure authflow bench --write renders, every section, and verdicts that follow from its figures",
        .enabled(if: FileManager.default.fileExists(atPath: file.path), "no BENCHMARKS.md in this checkout"))
    func committedFile() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(BenchmarksCheck.problems(text) == [])
        let parts = try #require(BenchmarksFile.parse(text))
        #expect(parts.blocks.map(\.heading) == BenchSection.allCases.map(\.heading), "every section, in order")
        #expect(parts.blocks.allSatisfy { !$0.rows.isEmpty })
        #expect(parts.printed.hasPrefix("authflow bench"))
    }
}

/// One whole run of the smallest configuration per test process, shared by the tests that read
/// its rows: about a minute in a debug build, most of it the closure table, which the tests of
/// single sections would otherwise measure again. It runs on a thread of its own (``OwnThread``).
enum SmallestRun {
    /// The report and the progress lines the run printed.
    static var result: (report: BenchReport, progress: [String]) {
        get async { await run.value }
    }

    private static let run = Task<(report: BenchReport, progress: [String]), Never> {
        await OwnThread.run {
            let progress = Locked<[String]>([])
            let report = Bench.run(.smallest) { line in progress.withLock { $0.append(line) } }
            return (report, progress.withLock { $0 })
        }
    }
}

@Suite("authflow bench: a whole run, smallest configuration", .timeLimit(.minutes(15)))
struct BenchRunTests {
    @Test("the smallest configuration produces a row in every section and the JSON parses (no figure is judged for speed)")
    func smallestRun() async throws {
        let (report, progress) = await SmallestRun.result
        let sections = Set(report.rows.map(\.section))
        #expect(sections == Set(BenchSection.allCases), "\(report.notes)")
        #expect(report.rows.contains { $0.section == .singleFlight && $0.figure == "N = 1,000: refreshes the server saw" })
        for row in report.rows where row.section == .singleFlight && row.unit == .count {
            #expect(row.met == true, "single flight: \(row.figure) saw \(row.spread.sorted)")
        }
        #expect(report.rows.contains { $0.section == .plantedBug && $0.target != nil && $0.met == true }, "the planted bug is found and shrunk")
        #expect(
            report.rows.contains { $0.section == .fuzzer && $0.figure.hasPrefix("Hypothesis") }
                || report.notes.contains { $0.hasPrefix("fuzzer: Hypothesis not measured in this run (") },
            "the yardstick is measured, or a note says why not")
        // A figure taken on a model that breaks an invariant measures how fast it stops, not the
        // explorer: every model but the planted bug's must hold (the large model once did not).
        for row in report.rows where row.section != .plantedBug {
            #expect(!row.details.contains { $0.text.contains("stopped at a violation") }, "\(row.figure): \(row.details.map(\.text))")
        }
        #expect(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) is [String: Any])
        #expect(BenchmarksCheck.problems(report.markdown) == [])
        #expect(!progress.isEmpty)
    }

    @Test("a run of only some sections has rows in those sections and no others")
    func onlySomeSections() {
        let report = Bench.run(.smallest, sections: [.reducer, .plantedBug]) { _ in }
        #expect(Set(report.rows.map(\.section)) == [.reducer, .plantedBug], "\(report.notes)")
        #expect(report.notes.contains { $0.hasPrefix("reducer streams") })
        #expect(
            !report.notes.contains { $0.hasPrefix("runner overhead") || $0.hasPrefix("single-flight") || $0.hasPrefix("B/state") }, "\(report.notes)")
    }
}

@Suite("authflow bench: the large model's reduce-only ceiling", .timeLimit(.minutes(15)))
struct ReduceCeilingTests {
    @Test(
        "the sampler sees every transition and keeps those of every stride-th expanded state that reach reduce, a relaunch from the initial state",
        arguments: [3, 8])
    func samplerKeepsWholeStates(stride: Int) throws {
        let model = BenchModels.callers(1)
        // One thread, as the bench explores: on several, the step checks see the moves of a
        // level in whatever order the threads take them.
        let limits = ExplorationLimits(maxStates: 300, threads: 1)
        let all = TransitionSampler<CallersModel.Machine>(initial: model.machine.initial, stride: 1)
        let waits = Locked(0)
        let report = Explorer.explore(
            ObservingModel(base: model) { transition in
                all.record(transition)
                if case .wait = transition.move.choice { waits.withLock { $0 += 1 } }
            }, limits: limits)
        let some = TransitionSampler<CallersModel.Machine>(initial: model.machine.initial, stride: stride)
        _ = Explorer.explore(ObservingModel(base: model) { some.record($0) }, limits: limits)

        #expect(report.transitions > 0)
        #expect(all.transitions == report.transitions && some.transitions == report.transitions, "shown every transition stepped")
        // Time passing to a deadline reaches no reducer: counted, never kept.
        let waited = waits.withLock { $0 }
        #expect(waited > 0, "the session has deadlines to wait for")
        #expect(all.segments.count == report.transitions - waited, "stride 1 keeps every transition but the waits")
        #expect(all.reducingShare == Double(report.transitions - waited) / Double(report.transitions))
        #expect(some.reducingShare == all.reducingShare)
        #expect(all.segments.allSatisfy { $0.events.count == 1 })
        #expect(all.expandedStates == all.expandedStates.sorted(), "the transitions of one state come in a row")
        let expanded = Set(all.expandedStates).count
        #expect(expanded > 1 && expanded <= report.states)
        // Every stride-th expanded state's transitions, all of them, and nothing else.
        let chosen = all.expandedStates.indices.filter { all.expandedStates[$0] % stride == 0 }
        #expect(some.expandedStates == chosen.map { all.expandedStates[$0] })
        #expect(some.segments.map(\.events) == chosen.map { all.segments[$0].events })
        #expect(some.segments.map(\.start) == chosen.map { all.segments[$0].start })

        let relaunches = all.segments.filter {
            if case .launched = $0.events[0] { return true }
            return false
        }
        #expect(!relaunches.isEmpty, "the session relaunches, so some transition is a relaunch")
        #expect(relaunches.allSatisfy { $0.start == model.machine.initial }, "a relaunch restarts the app from its initial state")
        #expect(report.invariants == 1, "only the observing check runs: the base model's invariants are left out of the sampling")
    }

    @Test("the ceiling row follows from its own details: reduce's time a transition times transitions a state")
    func ceilingRowIsConsistent() async throws {
        let report = await SmallestRun.result.report
        let row = try #require(report.rows.first { $0.section == .largeModel && $0.figure.hasSuffix("reduce-only ceiling") })
        let explorer = try #require(report.rows.first { $0.section == .largeModel && $0.figure.hasSuffix("distinct states/s") })
        func value(_ key: String) throws -> Double {
            let detail = try #require(row.details.first { $0.key == key }, "detail \(key)")
            guard case .double(let number) = detail.value else { throw CeilingProblem.notANumber(key) }
            return number
        }
        let nanoseconds = try value("nanosecondsPerTransition")
        let perState = try value("transitionsPerState")
        let microseconds = try value("reduceMicrosecondsPerState")
        #expect(nanoseconds > 0 && perState > 1)
        #expect(abs(microseconds - nanoseconds * perState / 1_000) <= 1e-9 * microseconds)
        #expect(abs(row.spread.median - 1e6 / microseconds) <= 1e-6 * row.spread.median)
        #expect(abs(try value("explorerMicrosecondsPerState") - 1e6 / explorer.spread.median) <= 1e-6 * 1e6 / explorer.spread.median)
        #expect(report.notes.contains { $0.hasPrefix("large model, reduce-only ceiling") })
    }

    @Test("every model authflow verify runs can have its transitions sampled for the closure table's reduce-alone row")
    func everyVerifiedModelSampled() {
        let sampled = Set(ReducerBench.subjects.filter { $0.explored != nil }.map(\.name))
        #expect(sampled == Set(Models.all.map(\.name)))
    }

    @Test("the closure table's reduce-alone row times every model of verify's run and shares their time by the cores")
    func verifyFloorRowIsConsistent() async throws {
        let report = await SmallestRun.result.report
        let row = try #require(report.rows.first { $0.figure == "authflow verify at 4/2: reduce alone" })
        #expect(!row.details.contains { $0.key == "untimed" }, "\(row.details.map(\.text))")
        let detail = try #require(row.details.first { $0.key == "reduceSeconds" })
        guard case .double(let seconds) = detail.value else { throw CeilingProblem.notANumber("reduceSeconds") }
        #expect(seconds > 0)
        #expect(abs(row.spread.median - seconds / Double(Cores.online)) <= 1e-9 * seconds)
        // The waits for a deadline are left out, and say how many there were: some, at most one a state.
        let waits = try #require(row.details.first { $0.key == "waitShare" })
        guard case .double(let share) = waits.value else { throw CeilingProblem.notANumber("waitShare") }
        #expect(share > 0 && share < 0.5, "\(share)")
        #expect(report.notes.contains { $0.hasPrefix("closure, reduce alone") })
    }

    enum CeilingProblem: Error { case notANumber(String) }
}

@Suite("authflow bench: the reducer's recorded event stream")
struct ReducerStreamTests {
    /// The fuzzer follows a transition it already checked without stepping it (so without showing
    /// it to the invariants); the recorder must therefore fuzz with every step afresh, or its
    /// stream would be the session's first steps only, cut wherever a walk followed a known one.
    @Test("the stream is the walks' own: every segment starts where a walk starts or the app relaunches, from the initial state")
    func segmentsAreWholeWalks() {
        let model = Models.session(.everday)
        let segments = ReducerBench.record(model, events: 4_000, seed: 0xB34C_4BE7)
        #expect(segments.reduce(0) { $0 + $1.events.count } >= 4_000)
        let initial = model.machine.initial
        let cut = segments.indices.filter { segments[$0].start != initial }
        #expect(cut.isEmpty, "\(cut.count) of \(segments.count) segments start inside a walk")
    }
}

@Suite("authflow bench: Hypothesis, the fuzzer's yardstick")
struct HypothesisYardstickTests {
    /// Whether `python3` on the PATH has Hypothesis: the tests that run the program need it, the
    /// others do not.
    static let hasHypothesis: Bool = {
        if case .measured = HypothesisYardstick().measure(examples: 1, repetitions: 1, budget: 0) { return true }
        return false
    }()

    @Test("the program's figures, its reason for having none, and a failure each read as they are")
    func readsOutput() {
        let figures = #"{"steps": 14220, "seconds": 2.5, "hypothesis": "6.155.2", "python": "3.11.7"}"#
        #expect(
            HypothesisYardstick.sample(fromOutput: "a warning\n" + figures + "\n", status: 0, python: "python3")
                == .success(.init(steps: 14_220, seconds: 2.5, versions: "Hypothesis 6.155.2, Python 3.11.7")))
        #expect(
            HypothesisYardstick.sample(fromOutput: #"{"unavailable": "no Hypothesis in /usr/bin/python3"}"#, status: 0, python: "python3")
                == .failure(.init(description: "no Hypothesis in /usr/bin/python3")))
        #expect(
            HypothesisYardstick.sample(fromOutput: "env: 'py': No such file or directory\n", status: 127, python: "py")
                == .failure(.init(description: "no py to run (env: 'py': No such file or directory)")))
        let failed = HypothesisYardstick.sample(fromOutput: #"{"failed": "AssertionError in single_flight"}"#, status: 1, python: "python3")
        #expect(failed == .failure(.init(description: "the Hypothesis program failed under python3: AssertionError in single_flight")))
        let crashed = HypothesisYardstick.sample(fromOutput: "Traceback…\nSyntaxError\n", status: 1, python: "python3")
        #expect(crashed == .failure(.init(description: "the Hypothesis program failed under python3 (exit status 1): SyntaxError")))
        for garbage in ["", "not json", "[1, 2]", #"{"steps": 0, "seconds": 1.0, "hypothesis": "6", "python": "3"}"#, #"{"steps": 10}"#] {
            guard case .failure(let problem) = HypothesisYardstick.sample(fromOutput: garbage, status: 0, python: "python3") else {
                Issue.record("\(garbage) read as figures")
                continue
            }
            #expect(problem.description.contains("python3"), "\(problem)")
        }
    }

    @Test("the target is 100× Hypothesis's median when measured, 100× the recorded figure when not")
    func target() {
        let measured = HypothesisYardstick.target(.measured(samples: [6_000, 4_000, 5_000], steps: 1, versions: ""))
        #expect(measured == BenchTarget(.atLeast, 500_000, "500 k events/s, 100× Hypothesis"))
        let recorded = HypothesisYardstick.target(.unavailable("no Hypothesis"))
        #expect(recorded == BenchTarget(.atLeast, 255_000, "255 k events/s, 100× Hypothesis as recorded"))
    }

    @Test("no such Python, or one that prints no figures, is a reason and no figure")
    func unavailable() throws {
        guard case .unavailable(let missing) = HypothesisYardstick(python: "/nonexistent/python3").measure(examples: 1, repetitions: 3, budget: 9)
        else {
            Issue.record("a Python that is not there measured something")
            return
        }
        #expect(missing.hasPrefix("no /nonexistent/python3 to run"), "\(missing)")
        // `echo` prints its arguments (`-c`, the program, the count): a line that is no JSON object.
        guard case .unavailable(let printed) = HypothesisYardstick(python: "echo").measure(examples: 1, repetitions: 1, budget: 0) else {
            Issue.record("echo measured something")
            return
        }
        #expect(printed.hasPrefix("the Hypothesis program printed no figures under echo"), "\(printed)")
        // A command that prints without end is stopped at the limit, not read until memory runs out.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-yardstick-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let endlessPython = directory.appendingPathComponent("endless").path
        try "#!/bin/sh\nwhile :; do echo 'not a figure, not a figure, not a figure'; done\n".write(
            toFile: endlessPython, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: endlessPython)
        guard case .unavailable(let endless) = HypothesisYardstick(python: endlessPython).measure(examples: 1, repetitions: 1, budget: 0)
        else {
            Issue.record("an endless printer measured something")
            return
        }
        #expect(endless == "\(endlessPython) printed more than 256 KiB, which the Hypothesis program never does")
        // One that never ends is stopped at the time limit, not waited for.
        let silentPython = directory.appendingPathComponent("silent").path
        try "#!/bin/sh\nwhile :; do :; done\n".write(toFile: silentPython, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: silentPython)
        guard case .unavailable(let stuck) = HypothesisYardstick(python: silentPython).measure(examples: 1, repetitions: 1, budget: 0, timeLimit: 0.5)
        else {
            Issue.record("a command that never ends measured something")
            return
        }
        #expect(stuck == "\(silentPython) ran longer than \(BenchFormat.duration(0.5)), which the Hypothesis program never does")
    }

    @Test("with Hypothesis installed, the program steps the session", .enabled(if: hasHypothesis))
    func runs() {
        guard case .measured(let samples, let steps, let versions) = HypothesisYardstick().measure(examples: 3, repetitions: 1, budget: 0)
        else {
            Issue.record("python3 with Hypothesis measured nothing")
            return
        }
        #expect(samples.count == 1 && samples[0] > 0 && steps > 0)
        #expect(versions.hasPrefix("Hypothesis "))
    }

    /// A bug planted in the program, and the invariant that must catch it.
    struct Plant: Sendable, CustomTestStringConvertible {
        let line: String
        let planted: String
        let invariant: String
        var testDescription: String { invariant }
    }

    @Test(
        "with Hypothesis installed, each of the program's invariants catches its planted bug", .enabled(if: hasHypothesis),
        arguments: [
            // The refresh that succeeds keeps the refresh token it sent instead of rotating it: the
            // next refresh sends a retired token.
            Plant(
                line: "self.retired.add(token)\n                self.session = [self.issue(), self.now + LIFETIME, self.issue()]",
                planted: "self.retired.add(token)\n                self.session = [self.issue(), self.now + LIFETIME, token]",
                invariant: "no_retired_refresh_token_sent"),
            // A second refresh goes out while one is in flight.
            Plant(
                line: "if self.refreshing is None:\n            self.refreshing = self.send(\"refresh\", self.session[2])",
                planted: "self.refreshing = self.send(\"refresh\", self.session[2])", invariant: "single_flight"),
            // Calls go out up to 30 seconds past the access token's expiry.
            Plant(
                line: "if self.now < self.session[1] - EARLY:", planted: "if self.now < self.session[1] + EARLY:",
                invariant: "no_expired_access_token_sent"),
        ])
    func catches(_ plant: Plant) {
        #expect(HypothesisYardstick.program.contains(plant.line))
        let planted = HypothesisYardstick.program.replacingOccurrences(of: plant.line, with: plant.planted)
        guard case .unavailable(let reason) = HypothesisYardstick().measure(examples: 300, repetitions: 1, budget: 0, program: planted) else {
            Issue.record("the planted bug went unseen")
            return
        }
        #expect(reason == "the Hypothesis program failed under python3: AssertionError in \(plant.invariant)")
    }
}
