import AuthCore
import ReferenceBackend

extension Backend {
    /// Where the reference server serves this backend.
    ///
    /// The client's `Backend` and the reference backend's `ServedBackend` name the same documented
    /// APIs but share no type: the reference backend is the client's test oracle and depends on no
    /// client module. `authflow` maps one to the other here with an exhaustive switch, so a backend
    /// added to the client breaks the build until the reference backend serves it (no lookup by
    /// raw value that could fall back to another backend silently). `authflow` only ever serves
    /// the client's backends, so it needs no map the other way.
    var served: ServedBackend {
        switch self {
        case .anonymousWall: .anonymousWall
        case .vynqTalk: .vynqTalk
        case .everday: .everday
        case .subspace: .subspace
        case .hero365: .hero365
        }
    }
}
