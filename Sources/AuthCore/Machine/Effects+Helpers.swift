extension AuthEffect {
    /// Refuses intent `intent` locally, with a reason the UI can show.
    static func reject(_ intent: IntentID, _ rejection: Rejection) -> AuthEffect { .finish(intent, .rejected(rejection)) }
    /// Reports the failure of a request nobody waits for.
    static func fail(_ failure: AuthFailure) -> AuthEffect { .emit(.failed(failure)) }
}

extension Result where Failure == ValidationError {
    /// The value, or `nil` after appending the rejection of `intent` to `effects`.
    func valueOrReject(_ intent: IntentID, into effects: inout [AuthEffect]) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let error):
            effects.append(.reject(intent, .invalid(error)))
            return nil
        }
    }
}

extension Reply {
    /// The grant in a sign-in answer; any other success shape is an unreadable answer.
    var grantOrFailure: Result<Grant, AuthFailure> {
        switch self {
        case .granted(let grant): .success(grant)
        case .failed(let failure): .failure(failure)
        case .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL, .nativeSignInRequired, .device,
            .realtimeOpened, .realtimeClosed:
            .failure(.malformed)
        }
    }

    /// Success without payload (code sent, reset requested, password set): any 2xx shape counts,
    /// since Anonymous Wall's API document answers with a plain string or JSON with a message.
    var acceptedOrFailure: Result<Void, AuthFailure> {
        switch self {
        case .accepted, .user, .pendingApproval, .verificationRequired: .success(())
        case .failed(let failure): .failure(failure)
        case .granted, .refreshed, .authorizationURL, .nativeSignInRequired, .device, .realtimeOpened, .realtimeClosed: .failure(.malformed)
        }
    }
}
