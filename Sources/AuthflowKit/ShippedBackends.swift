import AuthCore
import AuthRuntime
import Foundation
import ReferenceBackend

/// What `authflow` knows of one documented backend, or of OpenID Connect (the standard, any
/// provider's): where the reference server serves it, its demo tour and its probe. Every command that lists backends reads ``all``, so a backend is
/// registered with the command line by one entry there.
///
/// The client's `Backend` and the reference backend's `ServedBackend` name the same documented
/// APIs but share no type: the reference backend is the client's test oracle and depends on no
/// client module. `authflow` pairs them here, by hand (no lookup by name that could fall back
/// to another backend silently); `authflow` only ever serves the client's backends, so it needs
/// no map the other way.
struct ShippedBackend: Sendable {
    /// The backend.
    let backend: Backend
    /// Where the reference server serves it.
    let served: ServedBackend
    /// Its tour in `authflow demo`.
    let tour: @Sendable (Tour) async -> Void
    /// The steps its probe takes (`authflow probe <backend> --dry-run` lists them).
    let plan: [ProbeStep]
    /// Runs its probe.
    let probe: @Sendable (ProbeSettings, ProbeOperator) async -> ProbeReport

    /// Every backend `authflow` serves, tours and probes: `Backend.documented`, in order, then
    /// `Backend.openIDConnect`.
    static let all: [ShippedBackend] = [
        ShippedBackend(
            backend: .anonymousWall, served: .anonymousWall, tour: Demo.anonymousWall, plan: AnonymousWallProbe.plan,
            probe: { settings, hooks in
                var probe = AnonymousWallProbe(baseURL: settings.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix())
                if let domain = settings.emailDomain { probe.emailDomain = domain }
                return await probe.run()
            }),
        ShippedBackend(
            backend: .vynqTalk, served: .vynqTalk, tour: Demo.vynqTalk, plan: VynqTalkProbe.plan,
            probe: { settings, hooks in
                await VynqTalkProbe(baseURL: settings.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix()).run()
            }),
        ShippedBackend(
            backend: .everday, served: .everday, tour: Demo.everday, plan: EverdayProbe.plan,
            probe: { settings, hooks in
                await EverdayProbe(baseURL: settings.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix()).run()
            }),
        ShippedBackend(
            backend: .subspace, served: .subspace, tour: Demo.subspace, plan: SubspaceProbe.plan,
            probe: { settings, hooks in
                await SubspaceProbe(baseURL: settings.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix()).run()
            }),
        ShippedBackend(
            backend: .hero365, served: .hero365, tour: Demo.hero365, plan: Hero365Probe.plan,
            probe: { settings, hooks in
                var probe = Hero365Probe(baseURL: settings.baseURL, hooks: hooks, prefix: ProbeSecrets.accountPrefix())
                probe.phone = settings.phone
                return await probe.run()
            }),
        ShippedBackend(
            backend: .openIDConnect, served: .openIDConnect, tour: Demo.openIDConnect, plan: OpenIDConnectProbe.plan,
            probe: { settings, hooks in
                var probe = OpenIDConnectProbe(issuer: settings.baseURL, clientID: settings.clientID ?? "", hooks: hooks)
                if let redirectURI = settings.redirectURI { probe.redirectURI = redirectURI }
                probe.allowsRemoteEndpoints = settings.allowsRemote
                return await probe.run()
            }),
    ]

    /// The registered backend `name` names in any casing (`everday`, `anonymousWall`,
    /// `anonymous-wall`; `oidc` for `openIDConnect`), or `nil`.
    static func named(_ name: String) -> ShippedBackend? {
        let key = name.lowercased().filter { $0.isLetter || $0.isNumber }
        if key == "oidc" { return of(.openIDConnect) }
        return all.first { $0.backend.id.lowercased() == key }
    }

    /// The registration of `backend`, or `nil` when `authflow` does not know it.
    static func of(_ backend: Backend) -> ShippedBackend? { all.first { $0.backend == backend } }

    /// The registered backends' ids, as the command line's messages list them.
    static var names: String { all.map(\.backend.id).joined(separator: ", ") }

    /// The backend's API base URL on `server`: its contract's documented prefix under the
    /// backend's mount.
    func apiURL(on server: ReferenceServer) -> URL {
        let mount = server.baseURL(for: served)
        return BackendContracts.contract(for: backend, server: mount)?.baseURL ?? mount
    }
}
