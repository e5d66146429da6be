import AuthCore

/// What the runner keeps for each intent the reducer has not finished yet: the caller waiting
/// for it, and for a protected call the app's request and the raw answers to the requests sent
/// for it. The reducer decides everything (which request answers the call, when it is finished);
/// this is only where the runner finds the caller and the bytes again.
struct IntentLedger<State: Sendable> {
    /// What an intent's caller receives: the completion and the state right after the step that
    /// finished it, and for a protected call the raw answer it names.
    struct Finished: Sendable {
        let completion: Completion
        let state: State
        let response: Result<HTTPResponse, TransportError>?
    }

    private struct Entry {
        var caller: CheckedContinuation<Finished, Never>?
        var call: HTTPRequest?
        var answers: [RequestID: Result<HTTPResponse, TransportError>] = [:]
    }

    private var entries: [IntentID: Entry] = [:]
    private var counter: UInt64 = 0
    /// Issued, but not yet handed to the reducer.
    private var issued: Set<IntentID> = []
    /// Withdrawn before they were handed to the reducer.
    private var withdrawnEarly: Set<IntentID> = []

    /// A new id.
    mutating func issue() -> IntentID {
        counter += 1
        let id = IntentID(counter)
        issued.insert(id)
        return id
    }

    /// Opens `id` for `caller` (none for an intent nobody awaits); `call` for a protected call.
    /// False when it was withdrawn before it could be opened: the caller is then not kept.
    mutating func open(_ id: IntentID, caller: CheckedContinuation<Finished, Never>?, call: HTTPRequest?) -> Bool {
        issued.remove(id)
        if withdrawnEarly.remove(id) != nil { return false }
        entries[id] = Entry(caller: caller, call: call)
        return true
    }

    /// Whether the reducer still owes `id` its completion.
    func isOpen(_ id: IntentID) -> Bool { entries[id] != nil }

    /// Remembers that `id` was withdrawn before it was opened; true when that is the case.
    mutating func withdrawBeforeOpening(_ id: IntentID) -> Bool {
        guard issued.contains(id) else { return false }
        withdrawnEarly.insert(id)
        return true
    }

    /// The app's request for protected call `id`.
    func request(ofCall id: IntentID) -> HTTPRequest? { entries[id]?.call }

    /// Keeps the raw answer to `request`, sent for protected call `id`.
    mutating func record(_ answer: Result<HTTPResponse, TransportError>, to request: RequestID, forCall id: IntentID) {
        entries[id]?.answers[request] = answer
    }

    /// Finishes `id`: its caller, if one waits, receives `completion` and `state`.
    mutating func finish(_ id: IntentID, _ completion: Completion, state: State) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        var response: Result<HTTPResponse, TransportError>?
        if case .answered(let request) = completion { response = entry.answers[request] }
        entry.caller?.resume(returning: Finished(completion: completion, state: state, response: response))
    }

    /// Finishes every open intent with `completion` (the runner stopped).
    mutating func finishAll(_ completion: Completion, state: State) {
        for id in Array(entries.keys) { finish(id, completion, state: state) }
    }
}
