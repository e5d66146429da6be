/// Work a reducer asks for, as data: the reducer never performs it, the runner does, and a test
/// compares effects with `==`.
///
/// Effects in one list are performed in order where order matters: a `persist` before a `send`
/// that uses the persisted token (the rotated pair is stored before the new access token is used).
public enum AuthEffect: Hashable, Sendable, CustomStringConvertible {
    /// Send this request; its answer comes back as `.reply(id, …)`.
    case send(RequestID, APIRequest)
    /// Stop waiting for this request (its answer, if any, will be stale).
    case cancel(RequestID)
    /// Store these credentials in the vault, replacing what was there.
    case persist(Credentials)
    /// Delete the stored credentials.
    case clearCredentials
    /// Wake the reducer with `.tick(now)` at this instant (replaces an earlier deadline of the same id).
    case schedule(TimerID, at: Instant)
    /// Drop a pending wake-up.
    case cancelTimer(TimerID)
    /// Tell the UI.
    case emit(AuthOutcome)
    /// Tell the caller of an intent what became of it: every intent is finished exactly once.
    case finish(IntentID, Completion)
    /// Close the realtime connection opened by this request.
    case closeRealtime(RequestID)
    /// Store these owed revocations in the vault, replacing the ones stored (see
    /// ``OwedRevocation``): they outlive the process, and the next launch reads them back.
    case persistOwedRevocations([OwedRevocation])

    /// The effect with its arguments as they print themselves:
    /// `send(r1, signIn(email(…), ‹password›))`, `persist(credentials(…))`,
    /// `schedule(proactiveRefresh, at: …)`, `finish(#1, …)`. No password, code or token appears,
    /// only its kind; traces and logs print effects this way.
    public var description: String {
        switch self {
        case .send(let id, let request): "send(\(id), \(request))"
        case .cancel(let id): "cancel(\(id))"
        case .persist(let credentials): "persist(\(credentials))"
        case .clearCredentials: "clearCredentials"
        case .schedule(let timer, let at): "schedule(\(timer), at: \(at))"
        case .cancelTimer(let timer): "cancelTimer(\(timer))"
        case .emit(let outcome): "emit(\(outcome))"
        case .finish(let intent, let completion): "finish(\(intent), \(completion))"
        case .closeRealtime(let id): "closeRealtime(\(id))"
        case .persistOwedRevocations(let owed): "persistOwedRevocations(\(owed.count))"
        }
    }
}

/// What happened, with the time it happened: the only way time reaches a reducer.
///
/// Cases with large payloads are `indirect`: copying the value is then one reference count, not
/// a retain of every string inside it (reducers, the explorer and the fuzzer copy these values
/// on every step). Matching and equality are unchanged.
public enum AuthEvent<Intent: Hashable & Sendable>: Hashable, Sendable, CustomStringConvertible {
    /// The user (or the app on their behalf) asked for something; `id` names it until it is finished.
    indirect case intent(Intent, id: IntentID, at: Instant)
    /// The caller of intent `id` stopped waiting (its task was cancelled): a request sent for it is
    /// abandoned, and the intent is finished as cancelled. Nothing happens if it is already finished.
    case withdrawn(IntentID, at: Instant)
    /// The server answered the request with this id.
    indirect case reply(RequestID, Reply, at: Instant)
    /// A scheduled deadline passed; `now` is the current time.
    case tick(Instant)
    /// The app launched and read its vault: the credentials, and the revocations a logout still
    /// owes the server (``OwedRevocation``).
    case launched(StoredCredentials, owed: [OwedRevocation] = [], at: Instant)

    /// When the event happened (inlinable: a reducer reads it on every event).
    @inlinable
    public var instant: Instant {
        switch self {
        case .intent(_, _, let at), .withdrawn(_, let at), .reply(_, _, let at), .launched(_, _, let at): at
        case .tick(let now): now
        }
    }

    /// `<time> intent #1 <intent>`, `<time> reply r1 <reply>`, `<time> withdrawn #1`, `<time> tick`
    /// or `<time> launched <stored>`: when, what, and the payload as it prints itself. No password,
    /// code or token appears, only its kind; a reply's server message is left out.
    public var description: String {
        switch self {
        case .intent(let intent, let id, let at): "\(at) intent \(id) \(intent)"
        case .withdrawn(let id, let at): "\(at) withdrawn \(id)"
        case .reply(let id, let reply, let at): "\(at) reply \(id) \(reply)"
        case .tick(let now): "\(now) tick"
        case .launched(let stored, let owed, let at): "\(at) launched \(stored)\(owed.isEmpty ? "" : ", owing \(owed.count)")"
        }
    }
}
