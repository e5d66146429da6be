import AuthCore

/// A user flow a backend's API document writes out step by step, as an event sequence driven
/// through the backend's app machine (`Apps`), with the state it must end in and the effects the
/// document names.
public struct DocumentedFlow: Sendable, CustomStringConvertible {
    /// A short stable name (`anonymousWall.registration`).
    public let id: String
    /// The backend whose app runs the flow.
    public let backend: Backend
    /// The section of the backend's API document that writes the flow out (`User Flows ›
    /// Registration Flow`).
    public let section: String
    /// The app's case path the flow must end in (`signedIn.active.idle`).
    public let expectedEnd: String
    /// The effects the document names.
    public let expectations: [FlowExpectation]
    private let drive: @Sendable () -> FlowRun

    /// A flow through `app`, starting with `stored` in the vault.
    public init<App: Lifecycle>(
        _ id: String, backend: Backend, section: String, app: App, stored: StoredCredentials = .none,
        steps: [FlowStep], endsIn expectedEnd: String, expecting expectations: [FlowExpectation] = []
    ) {
        self.id = id
        self.backend = backend
        self.section = section
        self.expectedEnd = expectedEnd
        self.expectations = expectations
        self.drive = {
            var driver = FlowDriver(app: app, stored: stored, start: DocumentedFlows.start)
            return driver.play(steps)
        }
    }

    /// Drives the flow through its app machine.
    public func run() -> FlowRun { drive() }

    /// Everything wrong with a run of this flow: runner problems, another end state, unmet expectations.
    public func failures(of run: FlowRun) -> [String] {
        var failures = run.problems
        if run.endCase != expectedEnd { failures.append("ends in \(run.endCase), not \(expectedEnd)") }
        failures += expectations.compactMap { expectation in run.failure(of: expectation).map { "\(expectation): \($0)" } }
        return failures
    }

    /// `id (Everday's API document § section)`.
    public var description: String { "\(id) (\(backend)'s API document § \(section))" }
}
