#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock: the one lock of the client modules and the `authflow` command, for the
/// few places where state is shared between threads outside any actor (URLSession delegates,
/// clock alarms, the explorer's memos, parallel explorations, test recorders).
///
/// `Locked(())` guards state kept beside it: the fields of a class that several methods share.
///
/// `Mutex` from `Synchronization` would do the same job, but it needs macOS 15 / iOS 18, later
/// than the package's platforms; a pthread mutex works everywhere the package builds and needs no
/// Foundation (`AuthVerification` imports none). `withLock` is inlinable, so the verification
/// engine's inlinable code can call it and an optimized build inlines it.
public final class Locked<Value>: @unchecked Sendable {
    // Safe: `value` is only read or written while `mutex` is held, inside `withLock`; so no access
    // can overlap another, and the runtime's check of that (`@exclusivity(unchecked)`) is left out.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline @exclusivity(unchecked) var value: Value

    /// A lock around `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value, holding the lock until it returns or throws.
    @inlinable @discardableResult
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
