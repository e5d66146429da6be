#if canImport(Security)
import AuthCore
import Foundation
import Security

/// A vault in one Keychain generic-password item (Apple platforms), and a second, its account
/// followed by `.owed`, while a logout owes the server a revocation (`OwedRevocation`).
///
/// The item is never synchronizable (it stays on this device, out of iCloud Keychain) and is
/// readable only while the device is unlocked (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`),
/// as the API documents ask; apps that refresh in the background choose
/// ``Accessibility/afterFirstUnlockThisDeviceOnly``. A locked device is ``VaultError/unavailable``,
/// never "no session".
///
/// A save updates the existing item in place (`SecItemUpdate`), so a failed save leaves the old
/// credentials stored; only when there is no item yet is one added.
public struct KeychainVault: TokenVault, CustomStringConvertible {
    /// When the item can be read.
    public enum Accessibility: Hashable, Sendable {
        /// Only while the device is unlocked (the default).
        case whenUnlockedThisDeviceOnly
        /// After the first unlock since boot, so background refresh can read it.
        case afterFirstUnlockThisDeviceOnly

        fileprivate var attribute: CFString {
            switch self {
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            }
        }
    }

    /// The item's service (`kSecAttrService`), e.g. the app's bundle identifier.
    public let service: String
    /// The item's account (`kSecAttrAccount`).
    public let account: String
    /// When the item can be read.
    public let accessibility: Accessibility
    /// A shared Keychain access group, if the app uses one.
    public let accessGroup: String?
    /// On macOS, use the data-protection Keychain (where accessibility classes apply, as on iOS);
    /// it needs a signed app with a Keychain access group entitlement. Ignored elsewhere.
    public let usesDataProtectionKeychain: Bool

    /// A vault in the item `service`/`account`.
    public init(
        service: String, account: String = "credentials", accessibility: Accessibility = .whenUnlockedThisDeviceOnly,
        accessGroup: String? = nil, usesDataProtectionKeychain: Bool = true
    ) {
        self.service = service
        self.account = account
        self.accessibility = accessibility
        self.accessGroup = accessGroup
        self.usesDataProtectionKeychain = usesDataProtectionKeychain
    }

    /// The attributes that name the credentials' item.
    private var itemQuery: [String: Any] { query(account: account) }

    /// The attributes that name the owed revocations' item (`OwedRevocation`): the same service,
    /// the account with `.owed` after it.
    private var owedQuery: [String: Any] { query(account: account + ".owed") }

    /// The attributes that name the item of `account`.
    private func query(account: String) -> [String: Any] {
        var named: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecAttrSynchronizable as String: false,
        ]
        if let accessGroup { named[kSecAttrAccessGroup as String] = accessGroup }
        #if os(macOS)
        if usesDataProtectionKeychain { named[kSecUseDataProtectionKeychain as String] = true }
        #endif
        return named
    }

    /// The stored credentials, `nil` when there is no item.
    public func load() throws(VaultError) -> Credentials? {
        try copyData(itemQuery).map { data throws(VaultError) in try CredentialsRecord.decode(data) }
    }

    /// Replaces the item's data (and accessibility) with `credentials`, or adds the item.
    public func save(_ credentials: Credentials) throws(VaultError) {
        try storeData(CredentialsRecord.encode(credentials), itemQuery)
    }

    /// Deletes the item; succeeds when there is none.
    public func clear() throws(VaultError) {
        try deleteItem(itemQuery)
    }

    /// The owed revocations, from their own item; none when there is no such item.
    public func loadOwedRevocations() throws(VaultError) -> [OwedRevocation] {
        try copyData(owedQuery).map { data throws(VaultError) in try OwedRevocationsRecord.decode(data) } ?? []
    }

    /// Replaces the owed revocations; none deletes their item.
    public func saveOwedRevocations(_ owed: [OwedRevocation]) throws(VaultError) {
        if owed.isEmpty {
            try deleteItem(owedQuery)
        } else {
            try storeData(OwedRevocationsRecord.encode(owed), owedQuery)
        }
    }

    /// The data of the item `itemQuery` names, `nil` when there is none.
    private func copyData(_ itemQuery: [String: Any]) throws(VaultError) -> Data? {
        var query = itemQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else { throw .corrupt }
            return data
        case errSecItemNotFound:
            return nil
        default:
            throw Self.failure("SecItemCopyMatching", status)
        }
    }

    /// Replaces the data (and accessibility) of the item `itemQuery` names, or adds the item.
    private func storeData(_ data: Data, _ itemQuery: [String: Any]) throws(VaultError) {
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibility.attribute,
        ]
        let updated = SecItemUpdate(itemQuery as CFDictionary, attributes as CFDictionary)
        switch updated {
        case errSecSuccess:
            return
        case errSecItemNotFound:
            let item = itemQuery.merging(attributes) { _, new in new }
            let added = SecItemAdd(item as CFDictionary, nil)
            guard added == errSecSuccess else { throw Self.failure("SecItemAdd", added) }
        default:
            throw Self.failure("SecItemUpdate", updated)
        }
    }

    /// Deletes the item `itemQuery` names; succeeds when there is none.
    private func deleteItem(_ itemQuery: [String: Any]) throws(VaultError) {
        let status = SecItemDelete(itemQuery as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw Self.failure("SecItemDelete", status)
        }
    }

    /// `KeychainVault(<service>)`.
    public var description: String { "KeychainVault(\(service))" }

    private static func failure(_ operation: String, _ status: OSStatus) -> VaultError {
        switch status {
        case errSecInteractionNotAllowed: .unavailable
        case errSecAuthFailed, errSecMissingEntitlement: .accessDenied
        case errSecDecode: .corrupt
        default: .system(operation: operation, code: status)
        }
    }
}
#endif
