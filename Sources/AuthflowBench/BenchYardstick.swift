import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The yardstick of the fuzzer's rows that step every event afresh: Hypothesis's
/// `RuleBasedStateMachine` stepping a rotating-refresh session, the Python program below, timed
/// in the same run as the rows it judges, so the target moves with the machine as they do.
///
/// Hypothesis is the property-based testing library most teams would reach for; 100× its steps
/// per second is the lead the fuzzer is meant to keep. Nothing in the package depends on it: the
/// bench runs the program with the Python 3 it is given, and where that Python has no Hypothesis
/// the rows are judged against the figure recorded before (``recordedStepsPerSecond``) and a note
/// says so.
public struct HypothesisYardstick: Sendable {
    /// The Python 3 that runs the program: a path, or a name looked up on the `PATH`.
    public var python: String

    /// A yardstick run by `python` (`python3` on the `PATH` unless told).
    public init(python: String = "python3") { self.python = python }

    /// What the yardstick gave.
    enum Measurement {
        /// Steps per second of each sample, with the steps of one sample and the versions that ran.
        case measured(samples: [Double], steps: Int, versions: String)
        /// Why there is no figure: no such Python, no Hypothesis in it, or the program failed.
        case unavailable(String)
    }

    /// Hypothesis's steps per second recorded before the bench measured them itself, the fastest
    /// of 2,450–2,550 on one core of a 2-core machine: the target used to be 100× this, fixed,
    /// while the machine's speed moved under it (this program ran 3.3–5.5 k steps/s on the bench's
    /// machine on 2026-12-07).
    static let recordedStepsPerSecond = 2_550.0

    /// The fuzzer's lead over Hypothesis that the rows stepping every event afresh must keep.
    static let lead = 100.0

    /// Runs `program` (``program`` unless a test plants a bug in it) `repetitions` times, fewer
    /// once `budget` seconds have passed, each run generating `examples` examples of at most 50 steps
    /// and stopped after `timeLimit` seconds.
    func measure(
        examples: Int, repetitions: Int, budget: Double, program: String = Self.program, timeLimit: Double = Self.timeLimit
    ) -> Measurement {
        var samples: [Double] = []
        var steps = 0
        var versions = ""
        for result in VerificationBench.repeated(repetitions, budget: budget, { run(program, examples: examples, timeLimit: timeLimit) }) {
            switch result {
            case .success(let sample):
                samples.append(Double(sample.steps) / max(sample.seconds, 1e-9))
                steps = sample.steps
                versions = sample.versions
            case .failure(let problem):
                return .unavailable(problem.description)
            }
        }
        return .measured(samples: samples, steps: steps, versions: versions)
    }

    /// The target of the rows stepping every event afresh: ``lead`` times the measured median, or
    /// times ``recordedStepsPerSecond`` when there is none.
    static func target(_ measurement: Measurement) -> BenchTarget {
        switch measurement {
        case .measured(let samples, _, _):
            let bound = lead * Spread(samples).median
            return BenchTarget(.atLeast, bound, "\(BenchFormat.si(bound)) events/s, 100× Hypothesis")
        case .unavailable:
            let bound = lead * recordedStepsPerSecond
            return BenchTarget(.atLeast, bound, "\(BenchFormat.si(bound)) events/s, 100× Hypothesis as recorded")
        }
    }

    /// One run of the program: the steps it took and how long they took, without Python's start.
    struct Sample: Equatable {
        let steps: Int
        let seconds: Double
        /// `Hypothesis 6.155.2, Python 3.11.7`.
        let versions: String
    }

