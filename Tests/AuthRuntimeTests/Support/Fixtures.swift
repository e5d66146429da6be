import AuthCore
import AuthRuntime
import Foundation

/// Values and builders shared by the runner's tests.
enum Sample {
    static let user = UserProfile(id: "user-1")
    static let password = PasswordInput("Passw0rd!123")
    static let appRequestURL = URL(string: "http://stub.test/api/items") ?? URL(fileURLWithPath: "/")
    static var appRequest: HTTPRequest { HTTPRequest(method: "GET", url: appRequestURL) }

    /// Credentials with `access`/`refresh` expiring at `expiresAt`.
    static func credentials(
        access: String = "access-0", refresh: String? = "refresh-0", expiresAt: Instant?, lifetime: Interval? = nil
    ) -> Credentials {
        Credentials(
            accessToken: AccessToken(access), refreshToken: refresh.map(RefreshToken.init), expiresAt: expiresAt, lifetime: lifetime, user: user)
    }

    /// Everday's sign-in intent.
    static func everdaySignIn(_ password: PasswordInput = password) -> PasswordSignIn.Intent {
        .submit(identifier: "newkid", password: password)
    }

    /// A runner over the stub contract and a manual clock.
    static func runner<Machine: Lifecycle>(
        _ machine: Machine, transport: ScriptedTransport, vault: MemoryVault = MemoryVault(), clock: ManualClock = ManualClock(),
        contract: StubContract = StubContract(), realtime: (any RealtimeConnector)? = nil, logger: (any HTTPLogger)? = nil
    ) -> AuthRunner<Machine> {
        AuthRunner(
            machine: machine, contract: contract, transport: transport, vault: vault, clock: clock, realtime: realtime, logger: logger)
    }
}

extension AsyncStream {
    /// The first `count` elements (fewer if the stream ends first).
    func prefixArray(_ count: Int) async -> [Element] {
        var elements: [Element] = []
        for await element in self {
            elements.append(element)
            if elements.count == count { break }
        }
        return elements
    }
}

extension AuthRunner {
    /// The status `authorized(request)` returned, or the error it threw.
    func status(of request: HTTPRequest = Sample.appRequest) async -> Result<Int, AuthError> {
        do throws(AuthError) {
            return .success(try await authorized(request).status)
        } catch {
            return .failure(error)
        }
    }
}

extension AuthRunner {
    /// Returns once no request is in flight, checking after every state change (`states` must
    /// have been subscribed before the work started).
    func settled(_ states: AsyncStream<Machine.State>) async {
        for await _ in states where inFlight.isEmpty { return }
    }
}
