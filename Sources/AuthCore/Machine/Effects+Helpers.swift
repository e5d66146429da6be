extension AuthEffect {
    /// Refuses a user intent locally, with a reason the UI can show.
    static func reject(_ rejection: Rejection) -> AuthEffect { .emit(.rejected(rejection)) }
    /// Reports a server failure to the UI.
    static func fail(_ failure: AuthFailure) -> AuthEffect { .emit(.failed(failure)) }
}

extension Result where Failure == ValidationError {
    /// The value, or `nil` after appending the rejection effect to `effects`.
    func valueOrReject(into effects: inout [AuthEffect]) -> Success? {
        switch self {
        case .success(let value): return value
        case .failure(let error):
            effects.append(.reject(.invalid(error)))
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
        case .refreshed, .accepted, .user, .pendingApproval, .verificationRequired, .authorizationURL,
            .realtimeOpened, .realtimeClosed:
            .failure(.malformed)
        }
    }

    /// Success without payload (code sent, reset requested, password set): any 2xx shape counts,
    /// since the seeds answer "String or JSON with message".
    var acceptedOrFailure: Result<Void, AuthFailure> {
        switch self {
        case .accepted, .user, .pendingApproval, .verificationRequired: .success(())
        case .failed(let failure): .failure(failure)
        case .granted, .refreshed, .authorizationURL, .realtimeOpened, .realtimeClosed: .failure(.malformed)
        }
    }
}
