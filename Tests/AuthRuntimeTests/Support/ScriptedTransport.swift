import AuthCore
@testable import AuthRuntime
import AuthSupport
import Foundation

/// A transport whose answers a test scripts: a handler per request, a log of every request, and
/// a way to wait (without sleeping) until a request has arrived.
final class ScriptedTransport: HTTPTransport, Sendable {
    typealias Handler = @Sendable (HTTPRequest) async -> Result<HTTPResponse, TransportError>

    private struct Storage {
        var received: [HTTPRequest] = []
        var waiters: [(path: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let handler: Handler
    private let storage = Locked(Storage())

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let ready = storage.withLock { storage -> [CheckedContinuation<Void, Never>] in
            storage.received.append(request)
            let counts = Dictionary(grouping: storage.received, by: \.url.lastPathComponent).mapValues(\.count)
            let ready = storage.waiters.filter { (counts[$0.path] ?? 0) >= $0.count }
            storage.waiters.removeAll { (counts[$0.path] ?? 0) >= $0.count }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
        return try await handler(request).get()
    }

    /// Every request so far.
    var received: [HTTPRequest] { storage.withLock { $0.received } }

    /// How many requests went to a path ending in `/<name>`.
    func count(_ name: String) -> Int { received.filter { $0.url.lastPathComponent == name }.count }

    /// Returns once `count` requests have gone to `/<name>`.
    func waitFor(_ name: String, count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = storage.withLock { storage -> Bool in
                if storage.received.filter({ $0.url.lastPathComponent == name }).count >= count { return true }
                storage.waiters.append((name, count, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}
