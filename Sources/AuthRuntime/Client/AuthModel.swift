#if canImport(Observation)
import AuthCore
import Observation

/// A backend client as a SwiftUI view observes it: the auth state, the signed-in user, whether
/// an operation is under way and the last error, on the main actor.
///
/// ```swift
/// @State var auth = AuthModel(client: SubspaceClient(baseURL: apiURL, vault: KeychainVault()))
///
/// var body: some View {
///     switch auth.state {
///     case .signedIn(let session): WallView(user: session.user)
///     default:
///         LoginForm(busy: auth.isBusy, error: auth.lastError?.localizedDescription) { email, password in
///             Task { await auth.perform { try await $0.signIn(email: email, password: password) } }
///         }
///     }
/// }
/// .task { await auth.observe() }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor @Observable
public final class AuthModel<Client: BackendClient> {
    /// The client the operations go to.
    public let client: Client
    /// Where the user is; `.restoring` until the client has read its vault.
    public private(set) var state: AuthState = .restoring
    /// Whether an operation started here is under way.
    public private(set) var isBusy = false
    /// The error of the last operation started here, `nil` after one succeeded.
    public private(set) var lastError: AuthError?

    /// A model over `client`. Call ``observe()`` (a view's `.task`) to follow its state.
    public init(client: Client) { self.client = client }

    /// The signed-in user, if any.
    public var user: UserProfile? { state.user }

    /// Whether a session can make protected requests now.
    public var isSignedIn: Bool { state.isSignedIn }

    /// Follows the client's auth state until the calling task is cancelled or the client stops.
    public func observe() async {
        for await next in await client.authStateChanges { state = next }
    }

    /// Runs `operation` on the client, keeping ``isBusy`` and ``lastError`` up to date; its result,
    /// or `nil` when it threw (the error is in ``lastError``; the client's operations throw only
    /// ``AuthError``, anything else becomes ``AuthError/unexpected(_:)``).
    @discardableResult
    public func perform<Result: Sendable>(_ operation: @Sendable (Client) async throws -> Result) async -> Result? {
        isBusy = true
        defer { isBusy = false }
        do {
            let result = try await operation(client)
            lastError = nil
            return result
        } catch let error as AuthError {
            lastError = error
            return nil
        } catch {
            lastError = .unexpected("\(error)")
            return nil
        }
    }

    /// Signs out (at once, whatever the network does).
    public func signOut() async {
        await client.signOut()
        lastError = nil
    }
}
#endif
