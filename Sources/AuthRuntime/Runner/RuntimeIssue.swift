import AuthCore

/// Something went wrong in the runner's own work (storage, a composition that asks for what its
/// backend does not offer) that the reducer has no event for. The app observes these through
/// ``AuthRunner/issues()``; none of them signs the user out.
public enum RuntimeIssue: Hashable, Sendable, CustomStringConvertible {
    /// The vault could not be read at launch; nothing was deleted (the reducer was told
    /// `.launched(.unreadable)`).
    case vaultUnreadable(VaultError)
    /// New credentials could not be stored; they stay in memory for this run, and the previous
    /// ones stay stored.
    case vaultWriteFailed(VaultError)
    /// The stored credentials could not be deleted at sign-out.
    case vaultClearFailed(VaultError)
    /// The reducer asked for a request the backend contract does not offer: a composition error.
    /// The reducer was answered `.failed(.notFound(…))`, so it does not wait forever.
    case unsupportedRequest(ContractError)
    /// A realtime connection could not even be attempted, or cannot be on this platform.
    case realtimeUnavailable(reason: String)
    /// The reducer sent a protected call the runner has no request for (an intent sent by hand).
    case unknownCall(IntentID)
    /// An intent of a type no flow of the composition takes was sent (it was refused as unsupported).
    case unroutedIntent(String)

    /// A message the UI or a log can show; never a secret.
    public var description: String {
        switch self {
        case .vaultUnreadable(let error): "vault unreadable (\(error)): nothing was deleted"
        case .vaultWriteFailed(let error): "vault write failed (\(error)): the new credentials are kept in memory"
        case .vaultClearFailed(let error): "vault clear failed (\(error))"
        case .unsupportedRequest(let error): "unsupported request: \(error)"
        case .realtimeUnavailable(let reason): "realtime unavailable: \(reason)"
        case .unknownCall(let call): "no request for \(call)"
        case .unroutedIntent(let type): "no flow of the composition takes a \(type)"
        }
    }
}
