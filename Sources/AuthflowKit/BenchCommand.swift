import AuthSupport
import AuthflowBench
import Foundation

extension BenchConfiguration {
    /// The flags `authflow bench` takes.
    public static let flags: Set<String> = ["quick", "json", "write", "strict", "wide", "help"]

    /// The configuration a command line asks for: `--quick`, or the full run.
    public static func chosen(by arguments: Arguments) -> BenchConfiguration {
        arguments.flags.contains("quick") ? .quick : .full
    }

    /// The sections `--only a,b` names (every section without `--only`), by their raw names:
    /// `reducer`, `explorer`, `largeModel`, `growth`, `fuzzer`, `plantedBug`, `runnerOverhead`,
    /// `singleFlight`. An unknown or empty name is refused.
    static func sections(chosenBy arguments: Arguments) throws(Authflow.CommandProblem) -> Set<BenchSection> {
        guard let list = arguments.options["only"] else { return Set(BenchSection.allCases) }
        var sections: Set<BenchSection> = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let section = BenchSection(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw Authflow.CommandProblem(
                    description:
                        "--only takes sections separated by commas (\(BenchSection.allCases.map(\.rawValue).joined(separator: ", "))), not '\(name)'")
            }
            sections.insert(section)
        }
        return sections
    }
}

extension Authflow {
    /// `authflow bench [--quick] [--json] [--write] [--strict] [--wide] [--only SECTION,…] [--python PATH]`.
    static func bench(_ arguments: Arguments, out: (String) -> Void, err: (String) -> Void) throws -> Int32 {
        let refused =
            arguments.options.keys.filter { $0 != "only" && $0 != "python" }.sorted().map { "--\($0)" }
            + arguments.flags.subtracting(BenchConfiguration.flags).sorted().map { "--\($0)" }
        guard refused.isEmpty else {
            throw CommandProblem(
                description:
                    "bench takes only --quick, --json, --write, --strict, --wide, --only and --python, not \(refused.joined(separator: " "))")
        }
        let sections = try BenchConfiguration.sections(chosenBy: arguments)
        let python = arguments.options["python"] ?? "python3"
        // `env` runs it: a name that begins with a dash would be read as one of env's own options.
        guard !python.trimmingCharacters(in: .whitespaces).isEmpty, !python.hasPrefix("-") else {
            throw CommandProblem(description: "--python takes the path or the name of a Python 3 with Hypothesis, not '\(python)'")
        }
        let path = FileManager.default.currentDirectoryPath + "/BENCHMARKS.md"
        let existing = try? String(contentsOfFile: path, encoding: .utf8)
        let writes = arguments.flags.contains("write")
        if writes {
            // Refused before the minutes of measuring, not after.
            do throws(BenchWriteProblem) {
                _ = try BenchReport.writable(sections: sections, over: existing, on: .current)
            } catch {
                throw CommandProblem(description: error.description)
            }
        }
        let configuration = BenchConfiguration.chosen(by: arguments)
        err("authflow bench (\(configuration.name)): measuring; progress on standard error…")
        let report = Bench.run(configuration, sections: sections, yardstick: HypothesisYardstick(python: python)) { err("  \($0)") }
        out(arguments.flags.contains("json") ? report.json : arguments.flags.contains("wide") ? report.text : report.narrowText)
        if writes {
            let file: String
            do throws(BenchWriteProblem) {
                file = try report.written(sections: sections, over: existing)
            } catch {
                throw CommandProblem(description: error.description)
            }
            do {
                try file.write(toFile: path, atomically: true, encoding: .utf8)
            } catch {
                throw CommandProblem(description: "could not write \(path): \(error.localizedDescription)")
            }
            err("wrote \(path)")
        }
        return Self.benchStatus(report, strict: arguments.flags.contains("strict"))
    }

    /// `bench`'s exit status: 0, or with `--strict` 1 when a printed target is not met.
    static func benchStatus(_ report: BenchReport, strict: Bool) -> Int32 {
        strict && report.rows.contains { $0.met == false } ? 1 : 0
    }
}
