import AuthCore
import Foundation

/// The wall clock: `now` is the system time, and a wake-up sleeps in a task until the system time
/// has reached its deadline (it sleeps again if it woke early, so an action never sees a `now`
/// before its deadline).
public struct SystemClock: RuntimeClock {
    /// The system clock.
    public init() {}

    /// The system time.
    public var now: Instant { Instant(Date()) }

    /// Sleeps in a task until `deadline`, then runs `action`.
    public func wake(at deadline: Instant, _ action: @escaping @Sendable () async -> Void) -> any ClockAlarm {
        let task = Task {
            while true {
                let remaining = (deadline - now).milliseconds
                if remaining <= 0 { break }
                do {
                    try await Task.sleep(for: .milliseconds(remaining))
                } catch {
                    return  // Cancelled.
                }
            }
            guard !Task.isCancelled else { return }
            await action()
        }
        return TaskAlarm(task: task)
    }
}

/// An alarm that is a sleeping task.
private struct TaskAlarm: ClockAlarm {
    let task: Task<Void, Never>
    func cancel() { task.cancel() }
}
