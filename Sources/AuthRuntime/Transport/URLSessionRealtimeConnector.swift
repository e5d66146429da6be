import AuthSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RealtimeConnector`` over `URLSessionWebSocketTask`.
///
/// On Apple platforms this is the system's WebSocket client. On Linux, FoundationNetworking
/// implements WebSocket tasks with libcurl, and only a libcurl built with WebSocket support
/// (`ws`/`wss` among `curl --version`'s protocols: curl 8.11 and later by default, earlier only
/// when configured with `--enable-websockets`) can open them; elsewhere every attempt fails with
/// ``RealtimeError/unsupported``, which the runner reports as an issue.
public final class URLSessionRealtimeConnector: RealtimeConnector {
    /// Seconds the handshake may take (whole seconds on Linux, as for ``URLSessionTransport``).
    public let timeout: TimeInterval

    /// A connector whose handshakes time out after `timeout` seconds.
    public init(timeout: TimeInterval = 30) {
        self.timeout = URLSessionTransport.effective(timeout)
    }

    /// Opens `url` in a session of its own and waits for the handshake.
    public func connect(to url: URL) async throws(RealtimeError) -> any RealtimeChannel {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = self.timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let delegate = WebSocketDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.webSocketTask(with: URLRequest(url: url, timeoutInterval: timeout))
        let cancellation = TaskCancellation()
        let opened = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, RealtimeError>, Never>) in
                delegate.awaitOpening(continuation)
                cancellation.started(task)
                task.resume()
            }
        } onCancel: {
            cancellation.cancel()
        }
        if case .failure(let error) = opened {
            session.invalidateAndCancel()
            throw error
        }
        return WebSocketChannel(task: task, session: session)
    }
}

/// Reports the opening, or the failure to open, of one WebSocket task.
private final class WebSocketDelegate: NSObject, URLSessionWebSocketDelegate, Sendable {
    private let opening = Locked<CheckedContinuation<Result<Void, RealtimeError>, Never>?>(nil)

    func awaitOpening(_ continuation: CheckedContinuation<Result<Void, RealtimeError>, Never>) {
        opening.withLock { $0 = continuation }
    }

    private func finishOpening(_ result: Result<Void, RealtimeError>) {
        opening.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(returning: result)
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        finishOpening(.success(()))
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
        didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
    ) {
        finishOpening(.failure(.network))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let status = (task.response as? HTTPURLResponse)?.statusCode, status != 101 {
            finishOpening(.failure(.refused(status: status)))
            return
        }
        guard let error else {
            finishOpening(.failure(.network))
            return
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorUnsupportedURL {
            finishOpening(.failure(.unsupported))
            return
        }
        switch URLSessionTransport.transportError(error) {
        case .timeout: finishOpening(.failure(.timeout))
        case .cancelled: finishOpening(.failure(.cancelled))
        case .network: finishOpening(.failure(.network))
        }
    }
}

/// An open WebSocket task.
private final class WebSocketChannel: RealtimeChannel {
    private let task: URLSessionWebSocketTask
    private let session: URLSession

    init(task: URLSessionWebSocketTask, session: URLSession) {
        self.task = task
        self.session = session
    }

    func receive() async -> RealtimeMessage? {
        do {
            switch try await task.receive() {
            case .string(let text): return .text(text)
            case .data(let data): return .data(data)
            @unknown default: return nil
            }
        } catch {
            session.invalidateAndCancel()
            return nil
        }
    }

    func send(_ message: RealtimeMessage) async throws(RealtimeError) {
        let frame: URLSessionWebSocketTask.Message =
            switch message {
            case .text(let text): .string(text)
            case .data(let data): .data(data)
            }
        do {
            try await task.send(frame)
        } catch {
            throw .network
        }
    }

    func close() {
        task.cancel(with: .normalClosure, reason: nil)
        session.finishTasksAndInvalidate()
    }
}
