import AuthCore
import Foundation

extension AuthRunner where Machine: AuthStateReporting {
    /// The runner of a backend's client: it also tells how the app sees each state.
    static func client(
        _ machine: Machine, contract: any BackendContract, transport: any HTTPTransport, vault: any TokenVault,
        clock: any RuntimeClock, realtime: (any RealtimeConnector)? = nil, logger: (any HTTPLogger)?
    ) -> AuthRunner {
        AuthRunner(
            machine: machine, contract: contract, transport: transport, vault: vault, clock: clock, realtime: realtime, logger: logger,
            view: { machine.authState($0.phase) })
    }
}
