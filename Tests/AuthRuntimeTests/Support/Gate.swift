import AuthSupport
@testable import AuthRuntime

/// A latch: `wait()` suspends until `open()`; a cancelled waiter returns `false` at once.
final class Gate: Sendable {
    private struct Storage {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var next: UInt64 = 0
    }

    private let storage = Locked(Storage())

    func open() {
        let waiters = storage.withLock { storage -> [CheckedContinuation<Bool, Never>] in
            storage.isOpen = true
            defer { storage.waiters.removeAll() }
            return Array(storage.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// `true` once the gate opened; `false` if the waiting task was cancelled first.
    func wait() async -> Bool {
        let id = storage.withLock { storage -> UInt64 in
            storage.next += 1
            return storage.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let result = storage.withLock { storage -> Bool? in
                    if storage.isOpen { return true }
                    if Task.isCancelled { return false }
                    storage.waiters[id] = continuation
                    return nil
                }
                if let result { continuation.resume(returning: result) }
            }
        } onCancel: {
            storage.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
