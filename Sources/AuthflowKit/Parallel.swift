import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Work spread over the machine's cores: models explore independently, so `verify` runs as many
/// at once as there are cores.
enum Parallel {
    /// The number of cores online (at least 1).
    static var cores: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `body` applied to every item, on up to `cores` threads, in the order `schedule` gives
    /// (longest work first balances best); the results come back in the items' own order.
    static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], schedule: [Int]? = nil, _ body: @Sendable (Item) -> Result
    ) -> [Result] {
        let order = schedule ?? Array(items.indices)
        let results = Slots<Result>(count: items.count)
        let next = Slots<Int>(count: 1)
        next.set(0, 0)
        DispatchQueue.concurrentPerform(iterations: min(cores, items.count)) { _ in
            while let position = next.take(below: order.count) {
                let index = order[position]
                results.set(index, body(items[index]))
            }
        }
        return results.values()
    }
}

/// Result slots written from several threads.
private final class Slots<Value: Sendable>: @unchecked Sendable {
    // Safe: every access to `storage` holds `lock`.
    private var storage: [Value?]
    private let lock = NSLockless()

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) {
        lock.withLock { storage[index] = value }
    }

    /// For a counter slot: the current value, incremented, while it stays below `bound`.
    func take(below bound: Int) -> Int? where Value == Int {
        lock.withLock {
            guard let current = storage[0], current < bound else { return nil }
            storage[0] = current + 1
            return current
        }
    }

    func values() -> [Value] { lock.withLock { storage.compactMap { $0 } } }
}

/// A pthread mutex, so this file needs no Foundation.
private final class NSLockless: @unchecked Sendable {
    // Safe: a pthread mutex is made for concurrent use; the pointer is allocated once.
    private let handle = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    init() { pthread_mutex_init(handle, nil) }
    deinit {
        pthread_mutex_destroy(handle)
        handle.deallocate()
    }
    func withLock<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(handle)
        defer { pthread_mutex_unlock(handle) }
        return body()
    }
}

/// A line writer several threads may call.
final class SharedLines: @unchecked Sendable {
    // Safe: `write` is only called while `lock` is held.
    private let write: (String) -> Void
    private let lock = NSLockless()

    init(_ write: @escaping (String) -> Void) { self.write = write }

    func callAsFunction(_ line: String) { lock.withLock { write(line) } }
}
