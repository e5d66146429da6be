import AuthSupport
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
        let urlRequest = Self.urlRequest(request, timeout: timeout)
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

    /// Hands `request` to `URLSession` at once, with no task of its own: `completion` runs in a
    /// task started when the answer arrives.
    public func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, TransportError>) async -> Void
    ) -> TransportHandle {
        let built = Self.urlRequest(request, timeout: timeout)
        let task = session.dataTask(with: built) { data, response, error in
            let result = Self.result(data: data, response: response, error: error)
            Task { await completion(result) }
        }
        task.resume()
        return TransportHandle { task.cancel() }
    }

    /// `request` as a `URLRequest`. The header fields are set at once, as a dictionary: fields
    /// of the same name (case-insensitively) are joined with a comma under the first one's
    /// spelling, as `addValue(_:forHTTPHeaderField:)` would join them, one field at a time.
    static func urlRequest(_ request: HTTPRequest, timeout: TimeInterval) -> URLRequest {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        var fields: [(name: String, value: String)] = []
        for field in request.headers {
            if let index = fields.firstIndex(where: { $0.name.caseInsensitiveCompare(field.name) == .orderedSame }) {
                fields[index].value += "," + field.value
            } else {
                fields.append(field)
            }
        }
        if !fields.isEmpty {
            urlRequest.allHTTPHeaderFields = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    /// What a finished data task means.
    static func result(data: Data?, response: URLResponse?, error: (any Error)?) -> Result<HTTPResponse, TransportError> {
        if let error { return .failure(transportError(error)) }
        guard let http = response as? HTTPURLResponse else { return .failure(.network) }
        return .success(HTTPResponse(status: http.statusCode, headers: headers(of: http), body: data ?? Data()))
    }

    /// The answer's header fields, sorted by name without regard to ASCII case (header names are
    /// ASCII tokens, RFC 9110 §5.1), names that differ only in case in their own order: the same
    /// answer always gives the same ``HTTPHeaders``, whatever order Foundation keeps them in.
    static func headers(of http: HTTPURLResponse) -> HTTPHeaders {
        let all = http.allHeaderFields
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(all.count)
        for (name, value) in all {
            fields.append((name: name as? String ?? String(describing: name), value: value as? String ?? String(describing: value)))
        }
        fields.sort { precedes($0.name, $1.name) }
        return HTTPHeaders(fields: fields)
    }

    /// Whether header name `a` sorts before `b`: byte by byte with ASCII letters folded to lower
    /// case, and by their own bytes when they are equal that way. Allocates nothing.
    static func precedes(_ a: String, _ b: String) -> Bool {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return a.utf8.lexicographicallyPrecedes(b.utf8)
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?):
                let (x, y) = (x | (x &- 65 < 26 ? 0x20 : 0), y | (y &- 65 < 26 ? 0x20 : 0))
                if x != y { return x < y }
            }
        }
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
