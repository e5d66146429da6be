import Foundation

/// A misbehaviour the server can be told to show on chosen requests.
///
/// Each case says whether the request's change is *committed* (the handler runs and its state
/// change sticks) before the fault shapes the answer.
public enum Fault: Sendable, Hashable {
    /// Waits this many seconds, then handles the request normally (committed).
    case latency(TimeInterval)
    /// Closes the connection without handling the request (not committed).
    case dropBeforeCommit
    /// Handles the request, then closes the connection without answering (committed: e.g. a
    /// refresh token rotated but the new pair never reached the client).
    case dropAfterCommit
    /// Answers this status (500, 503, …) in the backend's error envelope (not committed).
    case serverError(status: Int)
    /// Answers 429 with `Retry-After: seconds` in the backend's error envelope (not committed).
    case rateLimited(retryAfter: Int)
    /// Answers 200 with a `Content-Type: application/json` body that is not valid JSON (not committed).
    case malformedJSON
    /// Handles the request, then sends the head with the full `Content-Length` but only half of
    /// the body and closes (committed).
    case truncatedBody
    /// Answers 200 with an HTML page, like a captive portal or a proxy error page (not committed).
    case wrongContentType
    /// Handles the request, then sends the answer 8 bytes at a time with `interval` seconds
    /// between pieces (committed); pick an interval above the client's timeout to make it give up.
    case slowTrickle(interval: TimeInterval)
    /// Answers HTTP 200 with VynqTalk's `{"success":false,"data":null,"message":…}` (not committed).
    case successFalse(message: String)

}
