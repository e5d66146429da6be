/// Why a request got no HTTP answer at all. (An answer with an error status is not a transport
/// error: it is an ``HTTPResponse`` for the contract to read.)
public enum TransportError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server could not be reached, or the connection dropped before a whole answer arrived.
    case network
    /// No answer within the timeout.
    case timeout
    /// The request was cancelled (logout, a newer attempt).
    case cancelled

    /// The case name.
    public var description: String {
        switch self {
        case .network: "network"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        }
    }
}

/// Sends one HTTP request and returns its answer. The runner's only door to the network, so
/// tests can put a scripted transport in its place.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws only when no HTTP answer arrived.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
