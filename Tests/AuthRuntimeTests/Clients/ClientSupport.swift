import AuthCore
import AuthRuntime
import Foundation
import Testing

extension EndToEndStack {
    /// The base URL an app gives a backend's client for this server (the documented prefix included).
    var baseURL: URL { contract.baseURL }

    /// How many requests the server received for `method` `path` (under the documented prefix).
    func received(_ method: String, _ path: String) -> Int {
        server.ledger.requests(method, baseURL.path + path)
    }
}

/// What a throwing client call did: its error, which must be an ``AuthError``.
func authError<T>(_ call: () async throws -> T) async -> AuthError? {
    do {
        _ = try await call()
        return nil
    } catch let error as AuthError {
        return error
    } catch {
        Issue.record("not an AuthError: \(error)")
        return nil
    }
}
