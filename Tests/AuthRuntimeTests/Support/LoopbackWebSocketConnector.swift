import AuthRuntime
import AuthSupport
import AuthTestSupport
import Foundation

/// A WebSocket client over a plain TCP connection to the reference server on 127.0.0.1: the real
/// handshake and frames, where this platform's `URLSessionRealtimeConnector` cannot open
/// WebSockets. Enough for the reference server: text frames, close, no fragmentation.
final class LoopbackWebSocketConnector: RealtimeConnector {
    private let opened = Locked(0)

    /// How many handshakes the server accepted (101).
    var acceptedHandshakes: Int { opened.withLock { $0 } }

    func connect(to url: URL) async throws(RealtimeError) -> any RealtimeChannel {
        guard let port = url.port, let connection = RawConnection(port: UInt16(port), timeout: 60) else { throw .network }
        let target = url.path + (url.query.map { "?" + $0 } ?? "")
        let head = await Self.blocking { connection.openWebSocket(target) }
        guard let status = head.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { throw .network }
        guard status == 101 else { throw .refused(status: status) }
        opened.withLock { $0 += 1 }
        return LoopbackWebSocketChannel(connection)
    }

    /// `work`, which blocks on a socket, off the cooperative pool.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

/// An open WebSocket over a ``RawConnection``.
final class LoopbackWebSocketChannel: RealtimeChannel {
    private let connection: RawConnection
    private let closed = Locked(false)

    init(_ connection: RawConnection) {
        self.connection = connection
    }

    func receive() async -> RealtimeMessage? {
        guard !closed.withLock({ $0 }) else { return nil }
        let connection = connection
        let frame = await LoopbackWebSocketConnector.blocking { connection.readFrame() }
        switch frame?.opcode {
        case 0x1?: return .text(String(decoding: frame?.payload ?? [], as: UTF8.self))
        case 0x2?: return .data(Data(frame?.payload ?? []))
        default:
            closed.withLock { $0 = true }
            connection.shutdown()
            return nil  // A close frame, or the connection ended.
        }
    }

    func send(_ message: RealtimeMessage) async throws(RealtimeError) {
        guard !closed.withLock({ $0 }) else { throw .notConnected }
        switch message {
        case .text(let text): connection.sendFrame(opcode: 0x1, Array(text.utf8))
        case .data(let data): connection.sendFrame(opcode: 0x2, Array(data))
        }
    }

    func close() {
        closed.withLock { $0 = true }
        connection.sendFrame(opcode: 0x8, [0x03, 0xE8])
        connection.shutdown()
    }
}
