import AuthCore

/// Where a signed-in user's credentials survive a restart.
///
/// The calls are synchronous on purpose: the runner performs a reducer's effects in order, and a
/// `persist` must have completed before a following `send` uses the new access token.
/// Implementations keep each call short (one small file or one Keychain item).
public protocol TokenVault: Sendable {
    /// The stored credentials, `nil` when nothing is stored. Throws when something is stored but
    /// cannot be read; the caller must not treat that as "signed out" or delete anything.
    func load() throws(VaultError) -> Credentials?
    /// Replaces what is stored with `credentials`. On failure the previous credentials stay stored.
    func save(_ credentials: Credentials) throws(VaultError)
    /// Deletes what is stored; clearing an empty vault succeeds.
    func clear() throws(VaultError)
    /// The revocations a logout still owes the server (`OwedRevocation`): refresh tokens the
    /// server could not be reached to revoke, kept apart from the credentials (clearing these
    /// leaves them). `[]` when none is stored; throws when something is stored but cannot be read.
    func loadOwedRevocations() throws(VaultError) -> [OwedRevocation]
    /// Replaces the owed revocations stored; `[]` deletes them.
    func saveOwedRevocations(_ owed: [OwedRevocation]) throws(VaultError)
}
