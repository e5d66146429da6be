import AuthCore
import AuthRuntime
import AuthSupport
import Dispatch
import Foundation
import ReferenceBackend

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The runtime's figures, against the reference backend on loopback: the runner's overhead over
/// a bare request, and single-flight refresh under load. Everday's app (rotating refresh) signs in
/// as the server's seeded parent; its protected request is the parent's own approval
/// (`PUT /api/settings/users/{id}/approve`), which answers 200 to a valid bearer.
///
/// No token, password or code is ever printed: the bench only counts and times.
enum RuntimeBench {
    /// Why a runtime figure could not be measured.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// A started reference server mounting Everday alone, and Everday's contract at it.
    struct Stack {
        let server: ReferenceServer
        let contract: any BackendContract

        /// Starts the server; `clock` (when given) is the time the server reads too.
        init(clock: ManualClock?) throws {
            var configuration = Configuration()
            if let clock { configuration.clock = { clock.now.date } }
            server = ReferenceServer(backends: [.everday], configuration: configuration)
            do {
                try server.start()
            } catch {
                throw Problem(description: "the reference server did not start: \(error)")
            }
            contract = EverdayContract(server: server.baseURL(for: .everday))
        }

        /// The parent's approval of itself: a protected request that answers 200.
        var protectedRequest: HTTPRequest {
            let id = server.everdayUserID(username: server.configuration.everday.parent.username) ?? 1
            return HTTPRequest(method: "PUT", url: contract.baseURL.appendingPathComponent("settings/users/\(id)/approve"))
        }

        /// A runner for Everday's app over `transport`, launched and signed in as the parent.
        func signedInRunner(transport: any HTTPTransport, clock: any RuntimeClock) async throws -> AuthRunner<EverdayApp> {
            let runner = AuthRunner(machine: Apps.everday(), contract: contract, transport: transport, vault: MemoryVault(), clock: clock)
            await runner.start()
            let parent = server.configuration.everday.parent
            _ = await runner.perform(PasswordSignIn.Intent.submit(identifier: parent.username, password: PasswordInput(parent.password)))
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if case .signedIn(.active(let session)) = await runner.phase, session.refresh == .idle, session.calls.isEmpty,
                    await runner.inFlight.isEmpty
                {
                    return runner
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            await runner.stop()
            throw Problem(description: "the parent did not sign in within 30 s")
        }
    }

    // MARK: Overhead

