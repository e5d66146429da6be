#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AuthSupport

/// An executable that verifies your compositions, run optimized by `swift package verify`.
///
/// A debug build runs the explorer five to ten times slower than an optimized one, and `swift test`
/// builds debug. Put the models in an executable target that depends on `AuthVerification`, and
/// make its `@main` type conform:
///
/// ```swift
/// import AuthVerification
///
/// @main struct MyAppVerification: VerificationCommand {
///     static let models = [AnyModel(Model(of: myApp, name: "myApp", maxInFlight: 4, maxStale: 2))]
/// }
/// ```
///
/// `swift package verify` (the package's command plugin) builds every such target in release and
/// runs it; so does `swift run -c release MyAppVerification`. For each model it checks the model
/// contract (``ContractCheck``), explores to closure printing its progress, prints every
/// violation with its shortest trace and every structural finding, then fuzzes. It exits 0 when
/// every model closed and passed, 1 when a check failed, 2 when a model passed as far as it was
/// explored but a limit (`--max-seconds`, `--max-states`) stopped it first, and 64 for a command
/// line it refuses. `--help` lists the options.
public protocol VerificationCommand: Sendable {
    /// The models to verify, in the order they are checked.
    static var models: [AnyModel] { get }
}

extension VerificationCommand {
    /// Verifies ``models`` with the process's arguments and exits with the run's status.
    public static func main() {
        let status = Verification.run(models, arguments: Array(CommandLine.arguments.dropFirst()))
        exit(status.rawValue)
    }
}

/// The run behind ``VerificationCommand``: contract check, exploration and fuzzing of each model,
/// reported as it goes.
public enum Verification {
    /// How a run ended: the process's exit status.
    public enum Status: Int32, Hashable, Sendable {
        /// Every model closed, every invariant held, the structure is sound and fuzzing found
        /// nothing.
        case passed = 0
        /// A check failed: a violation, a structural finding, a broken model contract or a fuzz
        /// failure.
        case failed = 1
        /// Nothing failed, but a limit stopped at least one exploration before closure.
        case notClosed = 2
        /// The command line was refused; nothing ran.
        case usage = 64
    }

    /// The options a verification executable takes.
    public static let usage = """
        USAGE: <verification executable> [options]   (or: swift package verify [options])

          --only NAMES         verify only the models named (comma-separated: a,b)
          --in-flight N        explore every model at N requests in flight (1…8), not its own bounds
          --stale M            … and M answers left over (1…8)
          --max-seconds S      stop an exploration after S seconds (up to a day): "not closed: explored N states to depth D"
          --max-states N       stop an exploration after N distinct states
          --keep-going         explore on after a violation, for every invariant's shortest violation
          --no-reduction       the plain search, without the symmetry reduction
          --threads T          explore on T threads (1…64; default: one per core); the results do not depend on it
          --seed S             the fuzzing session's seed (decimal or 0x hex)
          --runs N             fuzz walks per model (0 skips fuzzing; default 200)
          --length L           events per fuzz walk (default 400)
          --help               this text

        Exit status: 0 passed, 1 a check failed, 2 a limit stopped an exploration first, 64 a refused command line.
        """

    /// Verifies `models` as `arguments` (without the program name) ask, printing each result to
    /// standard output and the exploration's progress to standard error: a live line on a
    /// terminal, a line every ten seconds otherwise.
    public static func run(_ models: [AnyModel], arguments: [String]) -> Status {
        let live = isatty(2) != 0
        return run(
            models, arguments: arguments, out: { emit($0 + "\n", to: 1) },
            progress: { line in emit(live ? "\r\u{1B}[K\(line)" : "\(line)\n", to: 2) },
            endProgress: { if live { emit("\r\u{1B}[K", to: 2) } }, progressEvery: live ? .milliseconds(200) : .seconds(10))
    }

