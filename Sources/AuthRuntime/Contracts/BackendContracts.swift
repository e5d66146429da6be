import AuthCore
import Foundation

/// The five documented contracts, by backend.
public enum BackendContracts {
    /// The contract for `backend` served at `server`: the server root the document's paths hang from
    /// (`http://localhost:8080`), to which each contract adds its documented prefix (`/api/v1`,
    /// `/api`, or none for VynqTalk).
    public static func contract(for backend: Backend, server: URL) -> any BackendContract {
        switch backend {
        case .anonymousWall: AnonymousWallContract(server: server)
        case .vynqTalk: VynqTalkContract(server: server)
        case .everday: EverdayContract(server: server)
        case .subspace: SubspaceContract(server: server)
        case .hero365: Hero365Contract(server: server)
        }
    }

    /// All five, each at the server root `server(backend)` names (several backends mounted on one
    /// server under prefixes, or each on its own host).
    public static func all(server: (Backend) -> URL) -> [any BackendContract] {
        Backend.allCases.map { contract(for: $0, server: server($0)) }
    }

    /// All five at the development base URLs their API documents give.
    public static var documented: [any BackendContract] {
        [
            AnonymousWallContract.development, VynqTalkContract.development, EverdayContract.development,
            SubspaceContract.development, Hero365Contract.development,
        ]
    }
}
