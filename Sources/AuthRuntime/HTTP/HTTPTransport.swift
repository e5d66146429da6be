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
///
/// A transport implements ``send(_:)``. It may also implement ``start(_:completion:)``, which the
/// runner calls, to start a request without a task of its own (``URLSessionTransport`` hands the
/// request straight to `URLSession`); by default `start` sends in a new task.
public protocol HTTPTransport: Sendable {
    /// Sends `request`; throws only when no HTTP answer arrived.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Starts sending `request` and returns at once. `completion` is called exactly once with the
    /// answer, or with the error that left it without one (``TransportError/cancelled`` after
    /// ``TransportHandle/cancel()``).
    func start(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) async -> Void) -> TransportHandle
}

extension HTTPTransport {
    /// Sends `request` with ``send(_:)`` in a new task; cancelling the handle cancels the task.
    public func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) async -> Void
    ) -> TransportHandle {
        let task = Task {
            let answer: Result<HTTPResponse, TransportError>
            do throws(TransportError) {
                answer = .success(try await send(request))
            } catch {
                answer = .failure(error)
            }
            await completion(answer)
        }
        return TransportHandle { task.cancel() }
    }
}

/// A started request, which can be cancelled.
public final class TransportHandle: Sendable {
    private let onCancel: @Sendable () -> Void

    /// A handle that calls `cancel` when the request is cancelled.
    public init(cancel: @escaping @Sendable () -> Void) {
        onCancel = cancel
    }

    /// Cancels the request; an answer already on its way may still arrive.
    public func cancel() {
        onCancel()
    }
}
