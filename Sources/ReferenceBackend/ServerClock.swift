import Foundation

/// The server's notion of now: the configured clock plus whatever tests advanced it by.
final class ServerClock: Sendable {
    private let base: @Sendable () -> Date
    private let offset = Locked<TimeInterval>(0)

    init(_ base: @escaping @Sendable () -> Date) {
        self.base = base
    }

    /// The current time.
    var now: Date { base().addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock forward.
    func advance(by interval: TimeInterval) {
        offset.withLock { $0 += interval }
    }
}
