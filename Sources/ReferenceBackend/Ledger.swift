/// What the server saw, as a snapshot tests assert on.
///
/// Its `description` never shows a token: refresh tokens are counted, not printed.
public struct Ledger: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// One endpoint: backend (`nil` for paths outside every backend), method and path template.
    public struct Endpoint: Sendable, Hashable {
        /// The backend the path belongs to.
        public var backend: ServedBackend?
        /// The request method, e.g. `POST`.
        public var method: String
        /// The documented path template, e.g. `/api/settings/users/{user_id}/approve`.
        public var path: String

        /// Creates an endpoint key.
        public init(backend: ServedBackend?, method: String, path: String) {
            self.backend = backend
            self.method = method
            self.path = path
        }
    }

    /// Requests received per endpoint, counting those a fault answered.
    public internal(set) var requestCounts: [Endpoint: Int] = [:]
    /// Every refresh token presented to a refresh endpoint, in arrival order.
    public internal(set) var refreshTokensPresented: [String] = []
    /// Token families (sessions) in which a consumed refresh token, or the authorization code
    /// that opened them, was replayed, in order.
    public internal(set) var reuseDetections: [String] = []
    /// Token families revoked because of reuse detection, in order.
    public internal(set) var familiesRevoked: [String] = []
    /// Sessions revoked on purpose (logout, password reset, token revocation), in order.
    public internal(set) var sessionsRevoked: [String] = []

    /// How many `method` requests reached `path` (a template), on one backend or on all.
    public func requests(_ method: String, _ path: String, on backend: ServedBackend? = nil) -> Int {
        requestCounts.reduce(0) { total, entry in
            let matches =
                entry.key.method == method && entry.key.path == path
                && (backend == nil || entry.key.backend == backend)
            return matches ? total + entry.value : total
        }
    }

    /// A summary that names counts only, never tokens.
    public var description: String {
        "Ledger(requests: \(requestCounts.values.reduce(0, +)), refreshTokensPresented: \(refreshTokensPresented.count), "
            + "reuseDetections: \(reuseDetections), familiesRevoked: \(familiesRevoked), sessionsRevoked: \(sessionsRevoked))"
    }

    /// Same as `description`: tokens stay hidden in test failure output too.
    public var debugDescription: String { description }
}

/// The live, thread-safe ledger behind `ReferenceServer.ledger`.
final class LedgerRecorder: Sendable {
    private let ledger = Locked(Ledger())

    /// A copy of everything recorded so far.
    var snapshot: Ledger { ledger.withLock { $0 } }

    /// Records one request to an endpoint.
    func count(_ endpoint: Ledger.Endpoint) {
        ledger.withLock { $0.requestCounts[endpoint, default: 0] += 1 }
    }

    /// Applies a change to the ledger.
    func record(_ change: (inout Ledger) -> Void) {
        ledger.withLock(change)
    }
}
