import AuthCore
import ReferenceBackend

// The client's `Backend` and the reference backend's `ServedBackend` name the same five documented
// APIs, but share no type: the reference backend is the client's test oracle and depends on no
// client module. `authflow` maps one to the other here, each way with an exhaustive switch, so a
// backend added on either side breaks the build until it is mapped (no lookup by raw value that
// could fall back to another backend silently).

extension Backend {
    /// Where the reference server serves this backend.
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

extension ServedBackend {
    /// The client's name for the backend the reference server serves here.
    var client: Backend {
        switch self {
        case .anonymousWall: .anonymousWall
        case .vynqTalk: .vynqTalk
        case .everday: .everday
        case .subspace: .subspace
        case .hero365: .hero365
        }
    }
}
