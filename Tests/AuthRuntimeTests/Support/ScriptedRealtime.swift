@testable import AuthRuntime
import AuthSupport
import Foundation

/// A realtime connector whose handshakes a test scripts; it keeps every channel it opened so the
/// test can drop them (as a server going away would) and see what was closed.
final class ScriptedRealtime: RealtimeConnector, Sendable {
    private struct Storage {
        var urls: [URL] = []
        var channels: [ScriptedChannel] = []
    }

    private let handshake: @Sendable (URL) async -> Result<Void, RealtimeError>
    private let storage = Locked(Storage())

    /// A connector answering each handshake with `handshake(url)`.
    init(_ handshake: @escaping @Sendable (URL) async -> Result<Void, RealtimeError> = { _ in .success(()) }) {
        self.handshake = handshake
    }

    func connect(to url: URL) async throws(RealtimeError) -> any RealtimeChannel {
        storage.withLock { $0.urls.append(url) }
        try await handshake(url).get()
        let channel = ScriptedChannel()
        storage.withLock { $0.channels.append(channel) }
        return channel
    }

    /// Every URL a handshake was attempted with.
    var urls: [URL] { storage.withLock { $0.urls } }
    /// Every channel opened, oldest first.
    var channels: [ScriptedChannel] { storage.withLock { $0.channels } }
}

/// A channel fed by the test.
final class ScriptedChannel: RealtimeChannel, Sendable {
    private let stream: AsyncStream<RealtimeMessage>
    private let continuation: AsyncStream<RealtimeMessage>.Continuation
    private let iterator: Locked<AsyncStream<RealtimeMessage>.Iterator?>
    private let closedByClient = Locked(false)
    private let sent = Locked<[RealtimeMessage]>([])

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: RealtimeMessage.self)
        iterator = Locked(nil)
    }

    /// Delivers `message` from the "server".
    func deliver(_ message: RealtimeMessage) { continuation.yield(message) }
    /// The "server" closes the connection.
    func drop() { continuation.finish() }
    /// Whether the runner closed it.
    var isClosedByClient: Bool { closedByClient.withLock { $0 } }
    /// What the runner sent.
    var sentMessages: [RealtimeMessage] { sent.withLock { $0 } }

    func receive() async -> RealtimeMessage? {
        // One reader only (the runner's watcher task), so taking the iterator out is safe.
        var iterator = self.iterator.withLock { $0 } ?? stream.makeAsyncIterator()
        let message = await iterator.next()
        self.iterator.withLock { $0 = iterator }
        return message
    }

    func send(_ message: RealtimeMessage) async throws(RealtimeError) {
        sent.withLock { $0.append(message) }
    }

    func close() {
        closedByClient.withLock { $0 = true }
        continuation.finish()
    }
}
