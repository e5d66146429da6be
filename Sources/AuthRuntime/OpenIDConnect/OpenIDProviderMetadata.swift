import AuthCore
import Foundation

/// What an OpenID Connect provider says about itself at `/.well-known/openid-configuration`
/// (OpenID Connect Discovery 1.0 §3, RFC 8414 §2): where its endpoints are and what it supports.
///
/// Read it with ``discover(issuer:transport:)``, or from a discovery document the app keeps, with
/// ``init(document:issuer:)``; either way its `issuer` must be exactly the one configured.
public struct OpenIDProviderMetadata: Hashable, Sendable {
    /// `issuer`: the provider's issuer identifier, equal to the configured one.
    public var issuer: String
    /// `authorization_endpoint`: the page the app opens in a browser.
    public var authorizationEndpoint: URL
    /// `token_endpoint`: where codes and refresh tokens are exchanged.
    public var tokenEndpoint: URL
    /// `userinfo_endpoint`: who the access token belongs to, when the provider has one.
    public var userinfoEndpoint: URL?
    /// `revocation_endpoint` (RFC 7009), when the provider has one. A provider whose discovery
    /// document does not name it may name it in its OAuth metadata (RFC 8414), which
    /// ``discover(issuer:transport:)`` then reads.
    public var revocationEndpoint: URL?
    /// `end_session_endpoint` (RP-initiated logout), when the provider has one.
    public var endSessionEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628 §4), when the provider offers sign-in on devices
    /// without a browser.
    public var deviceAuthorizationEndpoint: URL?
    /// `code_challenge_methods_supported`; empty when the provider does not say.
    public var codeChallengeMethods: [String]
    /// `authorization_response_iss_parameter_supported` (RFC 9207): the callback then carries
    /// `iss`, and one without it is refused.
    public var issuerInAuthorizationResponse: Bool

    /// Metadata given by hand (a provider without discovery, or a test).
    public init(
        issuer: String, authorizationEndpoint: URL, tokenEndpoint: URL, userinfoEndpoint: URL? = nil, revocationEndpoint: URL? = nil,
        endSessionEndpoint: URL? = nil, deviceAuthorizationEndpoint: URL? = nil, codeChallengeMethods: [String] = ["S256"],
        issuerInAuthorizationResponse: Bool = false
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.codeChallengeMethods = codeChallengeMethods
        self.issuerInAuthorizationResponse = issuerInAuthorizationResponse
    }

    /// Reads a discovery document for the configured `issuer`.
    ///
    /// - Throws: ``OpenIDDiscoveryError/malformed(_:)`` for a body that is not a JSON object or
    ///   lacks a required endpoint, ``OpenIDDiscoveryError/issuerMismatch(expected:found:)`` when its
    ///   `issuer` is not exactly `issuer` (OpenID Connect Discovery §4.3), and
    ///   ``OpenIDDiscoveryError/pkceUnsupported`` when it lists its PKCE methods without `S256`.
    public init(document: Data, issuer: String) throws(OpenIDDiscoveryError) {
        guard let object = JSONValue.parse(document)?.object else { throw .malformed("not a JSON object") }
        guard let found = object.string("issuer") else { throw .malformed("no issuer") }
        guard found == issuer else { throw .issuerMismatch(expected: issuer, found: found) }
        func endpoint(_ key: String) -> URL? { Self.endpoint(object, key) }
        guard let authorization = endpoint("authorization_endpoint") else { throw .malformed("no authorization_endpoint") }
        guard let token = endpoint("token_endpoint") else { throw .malformed("no token_endpoint") }
        let methods = object["code_challenge_methods_supported"]?.array?.compactMap(\.string) ?? []
        guard methods.isEmpty || methods.contains("S256") else { throw .pkceUnsupported }
        self.init(
            issuer: found, authorizationEndpoint: authorization, tokenEndpoint: token, userinfoEndpoint: endpoint("userinfo_endpoint"),
            revocationEndpoint: endpoint("revocation_endpoint"), endSessionEndpoint: endpoint("end_session_endpoint"),
            deviceAuthorizationEndpoint: endpoint("device_authorization_endpoint"), codeChallengeMethods: methods,
            issuerInAuthorizationResponse: object.bool("authorization_response_iss_parameter_supported") ?? false)
    }

    /// The web address at `key`, when it is an `http` or `https` URL with a host.
    private static func endpoint(_ object: JSONObject, _ key: String) -> URL? {
        guard let text = object.string(key), let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host != nil
        else { return nil }
        return url
    }

    /// Where `issuer` publishes its discovery document: the issuer, without a trailing slash,
    /// followed by `/.well-known/openid-configuration` (OpenID Connect Discovery §4.1).
    public static func discoveryURL(issuer: URL) -> URL {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/.well-known/openid-configuration") ?? issuer
    }

    /// Where `issuer` publishes its OAuth 2.0 authorization server metadata (RFC 8414 §3.1): the
    /// issuer's origin, `/.well-known/oauth-authorization-server`, then the issuer's path
    /// (`https://id.example.com/o` → `https://id.example.com/.well-known/oauth-authorization-server/o`).
    public static func authorizationServerMetadataURL(issuer: URL) -> URL {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false) else { return issuer }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.url ?? issuer
    }

    /// Fetches and reads `issuer`'s discovery document. When it names no `revocation_endpoint`
    /// (OpenID Connect Discovery does not define one, and some providers leave it to their OAuth
    /// metadata), the provider's RFC 8414 metadata is read for it: at
    /// ``authorizationServerMetadataURL(issuer:)``, else (for an issuer with a path) at the issuer
    /// followed by `/.well-known/oauth-authorization-server`, and only from a document whose
    /// `issuer` is exactly `issuer` (RFC 8414 §3.3). Without one, the provider has no revocation
    /// endpoint, and nothing is thrown.
    ///
    /// - Throws: ``OpenIDDiscoveryError/unreachable(_:)`` when no answer came or the answer is an
    ///   error status, and what ``init(document:issuer:)`` throws.
    public static func discover(issuer: URL, transport: any HTTPTransport = URLSessionTransport()) async throws(OpenIDDiscoveryError)
        -> OpenIDProviderMetadata
    {
        let request = HTTPRequest(method: "GET", url: discoveryURL(issuer: issuer), headers: HTTPHeaders([("Accept", "application/json")]))
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw .unreachable(error == .timeout ? .timeout : .network)
        }
        guard response.isSuccess else {
            throw .unreachable(AuthFailure(status: response.status, message: nil, headers: response.headers, receivedAt: Instant(Date())))
        }
        var provider = try OpenIDProviderMetadata(document: response.body, issuer: issuer.absoluteString)
        if provider.revocationEndpoint == nil {
            provider.revocationEndpoint = await revocationEndpoint(issuer: issuer, transport: transport)
        }
        return provider
    }

    /// The `revocation_endpoint` of `issuer`'s RFC 8414 metadata, at the standard address or the
    /// appended one some servers use; `nil` when neither answers with a document of this issuer.
    private static func revocationEndpoint(issuer: URL, transport: any HTTPTransport) async -> URL? {
        let standard = authorizationServerMetadataURL(issuer: issuer)
        let appended = discoveryURL(issuer: issuer).deletingLastPathComponent().appendingPathComponent("oauth-authorization-server")
        for url in standard == appended ? [standard] : [standard, appended] {
            let request = HTTPRequest(method: "GET", url: url, headers: HTTPHeaders([("Accept", "application/json")]))
            guard let response = try? await transport.send(request), response.isSuccess,
                let object = JSONValue.parse(response.body)?.object, object.string("issuer") == issuer.absoluteString
            else { continue }
            return endpoint(object, "revocation_endpoint")
        }
        return nil
    }
}

/// Why an OpenID Connect provider's discovery document could not be used.
public enum OpenIDDiscoveryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No document: the network failed, or the server answered an error status.
    case unreachable(AuthFailure)
    /// The document is not a JSON object, or lacks a required member (named).
    case malformed(String)
    /// The document's `issuer` is not exactly the configured issuer: a provider must not speak
    /// for another (OpenID Connect Discovery §4.3).
    case issuerMismatch(expected: String, found: String)
    /// The provider lists its PKCE methods and `S256` is not among them.
    case pkceUnsupported

    /// What went wrong.
    public var description: String {
        switch self {
        case .unreachable(let failure): "The identity provider's configuration could not be fetched (\(failure))."
        case .malformed(let what): "The identity provider's configuration is unreadable (\(what))."
        case .issuerMismatch(let expected, let found):
            "The identity provider's configuration names another issuer (\(found), expected \(expected))."
        case .pkceUnsupported: "The identity provider does not support PKCE with S256."
        }
    }
}
