import AuthCore

/// Why ``AuthRunner/authorized(_:)`` returned no HTTP answer. (An answer with an error status,
/// a 401 after the one replay included, is returned, not thrown.)
public enum AuthorizedCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call was refused before sending: nobody is signed in, or a password step comes first.
    case rejected(Rejection)
    /// The session ended (logout, refresh refused, token expired) before the call was answered.
    case sessionEnded
    /// No answer: the network failed or timed out, or the token could not be refreshed for a
    /// transient reason.
    case failed(AuthFailure)
    /// The caller's task was cancelled, or the runner stopped.
    case cancelled

    /// A message the UI can show.
    public var userMessage: String {
        switch self {
        case .rejected(let rejection): rejection.description
        case .sessionEnded: "Your session has ended. Please sign in again."
        case .failed(let failure): failure.userMessage
        case .cancelled: "The request was cancelled."
        }
    }

    /// The case, never a secret.
    public var description: String {
        switch self {
        case .rejected(let rejection): "rejected(\(rejection))"
        case .sessionEnded: "sessionEnded"
        case .failed(let failure): "failed(\(failure))"
        case .cancelled: "cancelled"
        }
    }
}
