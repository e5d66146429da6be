import AuthCore
import AuthSupport

/// A vault in memory, for tests and for apps that must not keep a session across launches.
///
/// It can be told to fail, so tests can show what the runner does when a vault cannot be read
/// or written.
public final class MemoryVault: TokenVault, CustomStringConvertible {
    private struct Storage {
        var credentials: Credentials?
        var owed: [OwedRevocation] = []
        var loadFailure: VaultError?
        var saveFailure: VaultError?
        var clearFailure: VaultError?
        var saves = 0
    }

    private let storage: Locked<Storage>

    /// A vault holding `credentials`.
    public init(_ credentials: Credentials? = nil) {
        storage = Locked(Storage(credentials: credentials))
    }

    /// What the vault holds now.
    public var credentials: Credentials? { storage.withLock { $0.credentials } }

    /// The owed revocations it holds now.
    public var owedRevocations: [OwedRevocation] { storage.withLock { $0.owed } }

    /// How many saves succeeded.
    public var saveCount: Int { storage.withLock { $0.saves } }

    /// Makes every later `load`, `save` or `clear` fail with these errors (`nil`: succeed).
    public func failing(load: VaultError? = nil, save: VaultError? = nil, clear: VaultError? = nil) {
        storage.withLock {
            $0.loadFailure = load
            $0.saveFailure = save
            $0.clearFailure = clear
        }
    }

    /// The stored credentials.
    public func load() throws(VaultError) -> Credentials? {
        let (credentials, failure) = storage.withLock { ($0.credentials, $0.loadFailure) }
        if let failure { throw failure }
        return credentials
    }

    /// Stores `credentials`.
    public func save(_ credentials: Credentials) throws(VaultError) {
        let failure = storage.withLock { storage -> VaultError? in
            guard storage.saveFailure == nil else { return storage.saveFailure }
            storage.credentials = credentials
            storage.saves += 1
            return nil
        }
        if let failure { throw failure }
    }

    /// Deletes the stored credentials.
    public func clear() throws(VaultError) {
        let failure = storage.withLock { storage -> VaultError? in
            guard storage.clearFailure == nil else { return storage.clearFailure }
            storage.credentials = nil
            return nil
        }
        if let failure { throw failure }
    }

    /// The owed revocations (a failing `load` fails this too).
    public func loadOwedRevocations() throws(VaultError) -> [OwedRevocation] {
        let (owed, failure) = storage.withLock { ($0.owed, $0.loadFailure) }
        if let failure { throw failure }
        return owed
    }

    /// Stores the owed revocations (a failing `save` fails this too).
    public func saveOwedRevocations(_ owed: [OwedRevocation]) throws(VaultError) {
        let failure = storage.withLock { storage -> VaultError? in
            guard storage.saveFailure == nil else { return storage.saveFailure }
            storage.owed = owed
            return nil
        }
        if let failure { throw failure }
    }

    /// `MemoryVault(empty)` or `MemoryVault(user(<id>))`: never a token.
    public var description: String {
        "MemoryVault(\(credentials.map { "\($0.user)" } ?? "empty"))"
    }
}
