import Foundation

/// A realtime connector that records every handshake of another, redacted (the `?token=` is
/// masked), to a logger.
public struct LoggingRealtimeConnector: RealtimeConnector {
    /// The connector doing the work.
    public let base: any RealtimeConnector
    /// Where entries go.
    public let logger: any HTTPLogger

    /// Logs `base`'s handshakes to `logger`.
    public init(_ base: any RealtimeConnector, logger: any HTTPLogger) {
        self.base = base
        self.logger = logger
    }

    /// Connects through `base` and records the handshake.
    public func connect(to url: URL) async throws(RealtimeError) -> any RealtimeChannel {
        let start = ContinuousClock.now
        let request = HTTPRequest(method: "GET", url: url)
        do {
            let channel = try await base.connect(to: url)
            logger.record(HTTPLogEntry(request: request, answer: .realtimeOpened, duration: .now - start))
            return channel
        } catch {
            logger.record(HTTPLogEntry(request: request, answer: .realtimeFailed(error), duration: .now - start))
            throw error
        }
    }
}