    /// Median latency of a protected request through `AuthRunner.authorized` (A, over a
    /// `URLSessionTransport`) and of the same request, with the same bearer, as a bare
    /// `URLSession` data task of a session of its own, configured as the transport configures its
    /// session: no cache, no cookies (B). Interleaved: A then B, then B then A, and so on, after a
    /// warm-up. The pairs are cut into blocks; each block gives a median of A, a median of B and
    /// their ratio, and each row shows the median of the blocks and their spread.
    static func overhead(_ configuration: BenchConfiguration, progress: @Sendable (String) -> Void) async throws -> [BenchRow] {
        let stack = try Stack(clock: nil)
        defer { stack.server.stop() }
        let transport = URLSessionTransport(timeout: 30)
        let runner = try await stack.signedInRunner(transport: transport, clock: SystemClock())
        guard case .signedIn(.active(let session)) = await runner.phase else { throw Problem(description: "not signed in") }
        let request = stack.protectedRequest
        let authorized = stack.contract.authorize(request, with: session.bearer)
        var bare = URLRequest(url: authorized.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
        bare.httpMethod = authorized.method
        for field in authorized.headers { bare.addValue(field.value, forHTTPHeaderField: field.name) }
        bare.httpBody = authorized.body
        // Configured as URLSessionTransport configures its own, so B differs from A by the runner alone.
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = 30
        settings.httpCookieStorage = nil
        settings.httpShouldSetCookies = false
        settings.urlCache = nil
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        let bareSession = URLSession(configuration: settings)
        defer { bareSession.invalidateAndCancel() }
        let clock = ContinuousClock()
        var failures = 0

        func throughRunner() async -> Double {
            let started = clock.now
            let status = try? await runner.authorized(request).status
            let seconds = (clock.now - started).seconds
            if status != 200 { failures += 1 }
            return seconds
        }
        func overBareURLSession() async -> Double {
            let started = clock.now
            let status = await withCheckedContinuation { (answered: CheckedContinuation<Int?, Never>) in
                bareSession.dataTask(with: bare) { _, response, _ in answered.resume(returning: (response as? HTTPURLResponse)?.statusCode) }.resume()
            }
            let seconds = (clock.now - started).seconds
            if status != 200 { failures += 1 }
            return seconds
        }

        progress("runner overhead: warming up (\(configuration.overheadWarmup) pairs)")
        for _ in 0..<configuration.overheadWarmup {
            _ = await throughRunner()
            _ = await overBareURLSession()
        }
        failures = 0
        progress("runner overhead: \(configuration.overheadPairs) interleaved pairs")
        var runnerTimes: [Double] = []
        var bareTimes: [Double] = []
        for pair in 0..<configuration.overheadPairs {
            if pair % 2 == 0 {
                runnerTimes.append(await throughRunner())
                bareTimes.append(await overBareURLSession())
            } else {
                bareTimes.append(await overBareURLSession())
                runnerTimes.append(await throughRunner())
            }
        }
        await runner.stop()

        let blocks = max(1, min(configuration.overheadBlocks, runnerTimes.count))
        let size = runnerTimes.count / blocks
        var runnerMedians: [Double] = []
        var bareMedians: [Double] = []
        var ratios: [Double] = []
        for block in 0..<blocks {
            let range = (block * size)..<(block == blocks - 1 ? runnerTimes.count : (block + 1) * size)
            let a = Spread(Array(runnerTimes[range])).median
            let b = Spread(Array(bareTimes[range])).median
            runnerMedians.append(a)
            bareMedians.append(b)
            ratios.append(a / b)
        }
        let all = (runner: Spread(runnerTimes), bare: Spread(bareTimes))
        let overall = all.runner.median / all.bare.median
        let failed = BenchDetail("failures", .int(failures), failures == 0 ? "every answer 200" : "\(failures) answers not 200")
        func latency(_ spread: Spread) -> [BenchDetail] {
            [
                BenchDetail(
                    "medianAll", .double(spread.median), "all \(BenchFormat.grouped(spread.count)): median \(BenchFormat.duration(spread.median))"),
                BenchDetail("q1All", .double(spread.lowerQuartile)),
                BenchDetail("q3All", .double(spread.upperQuartile)),
                BenchDetail(
                    "interquartile", .text(""),
                    "quartiles \(BenchFormat.duration(spread.lowerQuartile)) – \(BenchFormat.duration(spread.upperQuartile))"),
            ]
        }
        return [
            BenchRow(
                .runnerOverhead, "A: AuthRunner.authorized latency", unit: .seconds, spread: Spread(runnerMedians), details: latency(all.runner)),
            BenchRow(.runnerOverhead, "B: bare URLSession latency", unit: .seconds, spread: Spread(bareMedians), details: latency(all.bare)),
            BenchRow(
                // No target: tens of microseconds on a loopback request are noise over any real network.
                .runnerOverhead, "ratio A/B", unit: .ratio, spread: Spread(ratios),
                details: [
                    BenchDetail("overallRatio", .double(overall), "all pairs: \(BenchFormat.fixed(overall, 3))"),
                    BenchDetail(
                        "overheadSeconds", .double(all.runner.median - all.bare.median),
                        "\(BenchFormat.duration(all.runner.median - all.bare.median)) a request"),
                    BenchDetail("pairs", .int(runnerTimes.count), "\(BenchFormat.grouped(runnerTimes.count)) pairs in \(blocks) blocks"),
                    failed,
                ]),
        ]
    }

    // MARK: Single flight

    /// One single-flight trial's result.
    struct Trial {
        let seconds: Double
        let refreshes: Int
        let answered: Int
        let joined: Int
    }

    /// `count` concurrent protected calls with an expired access token: the app slept through
    /// the token's life (the clock the server and runner share moves on 30 minutes), so the
    /// proactive refresh leaves at once; it is held at the transport until every call has joined
    /// it (or 30 s passed), so all `count` calls truly wait on the one refresh. The server's
    /// ledger counts the refresh requests; the wall time runs from the first call to the last answer.
    static func singleFlight(count: Int) async throws -> Trial {
        let clock = ManualClock(now: Instant(Date()))
        let stack = try Stack(clock: clock)
        defer { stack.server.stop() }
        let gate = Gate()
        let transport = GatedTransport(inner: URLSessionTransport(timeout: 30), gate: gate, pathSuffix: "/auth/refresh")
        let runner = try await stack.signedInRunner(transport: transport, clock: clock)
        let refreshesBefore = stack.server.ledger.requests("POST", "/api/auth/refresh")
        let states = await runner.states()
        await clock.advance(by: .seconds(1801))
        let request = stack.protectedRequest
        let watch = Task { () -> Int in
            var most = 0
            for await state in states {
                guard case .signedIn(.active(let held)) = state.phase, case .refreshing = held.refresh else { continue }
                let waiting = held.calls.count { $0.stage == .waitingForToken }
                most = max(most, waiting)
                if waiting == count { break }
            }
            gate.open()
            return most
        }
        let guardTask = Task {
            try? await Task.sleep(for: .seconds(30))
            gate.open()
        }
        let started = ContinuousClock.now
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask { (try? await runner.authorized(request).status) == 200 }
            }
            var ok = 0
            for await answer in group where answer { ok += 1 }
            return ok
        }
        let seconds = (ContinuousClock.now - started).seconds
        guardTask.cancel()
        await runner.stop()  // Finishes the state stream, so the watch ends whatever it saw.
        let joined = await watch.value
        let refreshes = stack.server.ledger.requests("POST", "/api/auth/refresh") - refreshesBefore
        return Trial(seconds: seconds, refreshes: refreshes, answered: answered, joined: joined)
    }

