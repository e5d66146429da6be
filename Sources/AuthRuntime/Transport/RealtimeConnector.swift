import Foundation

/// Opens realtime connections (VynqTalk's `ws://…/ws?token=`). The runner opens one when the
/// reducer asks and reports its opening and its end as replies; tests put a scripted connector in
/// place of ``URLSessionRealtimeConnector``.
public protocol RealtimeConnector: Sendable {
    /// Opens a connection to `url` and returns once it is open (the handshake succeeded).
    func connect(to url: URL) async throws(RealtimeError) -> any RealtimeChannel
}

/// An open realtime connection.
public protocol RealtimeChannel: Sendable {
    /// The next message; `nil` once the connection has closed, for whatever reason.
    func receive() async -> RealtimeMessage?
    /// Sends `message`.
    func send(_ message: RealtimeMessage) async throws(RealtimeError)
    /// Closes the connection; `receive()` then returns `nil`.
    func close()
}

/// A message on a realtime connection. Its `description` shows only its kind and size.
public enum RealtimeMessage: Hashable, Sendable, CustomStringConvertible {
    /// A text frame.
    case text(String)
    /// A binary frame.
    case data(Data)

    /// `text(12 bytes)`.
    public var description: String {
        switch self {
        case .text(let text): "text(\(text.utf8.count) bytes)"
        case .data(let data): "data(\(data.count) bytes)"
        }
    }
}

/// Why a realtime connection did not open, or a message could not be sent.
public enum RealtimeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered the handshake with this HTTP status instead of switching protocols.
    case refused(status: Int)
    /// The server could not be reached, or the connection broke.
    case network
    /// The handshake did not finish in time.
    case timeout
    /// The attempt was cancelled.
    case cancelled
    /// This platform cannot open WebSockets (on Linux: a libcurl built without WebSocket support).
    case unsupported
    /// The connection is not open.
    case notConnected

    /// The case and status.
    public var description: String {
        switch self {
        case .refused(let status): "refused(\(status))"
        case .network: "network"
        case .timeout: "timeout"
        case .cancelled: "cancelled"
        case .unsupported: "unsupported"
        case .notConnected: "notConnected"
        }
    }
}
