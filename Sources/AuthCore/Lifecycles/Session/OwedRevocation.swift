/// A refresh token a logout could not end on the server because the server could not be reached:
/// the vault keeps it (and nothing else of the session: no access token, no user) so that the
/// revocation is tried again at the next launch, logout and sign-in (the server answered, so it
/// can be reached), a bounded number of rounds (``SessionPolicy/revocationRounds``).
///
/// The app is signed out meanwhile. The token is never attached, never refreshed for a session and
/// never shown: it is only sent to end its own session (revoked, or renewed once to be revoked with
/// the renewed pair when the backend's revocation needs a live access token), and it is dropped
/// once the server revoked or refused it, or once its rounds are spent (then reported).
public struct OwedRevocation: Hashable, Sendable, CustomStringConvertible {
    /// The refresh token still to revoke.
    public var refreshToken: RefreshToken
    /// The rounds that failed so far; the logout's own background sign-out is the first.
    public var rounds: Int

    /// Creates the record.
    public init(refreshToken: RefreshToken, rounds: Int) {
        self.refreshToken = refreshToken
        self.rounds = rounds
    }

    /// The rounds failed; never the token.
    public var description: String { "owedRevocation(rounds: \(rounds))" }
}

extension FlowContext {
    /// Owes the revocation of `token` after `rounds` failed rounds (replacing an entry for it).
    public mutating func owe(_ token: RefreshToken, rounds: Int) {
        if let index = owedRevocations.firstIndex(where: { $0.refreshToken == token }) {
            owedRevocations[index].rounds = rounds
        } else {
            owedRevocations.append(OwedRevocation(refreshToken: token, rounds: rounds))
        }
    }

    /// Takes the owed revocations the vault held at launch.
    public mutating func owe(_ owed: [OwedRevocation]) {
        owedRevocations = owed
    }

    /// Whether the revocation of `token` is owed.
    public func owes(_ token: RefreshToken) -> Bool {
        owedRevocations.contains { $0.refreshToken == token }
    }

    /// Forgets the owed revocation of `token`, if any; whether there was one.
    @discardableResult
    public mutating func settleOwed(_ token: RefreshToken) -> Bool {
        guard let index = owedRevocations.firstIndex(where: { $0.refreshToken == token }) else { return false }
        owedRevocations.remove(at: index)
        return true
    }

    /// The owed revocation of `old` now revokes `new` (a renewal rotated the token).
    public mutating func replaceOwed(_ old: RefreshToken, with new: RefreshToken) {
        guard old != new, let index = owedRevocations.firstIndex(where: { $0.refreshToken == old }) else { return }
        owedRevocations[index].refreshToken = new
    }
}
