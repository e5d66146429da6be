/// Where redacted HTTP exchanges go. Logging is opt-in: pass a logger to the runner (or wrap a
/// transport in ``LoggingTransport``) in debug builds only, as VynqTalk's API document asks.
public protocol HTTPLogger: Sendable {
    /// Records one redacted exchange.
    func record(_ entry: HTTPLogEntry)
}
