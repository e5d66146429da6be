import AuthCore
import AuthRuntime
import AuthSupport
import Foundation

/// The probe's safety rail on traffic: at most `limit` requests in a run, at least `interval`
/// apart. A request past the limit is not sent.
actor RequestBudget {
    /// The most requests one run sends.
    static let limit = 100
    /// The least time between two requests (at most 10 a second).
    static let interval = Duration.milliseconds(100)

    private let limit: Int
    private let interval: Duration
    private var next = ContinuousClock.now
    private(set) var sent = 0

    init(limit: Int = RequestBudget.limit, interval: Duration = RequestBudget.interval) {
        self.limit = limit
        self.interval = interval
    }

    /// Waits for the request's turn; `false` when the run has spent its budget.
    func admit() async -> Bool {
        guard sent < limit else { return false }
        sent += 1
        let turn = max(next, ContinuousClock.now)
        next = turn + interval
        try? await Task.sleep(until: turn, clock: .continuous)
        return true
    }

    /// Whether a request has been refused for want of budget.
    var spent: Bool { sent >= limit }
}

/// The transport the probe gives the real client (and uses itself for the edge requests the
/// client never sends): `URLSessionTransport` underneath, every request counted against the
/// budget, and every exchange noted as a ``ProbeExchange`` (no body, header or query kept).
final class ProbeTransport: HTTPTransport {
    private let underlying: URLSessionTransport
    private let budget: RequestBudget
    private let basePath: String
    private let noted = Locked<[ProbeExchange]>([])

    init(baseURL: URL, budget: RequestBudget) {
        underlying = URLSessionTransport(timeout: 15)
        self.budget = budget
        basePath = baseURL.path.hasSuffix("/") ? String(baseURL.path.dropLast()) : baseURL.path
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let path = request.url.path.hasPrefix(basePath) ? String(request.url.path.dropFirst(basePath.count)) : request.url.path
        guard await budget.admit() else {
            noted.withLock { $0.append(ProbeExchange(method: request.method, path: path, status: nil, keys: [], failure: "not sent: budget spent")) }
            throw .cancelled
        }
        do {
            let response = try await underlying.send(request)
            noted.withLock {
                $0.append(
                    ProbeExchange(method: request.method, path: path, status: response.status, keys: Self.keys(of: response.body), failure: nil))
            }
            return response
        } catch {
            noted.withLock { $0.append(ProbeExchange(method: request.method, path: path, status: nil, keys: [], failure: error.description)) }
            throw error
        }
    }

    /// How many exchanges have been noted so far (a mark to read the next step's from).
    var mark: Int { noted.withLock { $0.count } }

    /// The exchanges noted since `mark`.
    func exchanges(since mark: Int) -> [ProbeExchange] { noted.withLock { Array($0[min(mark, $0.count)...]) } }

    /// The top-level keys of a JSON object, sorted; none for anything else.
    static func keys(of body: Data) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return [] }
        return object.keys.sorted()
    }
}

/// The wall clock, moved ahead on demand: when the operator moves the server's clock past an
/// access token's lifetime, the probe moves the client's by the same amount, so both agree that
/// the time has passed (as after a night in the background).
final class ShiftedClock: RuntimeClock {
    private let shift = Locked<Int64>(0)

    var now: Instant { Instant(milliseconds: Instant(Date()).milliseconds + shift.withLock { $0 }) }

    /// Moves the clock `seconds` ahead.
    func advance(seconds: Int) { shift.withLock { $0 += Int64(seconds) * 1000 } }

    func wake(at deadline: Instant, _ action: @escaping @Sendable () async -> Void) -> any ClockAlarm {
        let task = Task {
            while true {
                let remaining = (deadline - now).milliseconds
                if remaining <= 0 { break }
                do {
                    // In short naps, so a move ahead is noticed.
                    try await Task.sleep(for: .milliseconds(min(remaining, 500)))
                } catch {
                    return
                }
            }
            guard !Task.isCancelled else { return }
            await action()
        }
        return ProbeAlarm(task: task)
    }
}

private struct ProbeAlarm: ClockAlarm {
    let task: Task<Void, Never>
    func cancel() { task.cancel() }
}
