import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` over `URLSession` (FoundationNetworking on Linux).
///
/// The session is ephemeral and keeps no cookies and no cache: answers carry tokens, and nothing
/// of them should reach the disk. A request gets no answer after `timeout` seconds without data
/// (default 30); a timeout is ``TransportError/timeout``, a cancelled task
/// ``TransportError/cancelled``, anything else without an HTTP answer ``TransportError/network``.
///
/// On Linux, FoundationNetworking honours whole seconds only (a timeout under one second times
/// out at once), so the timeout is rounded up to whole seconds there.
public final class URLSessionTransport: HTTPTransport {
    /// Seconds without data before a request times out, as the platform will apply it.
    public let timeout: TimeInterval
    private let session: URLSession

    /// A transport with its own ephemeral session; `timeout` in seconds.
    public init(timeout: TimeInterval = 30) {
        self.timeout = Self.effective(timeout)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = self.timeout
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// `timeout` as the platform applies it.
    static func effective(_ timeout: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
        return max(1, timeout.rounded(.up))
        #else
        return timeout
        #endif
    }

    /// Sends `request` and waits for the whole answer.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body
        let cancellation = TaskCancellation()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    continuation.resume(returning: Self.result(data: data, response: response, error: error))
                }
                cancellation.started(task)
                task.resume()
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try result.get()
    }

    /// What a finished data task means.
    static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<HTTPResponse, TransportError> {
        if let error { return .failure(transportError(error)) }
        guard let http = response as? HTTPURLResponse else { return .failure(.network) }
        // Sorted by lowercased name, each name lowercased once (not at every comparison).
        let fields = http.allHeaderFields
            .map { (key: String(describing: $0.key).lowercased(), field: (String(describing: $0.key), String(describing: $0.value))) }
            .sorted { $0.key < $1.key }
            .map(\.field)
        return .success(HTTPResponse(status: http.statusCode, headers: HTTPHeaders(fields), body: data ?? Data()))
    }

    /// A URLSession error as a transport error. The error itself is never kept: its user info
    /// holds the failing URL, query (and so a token) included.
    static func transportError(_ error: any Error) -> TransportError {
        let error = error as NSError
        guard error.domain == NSURLErrorDomain else { return .network }
        switch error.code {
        case NSURLErrorTimedOut: return .timeout
        case NSURLErrorCancelled: return .cancelled
        default: return .network
        }
    }
}

/// Cancels a URLSession task when the Swift task waiting for it is cancelled, whichever of the
/// two comes first.
final class TaskCancellation: Sendable {
    private enum Stage {
        case waiting
        case running(URLSessionTask)
        case cancelled
    }

    private let stage = Locked<Stage>(.waiting)

    /// The task started; cancels it at once if cancellation came first.
    func started(_ task: URLSessionTask) {
        let cancelled = stage.withLock { stage -> Bool in
            if case .cancelled = stage { return true }
            stage = .running(task)
            return false
        }
        if cancelled { task.cancel() }
    }

    /// Cancels the running task, or the one about to start.
    func cancel() {
        let task = stage.withLock { stage -> URLSessionTask? in
            defer { stage = .cancelled }
            if case .running(let task) = stage { return task }
            return nil
        }
        task?.cancel()
    }
}
