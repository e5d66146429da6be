import AuthSupport
import Dispatch

/// Work spread over the machine's cores: models explore independently, so `verify` runs as many
/// at once as there are cores.
enum Parallel {
    /// `body` applied to every item, on up to one thread per core, in the order `schedule` gives
    /// (longest work first balances best); the results come back in the items' own order.
    static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], schedule: [Int]? = nil, _ body: @Sendable (Item) -> Result
    ) -> [Result] {
        let order = schedule ?? Array(items.indices)
        let results = Slots<Result>(count: items.count)
        let next = Slots<Int>(count: 1)
        next.set(0, 0)
        DispatchQueue.concurrentPerform(iterations: min(Cores.online, items.count)) { _ in
            while let position = next.take(below: order.count) {
                let index = order[position]
                results.set(index, body(items[index]))
            }
        }
        return results.values()
    }
}

/// Result slots written from several threads.
private final class Slots<Value: Sendable>: Sendable {
    private let storage: Locked<[Value?]>

    init(count: Int) { storage = Locked(Array(repeating: nil, count: count)) }

    func set(_ index: Int, _ value: Value) {
        storage.withLock { $0[index] = value }
    }

    /// For a counter slot: the current value, incremented, while it stays below `bound`.
    func take(below bound: Int) -> Int? where Value == Int {
        storage.withLock { storage in
            guard let current = storage[0], current < bound else { return nil }
            storage[0] = current + 1
            return current
        }
    }

    func values() -> [Value] { storage.withLock { storage in storage.compactMap { $0 } } }
}

/// A line writer several threads may call.
final class SharedLines: Sendable {
    /// The writer, called only while the lock is held.
    private let write: Locked<(String) -> Void>

    init(_ write: @escaping (String) -> Void) { self.write = Locked(write) }

    func callAsFunction(_ line: String) { write.withLock { $0(line) } }
}
