/// Why the reference server could not start.
public enum ReferenceServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A socket call failed; `operation` names it and `errno` is the system error number.
    case socketFailed(operation: String, errno: Int32)
    /// `start` was called on a server that is already running.
    case alreadyRunning

    /// A one-line explanation, safe to log (it never contains a secret).
    public var description: String {
        switch self {
        case let .socketFailed(operation, number):
            return "\(operation) failed with errno \(number)"
        case .alreadyRunning:
            return "the reference server is already running"
        }
    }
}
