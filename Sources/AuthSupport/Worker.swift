#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which of a parallel job's threads is running, so that state shared by the threads (a memo, a
/// table) can keep a part for each and the threads do not wait on one lock.
///
/// ``concurrentMap(_:threads:_:)`` numbers its threads 0, 1, 2…; any other thread is 0. Two
/// threads may share a slot (a nested job's, or past ``slots``): a slot is a place to look first,
/// never a promise of exclusive access, so whatever is kept per slot keeps its own lock.
public enum Worker {
    /// How many slots state is spread over: a thread's number is taken modulo this.
    public static let slots = 8

    @usableFromInline static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The running thread's slot, in `0..<slots`.
    @inlinable public static var slot: Int { Int(bitPattern: pthread_getspecific(key)) % slots }

    /// Runs `body` on the current thread as thread `number` of a job, then restores the number
    /// the thread had.
    static func run<Result>(as number: Int, _ body: () -> Result) -> Result {
        let before = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: number))
        defer { pthread_setspecific(key, before) }
        return body()
    }
}

/// One part of some state for each ``Worker`` slot: what a memo or a table that a job's threads
/// share keeps, so that each thread works in its own part behind its own lock.
public struct WorkerParts<Part: Sendable>: Sendable {
    @usableFromInline let parts: [Part]

    /// `make(slot)` for every slot.
    public init(_ make: (Int) -> Part) {
        parts = (0..<Worker.slots).map(make)
    }

    /// The running thread's part.
    @inlinable public var current: Part { parts[Worker.slot] }
}
