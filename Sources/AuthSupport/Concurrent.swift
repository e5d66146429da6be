import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Work spread over the machine's cores.
public enum Cores {
    /// The number of cores online (at least 1).
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// `body` applied to `0..<count` on up to `threads` threads, the results in index order.
///
/// The threads take the next index one at a time, so uneven work balances; with one thread (or
/// one item) `body` runs on the calling thread, in order. `body` must not depend on the order in
/// which the indices run.
public func concurrentMap<Result: Sendable>(_ count: Int, threads: Int, _ body: @Sendable (Int) -> Result) -> [Result] {
    guard threads > 1, count > 1 else { return (0..<count).map(body) }
    let next = Locked(0)
    let results = Locked([Result?](repeating: nil, count: count))
    DispatchQueue.concurrentPerform(iterations: min(threads, count)) { thread in
        // Numbered, so that state kept per thread (``Worker``) finds this thread's part.
        Worker.run(as: thread) {
            while true {
                let index = next.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard index < count else { return }
                let result = body(index)
                results.withLock { $0[index] = result }
            }
        }
    }
    return results.withLock { $0.compactMap { $0 } }
}