    /// Why a run gave no sample.
    struct Problem: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    private func run(_ program: String, examples: Int, timeLimit: Double) -> Result<Sample, Problem> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-c", program, String(examples)]
        // One pipe for both streams: a failing run's last line (the exception) is its reason, and
        // a long traceback cannot fill a second pipe nobody reads yet.
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(Problem(description: "could not start /usr/bin/env: \(error.localizedDescription)"))
        }
        // SIGKILL, not `terminate()`'s SIGTERM: a child inherits the signals its parent's thread
        // blocks, and under a test runner SIGTERM is among them.
        let started = ContinuousClock.now
        let processIdentifier = process.processIdentifier
        let overtime = DispatchWorkItem { kill(processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit, execute: overtime)
        defer { overtime.cancel() }
        // The program prints a few lines; a command that prints without end is stopped, not
        // read until memory runs out.
        var data = Data()
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
            if data.count > Self.outputLimit {
                kill(processIdentifier, SIGKILL)
                try? output.fileHandleForReading.close()
                process.waitUntilExit()
                return .failure(
                    Problem(description: "\(python) printed more than \(Self.outputLimit / 1_024) KiB, which the Hypothesis program never does"))
            }
        }
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal && ContinuousClock.now >= started + .seconds(timeLimit) {
            return .failure(
                Problem(description: "\(python) ran longer than \(BenchFormat.duration(timeLimit)), which the Hypothesis program never does"))
        }
        let text = String(decoding: data, as: UTF8.self)
        return Self.sample(fromOutput: text, status: process.terminationStatus, python: python)
    }

    /// The most output a run may print: a failing run's traceback is a few KiB.
    static let outputLimit = 256 * 1_024

    /// The longest a run may take: 300 examples take a few seconds.
    static let timeLimit = 300.0

    /// Reads what the program printed: its last line is one JSON object, the figures, the
    /// exception an invariant raised, or why Hypothesis is unavailable. `env` exits 127 when there
    /// is no such Python.
    static func sample(fromOutput text: String, status: Int32, python: String) -> Result<Sample, Problem> {
        let last = text.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        let object = (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any]
        if let failed = object?["failed"] as? String {
            return .failure(Problem(description: "the Hypothesis program failed under \(python): \(failed)"))
        }
        if let reason = object?["unavailable"] as? String { return .failure(Problem(description: reason)) }
        if status == 127 { return .failure(Problem(description: "no \(python) to run (\(last))")) }
        guard status == 0 else {
            return .failure(Problem(description: "the Hypothesis program failed under \(python) (exit status \(status)): \(last)"))
        }
        guard let object else {
            return .failure(Problem(description: "the Hypothesis program printed no figures under \(python): \(last)"))
        }
        guard let steps = object["steps"] as? Int, steps > 0, let seconds = object["seconds"] as? Double, seconds > 0,
            let hypothesis = object["hypothesis"] as? String, let pythonVersion = object["python"] as? String
        else {
            return .failure(Problem(description: "the Hypothesis program's figures are incomplete under \(python): \(last)"))
        }
        return .success(Sample(steps: steps, seconds: seconds, versions: "Hypothesis \(hypothesis), Python \(pythonVersion)"))
    }

    /// The rotating-refresh session as a `RuleBasedStateMachine`, with its own invariants checked
    /// after every step, as the fuzzer checks its models'. Its one argument is the number of
    /// examples; `derandomize` makes every run generate the same ones.
    static let program = #"""
        """Rotating refresh as a Hypothesis RuleBasedStateMachine: authflow bench's yardstick.

        A session holds an access token with an expiry and a refresh token. Protected calls go out
        with the access token while it is fresh; near its expiry one refresh goes out (single flight)
        and rotates both tokens when it succeeds. Answers arrive in any order: success, 401 or a
        network failure; a 401 to a call starts a refresh, one to the refresh signs the session out,
        and answers to a session signed out are stale. Time passes; logout ends the session. After
        every step: at most one refresh in flight for the session, no retired refresh token sent, no
        call sent with an expired access token.
        """
        import json, platform, sys, time, traceback

        try:
            import hypothesis
            from hypothesis import HealthCheck, Phase, settings, strategies as st
            from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
        except ImportError:
            print(json.dumps({"unavailable": "no Hypothesis in " + sys.executable + " (pip install hypothesis)"}))
            sys.exit(0)

        LIFETIME, EARLY, IN_FLIGHT = 120, 30, 4
        steps = 0


        class RotatingRefresh(RuleBasedStateMachine):
            def __init__(self):
                super().__init__()
                self.now = 0
                self.session = None  # [access token, its expiry, refresh token] while signed in
                self.generation = 0  # one more at every sign-out
                self.refreshing = None  # the id of the session's refresh in flight
                self.in_flight = []  # (id, kind, token, generation)
                self.retired = set()
                self.sent = []  # (kind, retired when sent, fresh when sent)
                self.last_id = 0
                self.last_token = 0

            def issue(self):
                self.last_token += 1
                return self.last_token

            def send(self, kind, token):
                self.last_id += 1
                self.in_flight.append((self.last_id, kind, token, self.generation))
                self.sent.append((kind, token in self.retired, kind == "refresh" or self.now < self.session[1]))
                return self.last_id

            def refresh(self):
                if self.refreshing is None:
                    self.refreshing = self.send("refresh", self.session[2])

            def sign_out(self):
                self.session, self.refreshing = None, None
                self.generation += 1

            @precondition(lambda self: self.session is None)
            @rule()
            def sign_in(self):
                global steps
                steps += 1
                self.session = [self.issue(), self.now + LIFETIME, self.issue()]

            @precondition(lambda self: self.session is not None and len(self.in_flight) < IN_FLIGHT)
            @rule()
            def call(self):
                global steps
                steps += 1
                if self.now < self.session[1] - EARLY:
                    self.send("call", self.session[0])
                else:
                    self.refresh()

            @precondition(lambda self: self.in_flight)
            @rule(index=st.integers(0, IN_FLIGHT - 1), outcome=st.sampled_from(["ok", "401", "network"]))
            def answer(self, index, outcome):
                global steps
                steps += 1
                request, kind, token, generation = self.in_flight.pop(index % len(self.in_flight))
                if generation != self.generation or self.session is None:
                    return
                if request == self.refreshing:
                    self.refreshing = None
                    if outcome == "ok":
                        self.retired.add(token)
                        self.session = [self.issue(), self.now + LIFETIME, self.issue()]
                    elif outcome == "401":
                        self.sign_out()
                elif kind == "call" and outcome == "401":
                    self.refresh()

            @rule(seconds=st.sampled_from([15, 30, 60]))
            def wait(self, seconds):
                global steps
                steps += 1
                self.now += seconds

            @precondition(lambda self: self.session is not None)
            @rule()
            def logout(self):
                global steps
                steps += 1
                self.sign_out()

            @invariant()
            def single_flight(self):
                refreshes = [r for r in self.in_flight if r[1] == "refresh" and r[3] == self.generation]
                assert len(refreshes) <= 1

            @invariant()
            def no_retired_refresh_token_sent(self):
                assert not any(kind == "refresh" and retired for kind, retired, _ in self.sent)

            @invariant()
            def no_expired_access_token_sent(self):
                assert all(fresh for _, _, fresh in self.sent)


        examples = int(sys.argv[1])
        started = time.perf_counter()
        try:
            run_state_machine_as_test(RotatingRefresh, settings=settings(
                max_examples=examples, stateful_step_count=50, deadline=None, database=None, derandomize=True,
                phases=[Phase.generate], suppress_health_check=list(HealthCheck)))
        except Exception as failure:
            where = traceback.extract_tb(failure.__traceback__)[-1].name
            print(json.dumps({"failed": type(failure).__name__ + " in " + where}))
            sys.exit(1)
        seconds = time.perf_counter() - started
        print(json.dumps({"steps": steps, "seconds": seconds, "hypothesis": hypothesis.__version__, "python": platform.python_version()}))
        """#
}