    /// Writes `text` to a file descriptor at once, unbuffered, so that results (standard output)
    /// and progress (standard error) interleave in the order they were written, even in a pipe.
    static func emit(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                guard let start = buffer.baseAddress else { return 0 }
                return write(descriptor, start + written, buffer.count - written)
            }
            guard count > 0 else { return }
            written += count
        }
    }

    /// The run with its outputs given: `progress` receives a line at most every `progressEvery`,
    /// `endProgress` is called when an exploration is done.
    static func run(
        _ models: [AnyModel], arguments: [String], out: (String) -> Void, progress: @escaping @Sendable (String) -> Void,
        endProgress: () -> Void, progressEvery: Duration
    ) -> Status {
        let options: Options
        do {
            options = try Options(arguments, models: models)
        } catch {
            out("error: \(error)\n\n\(usage)")
            return .usage
        }
        if options.help {
            out(usage)
            return .passed
        }
        guard !options.models.isEmpty else {
            out("✗ no model to verify: list at least one in `models`")
            return .failed
        }
        var status = Status.passed
        for model in options.models {
            let result = verify(model, options, out: out, progress: progress, endProgress: endProgress, progressEvery: progressEvery)
            if result == .failed || (result == .notClosed && status == .passed) { status = result }
        }
        let summary =
            switch status {
            case .passed: options.models.count == 1 ? "✓ 1 model verified" : "✓ \(options.models.count) models verified"
            case .failed: "✗ verification failed"
            case .notClosed, .usage: "not closed: a limit stopped an exploration before closure; nothing failed in what was explored"
            }
        out(summary)
        return status
    }

    static func verify(
        _ model: AnyModel, _ options: Options, out: (String) -> Void, progress: @escaping @Sendable (String) -> Void,
        endProgress: () -> Void, progressEvery: Duration
    ) -> Status {
        out("\(model.name) (at most \(model.inFlight) in flight, \(model.stale) left over)")
        let contract = model.checkContract(states: 2_000)
        if let finding = contract.finding {
            out("  ✗ model contract: \(finding)")
            return .failed
        }
        out("  ✓ model contract: the menu depends on the world's facts alone (\(contract.states) worlds)")

        let report = model.explore(
            limits: options.limits, progress: ExplorationProgress.throttled(every: progressEvery) { progress("  exploring \(model.name): \($0)") },
            found: { progress("  ✗ found \($0.summary)") })
        endProgress()
        report.violations.forEach { out(indented($0.description)) }
        report.findings.forEach { out(indented($0.description)) }
        if !report.complete, !report.deepestTrace.isEmpty, report.violations.isEmpty {
            out("  a shortest trace to a deepest state reached:")
            report.deepestTrace.enumerated().forEach { out("    \($0.offset + 1). \($0.element)") }
        }
        let seconds = (report.seconds * 10).rounded() / 10
        out("  \(report.passed ? "✓ " : report.violations.isEmpty && report.findings.isEmpty ? "" : "✗ ")\(report.verdict) (\(seconds) s)")
        var status: Status = report.passed ? .passed : report.violations.isEmpty && report.findings.isEmpty ? .notClosed : .failed

        if options.fuzzing.runs > 0 {
            let fuzzing = model.fuzz(options.fuzzing)
            let seed = "0x" + String(options.fuzzing.seed, radix: 16, uppercase: true)
            if let failure = fuzzing.failure {
                out(indented("✗ fuzzing (seed \(seed)): \(failure)"))
                status = .failed
            } else {
                out("  ✓ fuzzing: \(fuzzing.runs) walks, \(fuzzing.events) events, no violation (seed \(seed))")
            }
        }
        return status
    }

    static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }

    /// A command line, checked.
    struct Options {
        var help = false
        var models: [AnyModel] = []
        var limits = ExplorationLimits()
        var fuzzing = FuzzConfiguration()

        /// Why a command line was refused, beyond what ``Arguments`` refuses.
        enum Problem: Error, CustomStringConvertible {
            case positional(String)
            case unknownModel(String, known: [String])
            case noModelNamed(known: [String])

            var description: String {
                switch self {
                case .positional(let word): "unexpected argument '\(word)': every option starts with --"
                case .unknownModel(let name, let known): "no model named '\(name)'; the models: \(known.joined(separator: ", "))"
                case .noModelNamed(let known): "--only names no model; the models: \(known.joined(separator: ", "))"
                }
            }
        }

        init(_ words: [String], models all: [AnyModel]) throws {
            let arguments = try Arguments.parse(
                words, valued: ["only", "in-flight", "stale", "max-seconds", "max-states", "threads", "seed", "runs", "length"],
                flags: ["keep-going", "no-reduction", "help"])
            if let word = arguments.command ?? arguments.positional.first { throw Problem.positional(word) }
            help = arguments.flags.contains("help")
            func number(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) throws -> Int {
                let value = try arguments.integer(name, default: fallback)
                guard range.contains(value) else {
                    throw Arguments.Problem.outOfRange(option: name, value: arguments.options[name] ?? "\(value)", range: range)
                }
                return value
            }
            models = all
            if let only = arguments.options["only"] {
                var names: [String] = []
                for name in only.split(separator: ",").map(String.init) where !names.contains(name) { names.append(name) }  // Each once.
                guard !names.isEmpty else { throw Problem.noModelNamed(known: all.map(\.name)) }
                models = try names.map { name in
                    guard let model = all.first(where: { $0.name == name }) else {
                        throw Problem.unknownModel(name, known: all.map(\.name))
                    }
                    return model
                }
            }
            if arguments.options["in-flight"] != nil || arguments.options["stale"] != nil {
                let inFlight = try arguments.options["in-flight"] == nil ? nil : number("in-flight", 1, 1...8)
                let stale = try arguments.options["stale"] == nil ? nil : number("stale", 1, 1...8)
                models = models.map { $0.bounded(inFlight: inFlight ?? $0.inFlight, stale: stale ?? $0.stale) }
            }
            let seconds = try arguments.options["max-seconds"] == nil ? nil : number("max-seconds", 0, 1...86_400)
            limits = ExplorationLimits(
                maxStates: try number("max-states", ExplorationLimits().maxStates, 1...100_000_000),
                keepGoing: arguments.flags.contains("keep-going"),
                reduction: arguments.flags.contains("no-reduction") ? .plain : .symmetric,
                maxDuration: seconds.map { .seconds($0) }, threads: try number("threads", Cores.online, 1...64))
            fuzzing = FuzzConfiguration(
                seed: try arguments.seed("seed", default: FuzzConfiguration().seed), runs: try number("runs", 200, 0...1_000_000),
                length: try number("length", 400, 1...1_000_000))
        }
    }
}
