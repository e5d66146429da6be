import AuthCore
@testable import AuthRuntime
import AuthSupport
import AuthVerification
import Foundation
import ReferenceBackend
import Testing

/// One backend of an in-process reference server on an ephemeral port, the clock both the server
/// and the client read, and everything the client put on the wire or in its logs.
///
/// The server's clock *is* the client's ``ManualClock`` (`Configuration.clock` reads it), so a
/// test that advances the clock expires tokens, codes and OTPs on both sides at once, and runs
/// the runner's wake-ups on the way. Nothing ever sleeps for a timer.
final class EndToEndStack: Sendable {
    let backend: Backend
    let server: ReferenceServer
    let clock: ManualClock
    let contract: any BackendContract
    /// The raw exchanges of every runner made here, under the log (for leak checks and invariants).
    let wire = WireTap()
    /// The redacted log of every runner made here: a recorder and a line logger into a buffer.
    let log = LogSink()

    /// Starts a server mounting only `backend` (the API document's paths at its root), Subspace's rate
    /// limit out of reach unless `configure` sets one. `contract` makes the contract from the
    /// backend's base URL where `BackendContracts` has none (OpenID Connect: any provider's).
    init(
        _ backend: Backend, configure: (inout Configuration) -> Void = { _ in },
        contract make: ((URL) -> any BackendContract)? = nil
    ) throws {
        let clock = ManualClock(now: Instant(referenceNow))
        var configuration = Configuration()
        configuration.clock = { clock.now.date }
        configuration.subspace.rateLimit = .max
        configure(&configuration)
        let mounted = try #require(ServedBackend(rawValue: backend.id))
        let server = ReferenceServer(backends: [mounted], configuration: configuration)
        try server.start()
        self.backend = backend
        self.server = server
        self.clock = clock
        let base = server.baseURL(for: mounted)
        self.contract = try #require(make.map { $0(base) } ?? BackendContracts.contract(for: backend, server: base))
    }

    deinit { server.stop() }

    /// For tests that drop connections: FoundationNetworking retries a request whose *reused*
    /// connection was dropped, headers only (it cannot rewind the body), and the server waits for
    /// that body until its read timeout. A short one makes a drop cost half a second, not five.
    /// (Only where drops are injected: idle keep-alive connections close that early too.)
    static func shortReadTimeout(_ configuration: inout Configuration) {
        configuration.readTimeout = 0.5
    }

    /// Runs `body` with a started stack and stops the server afterwards.
    static func with<T>(
        _ backend: Backend, configure: (inout Configuration) -> Void = { _ in }, contract: ((URL) -> any BackendContract)? = nil,
        _ body: (EndToEndStack) async throws -> T
    ) async throws -> T {
        let stack = try EndToEndStack(backend, configure: configure, contract: contract)
        defer { stack.server.stop() }
        return try await body(stack)
    }

    /// A runner for `machine` over the real contract and `URLSessionTransport`, on this stack's
    /// clock, logging redacted to ``log`` and tapped by ``wire``; started (it has read its vault).
    ///
    /// `keepingStates` bounds the state journal (the last ones only), for runs with huge states.
    func client<Machine: Lifecycle>(
        _ machine: Machine, vault: any TokenVault = MemoryVault(), timeout: TimeInterval = 10,
        realtime: (any RealtimeConnector)? = nil, keepingStates: Int? = nil,
        openConnection: @escaping @Sendable (Machine.State) -> RequestID? = { _ in nil }
    ) async -> Client<Machine> {
        let runner = AuthRunner(
            machine: machine, contract: contract, transport: TappedTransport(URLSessionTransport(timeout: timeout), tap: wire),
            vault: vault, clock: clock, realtime: realtime, logger: log)
        return await Client(runner, keepingStates: keepingStates, openConnection: openConnection)
    }

    /// An absolute URL under the contract's base URL (`/users` → `http://127.0.0.1:…/users`).
    func url(_ path: String) throws -> URL {
        try #require(URL(string: contract.baseURL.absoluteString + path))
    }

    /// The latest code or token the server "sent" to `recipient`.
    func lastCode(to recipient: String) throws -> String {
        try #require(server.outbox(to: recipient).last?.code, "nothing was sent to \(recipient)")
    }
}

/// A runner and what it showed: its states, outcomes and issues, journaled from the start.
final class Client<Machine: Lifecycle>: Sendable {
    let runner: AuthRunner<Machine>
    let states: Journal<Machine.State>
    let outcomes: Journal<AuthOutcome>
    let issues: Journal<RuntimeIssue>
    /// The realtime connection a state holds open, which is in flight for as long as it is open.
    private let openConnection: @Sendable (Machine.State) -> RequestID?

    init(
        _ runner: AuthRunner<Machine>, keepingStates: Int? = nil, openConnection: @escaping @Sendable (Machine.State) -> RequestID?
    ) async {
        self.runner = runner
        self.openConnection = openConnection
        states = Journal(await runner.states(), keepingLast: keepingStates)
        outcomes = Journal(await runner.outcomes())
        issues = Journal(await runner.issues())
        await runner.start()
    }

    /// Where the user is now.
    var phase: Machine.Phase { get async { await runner.phase } }

