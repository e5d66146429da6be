import AuthCore
import AuthSupport
import Foundation
import Testing
@testable import AuthRuntime

/// A provider of the device authorization grant played by a scripted transport on a manual
/// clock: it issues codes (every 5 s, for 60 s), answers each poll with the next answer of its
/// script, and records when each poll came.
final class ScriptedDeviceProvider: Sendable {
    /// A poll's answer.
    enum Answer: Sendable {
        case pending, slowDown, denied, expired, granted
    }
    struct Storage: Sendable {
        var script: [Answer]
        var polls: [Instant] = []
        var authorizations: [[String: String]] = []
        var requests = 0
    }

    static let provider = OpenIDProviderMetadata(
        issuer: ScriptedProvider.issuer, authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
        tokenEndpoint: URL(string: "https://id.example.com/o/token/")!, userinfoEndpoint: URL(string: "https://id.example.com/userinfo")!,
        revocationEndpoint: URL(string: "https://id.example.com/o/revoke_token/")!,
        deviceAuthorizationEndpoint: URL(string: "https://id.example.com/o/device-authorization/")!)

    let storage: Locked<Storage>
    let clock = ManualClock(now: ScriptedProvider.now)
    let transport: ScriptedTransport

    init(_ script: [Answer]) {
        let storage = Locked(Storage(script: script))
        let clock = clock
        self.storage = storage
        transport = ScriptedTransport { request in .success(Self.answer(request, storage, at: clock.now)) }
    }

    static func answer(_ request: HTTPRequest, _ storage: Locked<Storage>, at now: Instant) -> HTTPResponse {
        let fields = OIDCFixtures.fields(request)
        return storage.withLock { storage -> HTTPResponse in
            storage.requests += 1
            switch request.url.absoluteString.replacingOccurrences(of: "https://id.example.com", with: "") {
            case "/o/device-authorization/":
                storage.authorizations.append(fields)
                return ScriptedProvider.json(
                    200,
                    [
                        "device_code": "device-code-1", "user_code": "WDJB-MJHT", "verification_uri": "https://id.example.com/device",
                        "verification_uri_complete": "https://id.example.com/device?user_code=WDJB-MJHT", "expires_in": 60, "interval": 5,
                    ])
            case "/o/token/":
                guard fields["grant_type"] == OpenIDConnectContract.deviceCodeGrantType, fields["device_code"] == "device-code-1",
                    fields["client_id"] == "app-1"
                else { return ScriptedProvider.json(400, ["error": "invalid_grant"]) }
                storage.polls.append(now)
                let next = storage.script.isEmpty ? .pending : storage.script.removeFirst()
                switch next {
                case .pending: return ScriptedProvider.json(400, ["error": "authorization_pending"])
                case .slowDown: return ScriptedProvider.json(400, ["error": "slow_down"])
                case .denied: return ScriptedProvider.json(400, ["error": "access_denied"])
                case .expired: return ScriptedProvider.json(400, ["error": "expired_token"])
                case .granted:
                    let idToken = ScriptedProvider.jwt([
                        "iss": ScriptedProvider.issuer, "sub": "user-42", "aud": "app-1", "exp": 1_767_229_200, "iat": 1_767_225_600,
                        "email": "ada@example.com",
                    ])
                    return ScriptedProvider.json(
                        200, ["access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1", "id_token": idToken])
                }
            default:
                return HTTPResponse(status: 404)
            }
        }
    }

    func client(provider: OpenIDProviderMetadata = ScriptedDeviceProvider.provider, vault: MemoryVault = MemoryVault()) -> OpenIDConnectClient {
        OpenIDConnectClient(
            provider: provider, clientID: "app-1", redirectURI: ScriptedProvider.redirect, vault: vault, transport: transport, clock: clock)
    }

    /// The seconds between the codes' issue (at the clock's start) and each poll, then between polls.
    var gaps: [Int64] {
        let times = [ScriptedProvider.now] + storage.withLock { $0.polls }
        return zip(times.dropFirst(), times).map { ($0 - $1).milliseconds / 1000 }
    }

