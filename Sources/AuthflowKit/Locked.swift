import Foundation

/// A value behind a lock.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
