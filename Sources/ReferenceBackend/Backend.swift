/// The five documented backends the reference server can speak.
public enum Backend: String, CaseIterable, Sendable, Hashable, Codable {
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

    /// The path prefix in front of the documented paths when several backends are mounted at once.
    public var pathPrefix: String {
        switch self {
        case .anonymousWall: return "/anonymouswall"
        case .vynqTalk: return "/vynqtalk"
        case .everday: return "/everday"
        case .subspace: return "/subspace"
        case .hero365: return "/hero365"
        }
    }
}
