import AuthCore

/// Where the runner reads the time and sets its wake-ups, so tests can put a ``ManualClock`` in
/// place of the system's and never wait for a timer.
public protocol RuntimeClock: Sendable {
    /// The current time.
    var now: Instant { get }

    /// Runs `action` once, as soon as `deadline` has passed (at once if it already has), unless
    /// the returned alarm is cancelled first.
    func wake(at deadline: Instant, _ action: @escaping @Sendable () async -> Void) -> any ClockAlarm
}

/// A pending wake-up set with ``RuntimeClock/wake(at:_:)``.
public protocol ClockAlarm: Sendable {
    /// Drops the wake-up; its action will not start after this returns. Cancelling an alarm that
    /// already fired does nothing.
    func cancel()
}
