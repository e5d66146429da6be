import Foundation

/// A one-way flag that waiting threads can sleep on and that `raise()` wakes at once.
///
/// Fault latency and slow trickles wait on it, so `stop()` never waits for an injected delay.
final class StopSignal: @unchecked Sendable {
    // Safe: `raised` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var raised = false

    /// Whether `raise()` has been called.
    var isRaised: Bool {
        condition.lock()
        defer { condition.unlock() }
        return raised
    }

    /// Wakes every waiter now and makes every later wait return at once.
    func raise() {
        condition.lock()
        raised = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps for `interval` or until raised; returns `true` when the full interval passed.
    @discardableResult
    func wait(_ interval: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(interval)
        condition.lock()
        defer { condition.unlock() }
        while !raised {
            if !condition.wait(until: deadline) {
                return !raised
            }
        }
        return false
    }
}