    /// Where the flow whose phase type is `Leaf` is, when it is the active one (`nil` otherwise).
    func phase<Leaf: Sendable>(of type: Leaf.Type) async -> Leaf? where Machine.Phase: ExplorablePhase {
        await runner.phase.firstPhase(type)
    }

    /// Sends a flow's intent (routed to its flow) and returns what became of it, once every
    /// request it caused has been answered.
    @discardableResult
    func send<Leaf: Sendable>(_ intent: Leaf) async -> Completion {
        let completion = await runner.perform(intent)
        await settle()
        return completion
    }

    /// Returns once no request is in flight (an open realtime connection aside), checking after
    /// every state change. Wake-ups on the manual clock are not waited for.
    func settle() async {
        let open = openConnection
        let changes = await runner.states()  // Subscribed before the check: no change is missed.
        if await runner.isQuiet(allowing: open) { return }
        for await _ in changes {
            if await runner.isQuiet(allowing: open) { return }
        }
    }

    /// Advances the clock by `interval` (running the wake-ups due on the way) and settles.
    ///
    /// The runner publishes a state before it performs that state's effects, in the same turn: a
    /// test that saw the state may get here before the wake-up the state set is on the clock.
    /// Calling into the runner first waits for that turn to end, so the clock holds the wake-up.
    func advance(_ clock: ManualClock, by interval: Interval) async {
        _ = await runner.scheduledTimers
        await clock.advance(by: interval)
        await settle()
    }

    /// One of the app's own calls: the answer, or the error `authorized` threw.
    func call(_ request: HTTPRequest) async -> Result<HTTPResponse, AuthError> {
        do throws(AuthError) {
            return .success(try await runner.authorized(request))
        } catch {
            return .failure(error)
        }
    }

    /// Waits until `outcome` has been emitted `count` times in all; false if the runner stopped first.
    @discardableResult
    func waitFor(_ outcome: AuthOutcome, count: Int = 1) async -> Bool {
        await outcomes.waitFor { $0.filter { $0 == outcome }.count >= count }
    }

    /// Stops the runner and returns every text it showed: states (described and reflected),
    /// outcomes, issues and its own description.
    func stop() async -> [String] {
        await runner.stop()
        var texts = [runner.description]
        for state in await states.finished() { texts += ["\(state)", String(reflecting: state)] }
        for outcome in await outcomes.finished() { texts += ["\(outcome)", String(reflecting: outcome)] }
        for issue in await issues.finished() { texts += ["\(issue)", String(reflecting: issue)] }
        return texts
    }
}

extension AuthRunner {
    /// True when nothing is in flight but the request `allowing` names for the current state.
    func isQuiet(allowing open: (Machine.State) -> RequestID?) -> Bool {
        let allowed = open(state)
        return inFlight.allSatisfy { $0 == allowed }
    }
}

/// Every element of a stream, kept, with a way to wait (without sleeping) until they satisfy a
/// condition.
final class Journal<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let condition: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct Storage {
        var elements: [Element] = []
        var finished = false
        var waiters: [Waiter] = []
        var nextWaiter = 0
    }

    private let storage = Locked(Storage())
    private let reader: Task<Void, Never>

    /// Journals `stream`, keeping every element, or the last `keepingLast` only.
    init(_ stream: AsyncStream<Element>, keepingLast: Int? = nil) {
        let storage = storage
        reader = Task {
            for await element in stream {
                let ready = storage.withLock { storage -> [Waiter] in
                    storage.elements.append(element)
                    if let keepingLast, storage.elements.count > keepingLast { storage.elements.removeFirst() }
                    let elements = storage.elements
                    let ready = storage.waiters.filter { $0.condition(elements) }
                    let readyIDs = Set(ready.map(\.id))
                    storage.waiters.removeAll { readyIDs.contains($0.id) }
                    return ready
                }
                for waiter in ready { waiter.continuation.resume(returning: true) }
            }
            let left = storage.withLock { storage -> [Waiter] in
                storage.finished = true
                defer { storage.waiters.removeAll() }
                return storage.waiters
            }
            for waiter in left { waiter.continuation.resume(returning: false) }
        }
    }

    /// The elements so far.
    var elements: [Element] { storage.withLock { $0.elements } }

    /// Returns true once the elements satisfy `condition`; false if the stream ended first, or
    /// after `hangGuard` seconds without (a guard against a hang, never a measure of speed).
    func waitFor(hangGuard: Double = 30, _ condition: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let storage = storage
        let id = storage.withLock { storage -> Int in
            storage.nextWaiter += 1
            return storage.nextWaiter
        }
        let guardTask = Task {
            try? await Task.sleep(for: .seconds(hangGuard))
            storage.withLock { storage -> Waiter? in
                guard let index = storage.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return storage.waiters.remove(at: index)
            }?.continuation.resume(returning: false)
        }
        defer { guardTask.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = storage.withLock { storage -> Bool? in
                if condition(storage.elements) { return true }
                if storage.finished { return false }
                storage.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Every element, once the stream has ended.
    func finished() async -> [Element] {
        await reader.value
        return elements
    }
}
