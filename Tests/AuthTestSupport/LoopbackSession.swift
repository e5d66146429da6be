import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// An ephemeral session of its own for a test's requests to a server on loopback: no shared
    /// cookies, cache or connections, `timeout` per request (at least 10 s for a whole exchange),
    /// and room for many connections at once, as the concurrency tests open. Invalidate it when done.
    public static func loopback(timeout: TimeInterval = 10) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = max(timeout, 10)
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }
}
