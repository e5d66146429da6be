/// The five documented backends the reference server can speak, and an OpenID Connect provider.
///
/// The reference backend's own names start with `Served`/`Server` (`ServedBackend`,
/// `ServerRequest`, `ServerResponse`, `ServerReply`, `ServerHeaders`), so code that uses both sides
/// reads whose a value is without module-qualified names: the client modules' `Backend`,
/// `HTTPRequest`, `HTTPResponse`, `Reply` and `HTTPHeaders` are theirs. The two sides share no type
/// (the reference backend is the client's test oracle and depends on no client module), so the
/// `authflow` command maps one `Backend` to the other with an exhaustive switch.
public enum ServedBackend: String, CaseIterable, Sendable, Hashable, Codable {
    /// Anonymous Wall: email codes, passwords set after registration, `/api/v1/auth/...`, camelCase, `{"error"}`.
    case anonymousWall
    /// VynqTalk (Vapor): `/auth/signup`, `/auth/login`, `{success,data,message}` envelope (refusals too), `{"error":true,"reason"}` framework errors.
    case vynqTalk
    /// Everday: approval-gated registration, rotating refresh tokens, `/api/auth/...`, PascalCase, `{"detail"}`.
    case everday
    /// Subspace: register returns a 24 h token at once, rate limit, `/api/v1/...`, camelCase, `{"error"}`.
    case subspace
    /// Hero365: email, phone and OTP sign-in, OAuth, rotating refresh, `/api/v1/...`, snake_case, `{"detail"}`.
    case hero365
    /// An OpenID Connect provider (OAuth 2.1 for one public client): discovery, code with PKCE
    /// S256, rotating refresh, userinfo, revocation (RFC 7009), introspection (RFC 7662), errors as
    /// RFC 6749 §5.2 writes them. The client's name for the standard is `Backend.openIDConnect`.
    case openIDConnect

    /// The path prefix in front of the documented paths when several backends are mounted at once.
    public var pathPrefix: String {
        switch self {
        case .anonymousWall: return "/anonymouswall"
        case .vynqTalk: return "/vynqtalk"
        case .everday: return "/everday"
        case .subspace: return "/subspace"
        case .hero365: return "/hero365"
        case .openIDConnect: return "/oidc"
        }
    }
}
