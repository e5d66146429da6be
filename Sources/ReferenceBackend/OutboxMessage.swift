import Foundation

/// A message the server "sent" by email or SMS; tests read codes and tokens from it.
///
/// Its `description` hides `code`, so printing a message never leaks the secret.
public struct OutboxMessage: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What the message is for.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Anonymous Wall code for registration.
        case registrationCode
        /// Anonymous Wall code for login.
        case loginCode
        /// Anonymous Wall code for a password reset.
        case passwordResetCode
        /// Everday password-reset token.
        case passwordResetToken
        /// Hero365 one-time password by SMS.
        case otp
        /// Hero365 sign-up verification notice.
        case verification
        /// Hero365 password-recovery notice.
        case passwordRecovery
    }

    /// The backend that sent it.
    public var backend: ServedBackend
    /// The email address or phone number it went to.
    public var to: String
    /// What it is for.
    public var kind: Kind
    /// The code, OTP or token it delivers, if any.
    public var code: String?
    /// When it was sent, by the server's clock.
    public var sentAt: Date

    /// Shows everything but the code.
    public var description: String {
        "OutboxMessage(\(backend.rawValue), to: \(to), kind: \(kind.rawValue), code: \(code == nil ? "none" : "<redacted>"))"
    }

    /// Same as `description`.
    public var debugDescription: String { description }
}

/// The live, thread-safe outbox behind `ReferenceServer.outbox(to:)`.
final class Outbox: Sendable {
    private let messages = Locked<[OutboxMessage]>([])

    /// Records a sent message.
    func send(_ message: OutboxMessage) {
        messages.withLock { $0.append(message) }
    }

    /// Messages to one recipient, oldest first.
    func messages(to recipient: String) -> [OutboxMessage] {
        messages.withLock { $0.filter { $0.to == recipient } }
    }
}
