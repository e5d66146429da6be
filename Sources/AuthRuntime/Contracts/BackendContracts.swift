import AuthCore
import Foundation

/// The contracts of the five documented backends, registered once each by `Backend`.
public enum BackendContracts {
    /// One documented backend's contract: how it is made from a server root, and where its API
    /// document says the development server is.
    struct Registration: Sendable {
        let backend: Backend
        let make: @Sendable (URL) -> any BackendContract
        let development: any BackendContract
    }

    /// The documented backends' contracts, in `Backend.documented` order: one line per backend.
    static let registered: [Registration] = [
        Registration(backend: .anonymousWall, make: { AnonymousWallContract(server: $0) }, development: AnonymousWallContract.development),
        Registration(backend: .vynqTalk, make: { VynqTalkContract(server: $0) }, development: VynqTalkContract.development),
        Registration(backend: .everday, make: { EverdayContract(server: $0) }, development: EverdayContract.development),
        Registration(backend: .subspace, make: { SubspaceContract(server: $0) }, development: SubspaceContract.development),
        Registration(backend: .hero365, make: { Hero365Contract(server: $0) }, development: Hero365Contract.development),
    ]

    /// The backends with a contract here, in order.
    public static var backends: [Backend] { registered.map(\.backend) }

    /// The contract for the documented `backend` served at `server`: the server root the
    /// document's paths hang from (`http://localhost:8080`), to which each contract adds its
    /// documented prefix (`/api/v1`, `/api`, or none for VynqTalk). `nil` for a backend AuthCore
    /// does not document.
    public static func contract(for backend: Backend, server: URL) -> (any BackendContract)? {
        registered.first { $0.backend == backend }?.make(server)
    }

    /// All five, each at the server root `server(backend)` names (several backends mounted on one
    /// server under prefixes, or each on its own host).
    public static func all(server: (Backend) -> URL) -> [any BackendContract] {
        registered.map { $0.make(server($0.backend)) }
    }

    /// All five at the development base URLs their API documents give.
    public static var documented: [any BackendContract] { registered.map(\.development) }
}
