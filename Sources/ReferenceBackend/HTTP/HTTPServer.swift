import Foundation

/// A blocking HTTP/1.1 server on 127.0.0.1: one accept thread, one thread per connection.
///
/// `stop()` closes the listening socket, shuts down every open connection (which wakes threads
/// blocked in `recv`) and waits for every thread to finish, so no descriptor or thread outlives it.
final class HTTPServer: Sendable {
    /// Limits and timeouts the connections obey.
    struct Limits: Sendable {
        var maxHeaderBytes: Int
        var maxBodyBytes: Int
        var readTimeout: TimeInterval
        var backlog: Int32
    }

    /// What a handler learns about the connection a request arrived on.
    struct Connection: Sendable {
        /// The peer's IP address, e.g. `127.0.0.1`.
        var remoteAddress: String
        /// Raised when the server stops; handlers wait on it instead of sleeping.
        var stopSignal: StopSignal
    }

    /// Answers one request.
    typealias Handler = @Sendable (ServerRequest, Connection) -> ServerReply

    private struct State {
        var listener: Int32?
        var connections: Set<Int32> = []
        var stopSignal = StopSignal()
        var threads = DispatchGroup()
    }

    private let limits: Limits
    private let handler: Handler
    private let state = Locked(State())

    init(limits: Limits, handler: @escaping Handler) {
        self.limits = limits
        self.handler = handler
    }

    /// Binds and starts accepting; returns the bound port.
    func start(port: UInt16) throws(ReferenceServerError) -> UInt16 {
        let (listener, bound, signal, group) = try state.withLock { state throws(ReferenceServerError) in
            guard state.listener == nil else { throw .alreadyRunning }
            let (descriptor, bound) = try Socket.listen(port: port, backlog: limits.backlog)
            state.listener = descriptor
            state.stopSignal = StopSignal()
            state.threads = DispatchGroup()
            state.threads.enter()
            return (descriptor, bound, state.stopSignal, state.threads)
        }
        let thread = Thread { [self] in
            acceptLoop(listener, signal: signal)
            group.leave()
        }
        thread.name = "ReferenceBackend.accept"
        thread.start()
        return bound
    }

    /// Stops accepting, closes every connection and waits for all threads to end.
    func stop() {
        let threads = state.withLock { state -> DispatchGroup? in
            guard state.listener != nil else { return nil }
            state.listener = nil
            state.stopSignal.raise()
            for descriptor in state.connections {
                Socket.shutdownBoth(descriptor)
            }
            return state.threads
        }
        threads?.wait()
    }

    private func acceptLoop(_ listener: Int32, signal: StopSignal) {
        defer { Socket.close(listener) }
        while !signal.isRaised {
            guard Socket.waitReadable(listener, milliseconds: 20), !signal.isRaised else { continue }
            guard let (descriptor, remote) = Socket.accept(listener) else {
                signal.wait(0.01)
                continue
            }
            Socket.configureConnection(descriptor, timeout: limits.readTimeout)
            let group = state.withLock { state -> DispatchGroup? in
                guard !signal.isRaised else { return nil }
                state.connections.insert(descriptor)
                state.threads.enter()
                return state.threads
            }
            guard let group else {
                Socket.close(descriptor)
                return
            }
            let thread = Thread { [self] in
                serve(descriptor, connection: Connection(remoteAddress: remote, stopSignal: signal))
                state.withLock { state in
                    state.connections.remove(descriptor)
                    Socket.close(descriptor)
                }
                group.leave()
            }
            thread.stackSize = 1 << 20
            thread.name = "ReferenceBackend.connection"
            thread.start()
        }
    }

    /// Serves requests on one connection until the client closes, a timeout, an error or `stop()`.
    private func serve(_ descriptor: Int32, connection: Connection) {
        let parser = HTTPParser(maxHeaderBytes: limits.maxHeaderBytes, maxBodyBytes: limits.maxBodyBytes)
        var buffer: [UInt8] = []
        while !connection.stopSignal.isRaised {
            let head: HTTPParser.Head
            do {
                guard let parsed = try readHead(descriptor, parser: parser, buffer: &buffer) else { return }
                head = parsed
            } catch {
                refuse(descriptor, status: error.status, message: error.message)
                return
            }
            if head.headers["Expect"]?.lowercased() == "100-continue" && buffer.count < head.contentLength {
                guard Socket.write(descriptor, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            while buffer.count < head.contentLength {
                guard Socket.read(descriptor, into: &buffer) != nil else { return }
            }
            let body = Data(buffer[0..<head.contentLength])
            buffer.removeFirst(head.contentLength)
            let (path, query) = ServerRequest.split(target: head.target)
            let request = ServerRequest(
                method: head.method, path: path, query: query,
                headers: head.headers, body: body, keepAlive: head.keepAlive
            )
            let reply = handler(request, connection)
            if case let .respond(response) = reply, let session = response.upgrade {
                guard Socket.write(descriptor, response.serialized(keepAlive: true)) else { return }
                session(WebSocket(descriptor: descriptor, leftover: buffer, maxPayload: limits.maxBodyBytes))
                return
            }
            guard deliver(reply, on: descriptor, keepAlive: head.keepAlive, signal: connection.stopSignal),
                head.keepAlive
            else { return }
        }
    }

    /// Reads until `buffer` starts with a complete head, consumes it and returns it; `nil` when the peer left.
    private func readHead(_ descriptor: Int32, parser: HTTPParser, buffer: inout [UInt8]) throws(HTTPParser.Refusal) -> HTTPParser.Head? {
        while true {
            switch try parser.parseHead(buffer) {
            case let .head(head, length):
                buffer.removeFirst(length)
                return head
            case .needMoreBytes:
                guard Socket.read(descriptor, into: &buffer) != nil else { return nil }
            }
        }
    }

    /// Sends `reply`; returns whether the connection can carry another request.
    private func deliver(_ reply: ServerReply, on descriptor: Int32, keepAlive: Bool, signal: StopSignal) -> Bool {
        switch reply {
        case let .respond(response):
            return Socket.write(descriptor, response.serialized(keepAlive: keepAlive))
        case .drop:
            return false
        case let .truncate(response):
            let bytes = response.serialized(keepAlive: false)
            _ = Socket.write(descriptor, Array(bytes.dropLast(max(1, response.body.count / 2))))
            return false
        case let .trickle(response, interval):
            let bytes = response.serialized(keepAlive: false)
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 8, bytes.count)
                guard Socket.write(descriptor, Array(bytes[offset..<end])) else { return false }
                offset = end
                if offset < bytes.count && !signal.wait(interval) { return false }
            }
            return false
        }
    }

    /// Answers a request the parser refused, then closes after draining what the client still sends.
    private func refuse(_ descriptor: Int32, status: Int, message: String) {
        let response = ServerResponse.json(status, ["error": .string(message)])
        _ = Socket.write(descriptor, response.serialized(keepAlive: false))
        Socket.drainAndFinish(descriptor, limit: limits.maxBodyBytes * 2)
    }
}
