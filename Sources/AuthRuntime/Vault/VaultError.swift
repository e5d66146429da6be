/// Why a ``TokenVault`` could not do what was asked. A vault that cannot be read is *not* "no
/// session": the runner reports it and deletes nothing.
///
/// No case carries a path, a stored value or a secret.
public enum VaultError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is stored is not credentials this runtime wrote (truncated, edited, another format).
    case corrupt
    /// The system refused access (file permissions, Keychain access control).
    case accessDenied
    /// The store cannot be used right now (a locked device, Keychain interaction not allowed).
    case unavailable
    /// A system call failed: which one, and its error code (`errno`, or an `OSStatus`).
    case system(operation: String, code: Int32)

    /// A message the UI can show.
    public var userMessage: String {
        switch self {
        case .corrupt: "Your saved sign-in could not be read. Please sign in again."
        case .accessDenied: "Your saved sign-in could not be accessed."
        case .unavailable: "Your saved sign-in is not available right now. Unlock the device and try again."
        case .system: "Your sign-in could not be saved or read because of a storage error."
        }
    }

    /// The case and code.
    public var description: String {
        switch self {
        case .corrupt: "corrupt"
        case .accessDenied: "accessDenied"
        case .unavailable: "unavailable"
        case .system(let operation, let code): "system(\(operation): \(code))"
        }
    }
}
