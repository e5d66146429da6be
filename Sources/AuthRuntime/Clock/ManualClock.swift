import AuthCore
import AuthSupport

/// A clock that moves only when a test moves it: `advance(by:)` runs every wake-up that falls due,
/// in deadline order, with `now` set to each deadline in turn, and returns once their actions have
/// finished. No test ever sleeps to wait for a timer.
///
/// Wake-ups set for a deadline that has already passed run on the next `advance` (`advance(by:
/// .zero)` included), never behind the test's back. Advance from one task at a time.
public final class ManualClock: RuntimeClock, Sendable {
    private struct Alarm {
        var id: UInt64
        var deadline: Instant
        var action: @Sendable () async -> Void
    }

    private struct Storage {
        var now: Instant
        var nextID: UInt64 = 0
        var alarms: [Alarm] = []
    }

    private let storage: Locked<Storage>

    /// A clock showing `now` (by default 2023-11-14T22:13:20Z).
    public init(now: Instant = .seconds(1_700_000_000)) {
        storage = Locked(Storage(now: now))
    }

    /// The time the clock shows.
    public var now: Instant { storage.withLock { $0.now } }

    /// The deadlines of the wake-ups not yet run or cancelled, earliest first.
    public var pendingDeadlines: [Instant] {
        storage.withLock { $0.alarms.map(\.deadline).sorted() }
    }

    /// Registers `action` for `deadline`.
    public func wake(at deadline: Instant, _ action: @escaping @Sendable () async -> Void) -> any ClockAlarm {
        let id = storage.withLock { storage -> UInt64 in
            storage.nextID += 1
            storage.alarms.append(Alarm(id: storage.nextID, deadline: deadline, action: action))
            return storage.nextID
        }
        return ManualAlarm(id: id, clock: self)
    }

    /// Moves the clock forward by `interval`, running every wake-up that falls due on the way.
    public func advance(by interval: Interval) async {
        await advance(to: now + interval)
    }

    /// Moves the clock forward to `target` (never backwards), running every wake-up due by then,
    /// earliest first (ties in the order they were set), including those their actions set.
    public func advance(to target: Instant) async {
        while let alarm = nextDue(by: target) {
            await alarm.action()
        }
        storage.withLock { $0.now = max($0.now, target) }
    }

    /// Removes and returns the earliest wake-up due by `target`, moving `now` to its deadline.
    private func nextDue(by target: Instant) -> Alarm? {
        storage.withLock { storage in
            let due = storage.alarms.indices.filter { storage.alarms[$0].deadline <= target }
            guard
                let first = due.min(by: {
                    (storage.alarms[$0].deadline, storage.alarms[$0].id) < (storage.alarms[$1].deadline, storage.alarms[$1].id)
                })
            else {
                return nil
            }
            let alarm = storage.alarms.remove(at: first)
            storage.now = max(storage.now, alarm.deadline)
            return alarm
        }
    }

    fileprivate func cancel(_ id: UInt64) {
        storage.withLock { $0.alarms.removeAll { $0.id == id } }
    }
}

private struct ManualAlarm: ClockAlarm {
    let id: UInt64
    let clock: ManualClock
    func cancel() { clock.cancel(id) }
}
