/// One of the app's protected calls that has not been answered to its caller yet.
public struct PendingCall: Hashable, Sendable, CustomStringConvertible {
    /// Where the call is.
    public enum Stage: Hashable, Sendable {
        /// Sent as this request, with this access token.
        case sent(RequestID, with: AccessToken)
        /// Waiting for the one refresh in flight (or due) to give it a usable token.
        case waitingForToken
    }

    /// The caller's id.
    public var id: IntentID
    /// Where the call is.
    public var stage: Stage
    /// True once the call was replayed after a 401: a second 401 goes to the caller, never loops.
    public var replayed: Bool

    /// Creates a pending call.
    public init(id: IntentID, stage: Stage, replayed: Bool) {
        self.id = id
        self.stage = stage
        self.replayed = replayed
    }

    /// A call waiting for a usable token, not replayed yet.
    public static func waiting(_ id: IntentID) -> PendingCall { PendingCall(id: id, stage: .waitingForToken, replayed: false) }

    /// The request this call was sent as, if it is on its way.
    public var request: RequestID? {
        if case .sent(let request, _) = stage { return request }
        return nil
    }

    /// `#3(sent r5)`, `#3(sent r5, replayed)` or `#3(waiting)`: the call, the request it went out
    /// as and whether it was replayed. The access token it was sent with is left out.
    public var description: String {
        switch stage {
        case .sent(let request, _): "\(id)(sent \(request)\(replayed ? ", replayed" : ""))"
        case .waitingForToken: "\(id)(waiting\(replayed ? ", replayed" : ""))"
        }
    }
}

extension Credentials {
    /// The bearer for protected requests made with these credentials.
    public var bearer: Bearer { Bearer(token: accessToken, userID: user.id) }
}
