import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The user's browser at the reference backend's OpenID Connect provider, for tests that sign in
/// by code: where the provider's authorization endpoint would send the browser for a URL, asked of
/// its dev endpoint `/__dev/oidc/authorize` (it signs the test user in without a page; the
/// redirect goes to the app's scheme and is returned, not followed).
public enum ReferenceProviderBrowser {
    /// The dev endpoint answered without a redirect.
    public struct NoRedirect: Error, CustomStringConvertible {
        /// What it answered instead.
        public let answer: String
        /// "the dev endpoint answered no redirectURL: …".
        public var description: String { "the dev endpoint answered no redirectURL: \(answer)" }
    }

    /// A browser for `OpenIDConnectClient.signIn(browser:)`, against the server whose root is `root`.
    public static func at(_ root: URL) -> @Sendable (URL, String?) async throws -> URL {
        { url, _ in
            let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
            let session = URLSession.loopback()
            defer { session.invalidateAndCancel() }
            guard let endpoint = URL(string: root.absoluteString + "/__dev/oidc/authorize?" + query) else {
                throw NoRedirect(answer: "no endpoint URL")
            }
            let (data, _) = try await session.data(from: endpoint)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            guard let text = object?["redirectURL"] as? String, let redirect = URL(string: text) else {
                throw NoRedirect(answer: String(decoding: data.prefix(200), as: UTF8.self))
            }
            return redirect
        }
    }
}
