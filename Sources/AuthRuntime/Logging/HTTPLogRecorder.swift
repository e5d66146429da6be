import AuthSupport
/// Keeps redacted entries in memory, for tests and debug screens.
public final class HTTPLogRecorder: HTTPLogger {
    private let storage = Locked<[HTTPLogEntry]>([])

    /// An empty recorder.
    public init() {}

    /// Appends `entry`.
    public func record(_ entry: HTTPLogEntry) {
        storage.withLock { $0.append(entry) }
    }

    /// Every entry so far, oldest first.
    public var entries: [HTTPLogEntry] { storage.withLock { $0 } }

    /// Every entry as its log line.
    public var lines: [String] { entries.map(\.description) }
}