    /// Single-flight rows for every configured N.
    static func singleFlight(_ configuration: BenchConfiguration, progress: @Sendable (String) -> Void) async throws -> [BenchRow] {
        var rows: [BenchRow] = []
        for count in configuration.singleFlightCalls {
            progress("single-flight: \(count) concurrent calls × \(configuration.singleFlightRepetitions)")
            var trials: [Trial] = []
            for _ in 0..<configuration.singleFlightRepetitions { trials.append(try await singleFlight(count: count)) }
            let answered = trials.map(\.answered).min() ?? 0
            let joined = trials.map(\.joined).min() ?? 0
            let label = "N = \(BenchFormat.grouped(count))"
            rows.append(
                BenchRow(
                    .singleFlight, "\(label): refreshes the server saw", unit: .count, spread: Spread(trials.map { Double($0.refreshes) }),
                    target: BenchTarget(.exactly, 1, "1 refresh in every run"),
                    details: [BenchDetail("refreshes", .text(trials.map { String($0.refreshes) }.joined(separator: " ")))]))
            rows.append(
                BenchRow(
                    .singleFlight, "\(label): wall time", unit: .seconds, spread: Spread(trials.map(\.seconds)),
                    details: [
                        BenchDetail("answered200", .int(answered), "\(BenchFormat.grouped(answered))/\(BenchFormat.grouped(count)) answered 200"),
                        BenchDetail("joined", .int(joined), "\(BenchFormat.grouped(joined)) waited on the one refresh"),
                    ]))
        }
        return rows
    }
}

/// A one-way gate: everyone who waits before `open` waits until it.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until the gate is open.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Opens the gate for good.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

/// A transport that holds requests whose path ends with `pathSuffix` until `gate` opens.
struct GatedTransport: HTTPTransport {
    let inner: any HTTPTransport
    let gate: Gate
    let pathSuffix: String

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        if request.url.path.hasSuffix(pathSuffix) { await gate.wait() }
        return try await inner.send(request)
    }
}
