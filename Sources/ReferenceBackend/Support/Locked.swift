import Foundation

/// A value guarded by a lock, so it can be shared between connection threads.
///
/// `Mutex` from `Synchronization` would do the same job, but it needs macOS 15 while the
/// package supports macOS 13; an `NSLock` works everywhere the package builds.
final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only ever read or written while `lock` is held, inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the guarded value.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