    /// Runs `sign-in` while moving the clock to each wake-up the runner sets, until it ends.
    func drive<T: Sendable>(_ signIn: @escaping @Sendable () async throws -> T) async -> Result<T, any Error> {
        let task = Task { try await signIn() }
        let finished = Locked(false)
        let watcher = Task {
            _ = await task.result
            finished.withLock { $0 = true }
        }
        var rounds = 0
        while !finished.withLock({ $0 }), rounds < 2_000 {
            rounds += 1
            // The runner has answered and set its next wake-up (the poll, and the codes' expiry).
            if let next = clock.pendingDeadlines.first, clock.pendingDeadlines.count >= 2 {
                await clock.advance(to: next)
            }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        _ = await watcher.value
        return await task.result
    }
}

@Suite("Client: OpenID Connect on a device", .timeLimit(.minutes(15)))
struct OpenIDConnectDeviceClientTests {
    @Test("the user code is shown once, the polls keep the interval (5 s, 5 s more after slow_down), and the user is signed in")
    func signsIn() async throws {
        let provider = ScriptedDeviceProvider([.pending, .slowDown, .pending, .granted])
        let vault = MemoryVault()
        let auth = provider.client(vault: vault)
        let shown = Locked<[UserCodePrompt]>([])
        let result = await provider.drive { try await auth.signInOnDevice { prompt in shown.withLock { $0.append(prompt) } } }
        let user = try result.get()
        #expect(user.id == "user-42" && user.email == "ada@example.com")
        #expect(await auth.isSignedIn)
        #expect(vault.credentials?.refreshToken == RefreshToken("rt-1"))
        #expect(
            shown.withLock { $0 } == [
                UserCodePrompt(
                    userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device",
                    verificationURIComplete: "https://id.example.com/device?user_code=WDJB-MJHT")
            ])
        #expect(provider.gaps == [5, 5, 10, 10])
        #expect(provider.storage.withLock { $0.authorizations } == [["client_id": "app-1", "scope": "openid profile email"]])
        await auth.stop()
    }

    @Test("access_denied and expired_token end the sign-in rejected, with texts for the user")
    func refusals() async throws {
        for (answer, rejection) in [(ScriptedDeviceProvider.Answer.denied, Rejection.signInDeclined), (.expired, .deviceCodeExpired)] {
            let provider = ScriptedDeviceProvider([.pending, answer])
            let auth = provider.client()
            let result = await provider.drive { try await auth.signInOnDevice { _ in } }
            #expect(throws: AuthError.rejected(rejection)) { try result.get() }
            #expect(AuthError.rejected(rejection).errorDescription == rejection.description)
            #expect(await auth.isSignedIn == false)
            #expect(provider.storage.withLock { $0.polls.count } == 2)
            await auth.stop()
        }
    }

    @Test("the codes' expires_in passing ends the sign-in rejected, and no poll leaves after it")
    func expires() async throws {
        let provider = ScriptedDeviceProvider([])  // Pending for ever.
        let auth = provider.client()
        let result = await provider.drive { try await auth.signInOnDevice { _ in } }
        #expect(throws: AuthError.rejected(.deviceCodeExpired)) { try result.get() }
        let polls = provider.storage.withLock { $0.polls }
        #expect(polls.allSatisfy { $0 < ScriptedProvider.now + .seconds(60) } && polls.count == 11)
        await auth.stop()
    }

    @Test("a provider without a device authorization endpoint is refused before any request")
    func unsupported() async throws {
        let provider = ScriptedDeviceProvider([])
        var metadata = ScriptedDeviceProvider.provider
        metadata.deviceAuthorizationEndpoint = nil
        let auth = provider.client(provider: metadata)
        #expect(!auth.offersDeviceSignIn)
        #expect(await authError { try await auth.signInOnDevice { _ in } } == .rejected(.unsupported))
        #expect(provider.storage.withLock { $0.requests } == 0)
        await auth.stop()
    }

    @Test("cancelling the waiting task stops polling; cancelDeviceSignIn supersedes the waiting call")
    func cancels() async throws {
        let provider = ScriptedDeviceProvider([])
        let auth = provider.client()
        let shown = Locked(false)
        let task = Task { try await auth.signInOnDevice { _ in shown.withLock { $0 = true } } }
        while !shown.withLock({ $0 }) { try await Task.sleep(nanoseconds: 2_000_000) }
        task.cancel()
        #expect(await authError { try await task.value } == .cancelled)
        await provider.clock.advance(by: .seconds(30))
        #expect(provider.storage.withLock { $0.polls }.isEmpty)

        let waiting = Task { try await auth.signInOnDevice { _ in } }
        while provider.storage.withLock({ $0.authorizations.count }) < 2 || provider.clock.pendingDeadlines.count < 2 {
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        await auth.cancelDeviceSignIn()
        #expect(await authError { try await waiting.value } == .superseded)
        await provider.clock.advance(by: .seconds(30))
        #expect(provider.storage.withLock { $0.polls }.isEmpty)
        await auth.stop()
    }
}
