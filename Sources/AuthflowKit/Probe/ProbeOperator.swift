import Foundation

/// What only the operator has: an e-mailed code, a parent's approval (and its withdrawal), the
/// server's clock. Each is
/// a hook that may be absent; a step needing an absent one is skipped with "needs: …", never guessed.
struct ProbeOperator: Sendable {
    /// The latest code or token sent to `recipient` (`{to}`), or `nil` when none could be had.
    var code: (@Sendable (_ recipient: String) async -> String?)?
    /// Approves the pending account `username` (`{username}`); whether it worked.
    var approve: (@Sendable (_ username: String) async -> Bool)?
    /// Withdraws the approval of the account `username` (`{username}`), so it is pending again; whether it worked.
    var withdrawApproval: (@Sendable (_ username: String) async -> Bool)?
    /// Moves the server's clock `seconds` (`{seconds}`) ahead; whether it worked.
    var advanceClock: (@Sendable (_ seconds: Int) async -> Bool)?
    /// Follows the OAuth authorization URL `url` (`{url}`) as a browser would and returns the
    /// callback URL the provider sent it back to, or `nil`.
    var oauth: (@Sendable (_ url: String) async -> String?)?

    /// No hooks: every step that needs one is skipped.
    init(
        code: (@Sendable (_ recipient: String) async -> String?)? = nil, approve: (@Sendable (_ username: String) async -> Bool)? = nil,
        advanceClock: (@Sendable (_ seconds: Int) async -> Bool)? = nil, oauth: (@Sendable (_ url: String) async -> String?)? = nil,
        withdrawApproval: (@Sendable (_ username: String) async -> Bool)? = nil
    ) {
        self.code = code
        self.approve = approve
        self.withdrawApproval = withdrawApproval
        self.advanceClock = advanceClock
        self.oauth = oauth
    }

    /// Hooks that run the operator's shell commands (`/bin/sh -c`), the placeholder replaced by
    /// a value the probe made itself (letters, digits, `-`, `@`, `.`). A command succeeds when it
    /// exits 0; the code is its standard output, trimmed, which is never printed.
    static func commands(code: String?, approve: String?, clock: String?, oauth: String? = nil, unapprove: String? = nil) -> ProbeOperator {
        var hooks = ProbeOperator()
        if let unapprove {
            hooks.withdrawApproval = { @Sendable (username: String) async -> Bool in
                await Self.shell(unapprove.replacingOccurrences(of: "{username}", with: username)) != nil
            }
        }
        if let oauth {
            hooks.oauth = { @Sendable (url: String) async -> String? in
                // The URL is the server's: quoted, so the shell takes it as one word whatever it holds.
                let quoted = "'" + url.replacingOccurrences(of: "'", with: "'\\''") + "'"
                let output = await Self.shell(oauth.replacingOccurrences(of: "{url}", with: quoted))
                let trimmed = output?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                return trimmed.isEmpty ? nil : trimmed
            }
        }
        if let code {
            hooks.code = { @Sendable (recipient: String) async -> String? in
                let output = await Self.shell(code.replacingOccurrences(of: "{to}", with: recipient))
                let trimmed = output?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                return trimmed.isEmpty ? nil : trimmed
            }
        }
        if let approve {
            hooks.approve = { @Sendable (username: String) async -> Bool in
                await Self.shell(approve.replacingOccurrences(of: "{username}", with: username)) != nil
            }
        }
        if let clock {
            hooks.advanceClock = { @Sendable (seconds: Int) async -> Bool in
                await Self.shell(clock.replacingOccurrences(of: "{seconds}", with: "\(seconds)")) != nil
            }
        }
        return hooks
    }

    /// Runs `command` with `/bin/sh -c` on a thread of its own: its standard output when it exits
    /// 0, `nil` otherwise (or when it cannot start). Its standard error is discarded.
    static func shell(_ command: String) async -> String? {
        await withCheckedContinuation { continuation in
            Thread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", command]
                let output = Pipe()
                process.standardOutput = output
                process.standardError = FileHandle.nullDevice
                process.standardInput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: nil)
                    return
                }
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else {
                    continuation.resume(returning: nil)
                    return
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }.start()
        }
    }
}
