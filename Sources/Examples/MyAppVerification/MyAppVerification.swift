import AuthCore
import AuthVerification

/// A verification executable, as an app adds one beside its code: `swift package verify` builds
/// it optimized and runs it (`--help` for the options). Its composition is no shipped app: five
/// flows, as an embedding app composes them — registration and sign-in by email and password, a
/// reset by emailed code that signs in, a session that refreshes with rotation and revokes at
/// logout — checked at 4 requests in flight and 2 answers left over.
// README: verification
@main struct MyAppVerification: VerificationCommand {
    static let models = [
        AnyModel(Model(of: myApp, name: "myApp", maxInFlight: 4, maxStale: 2) { $0.failures = [.unauthorized(nil), .network] })
    ]
}
// README: end

/// The app's composition. Its refresh backs off on a 15-second grid: a shorter backoff makes each
/// second before expiry a state of its own, for no new ordering of events.
let myApp = Handover(
    entry: OneOf(
        Registration(forms: [.emailPassword]),
        OneOf(PasswordSignIn(identifiers: .email), PasswordReset(style: .emailCodeWithAutoLogin))),
    session: SessionLifecycle(
        policy: SessionPolicy(
            refresh: .rotating(margin: .seconds(60), retryLimit: 2, backoff: .seconds(15)), restore: .fetchCurrentUser,
            revokesOnLogout: true)))
