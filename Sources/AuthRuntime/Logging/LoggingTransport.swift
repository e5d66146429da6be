/// A transport that records every exchange of another, redacted, to a logger.
public struct LoggingTransport: HTTPTransport {
    /// The transport doing the work.
    public let base: any HTTPTransport
    /// Where entries go.
    public let logger: any HTTPLogger

    /// Logs `base`'s exchanges to `logger`.
    public init(_ base: any HTTPTransport, logger: any HTTPLogger) {
        self.base = base
        self.logger = logger
    }

    /// Sends through `base` and records the exchange.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let start = ContinuousClock.now
        do {
            let response = try await base.send(request)
            logger.record(HTTPLogEntry(request: request, response: .success(response), duration: .now - start))
            return response
        } catch {
            logger.record(HTTPLogEntry(request: request, response: .failure(error), duration: .now - start))
            throw error
        }
    }

    /// Starts through `base` (so a transport that starts requests without a task still does)
    /// and records the exchange when it ends.
    public func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) async -> Void
    ) -> TransportHandle {
        let start = ContinuousClock.now
        let logger = logger
        return base.start(request) { answer in
            logger.record(HTTPLogEntry(request: request, response: answer, duration: .now - start))
            await completion(answer)
        }
    }
}
