import AuthSupport

/// Work spread over the machine's cores: models explore independently, so `verify` runs as many
/// at once as there are cores.
enum Parallel {
    /// `body` applied to every item, on up to one thread per core, in the order `schedule` gives
    /// (longest work first balances best); the results come back in the items' own order.
    static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], schedule: [Int]? = nil, _ body: @Sendable (Item) -> Result
    ) -> [Result] {
        let order = schedule ?? Array(items.indices)
        // concurrentMap hands positions out in order, so the schedule's first items start first.
        let scheduled = concurrentMap(order.count, threads: Cores.online) { body(items[order[$0]]) }
        var results = [Result?](repeating: nil, count: items.count)
        for (position, index) in order.enumerated() { results[index] = scheduled[position] }
        return results.compactMap { $0 }
    }
}

/// A line writer several threads may call.
final class SharedLines: Sendable {
    /// The writer, called only while the lock is held.
    private let write: Locked<(String) -> Void>

    init(_ write: @escaping (String) -> Void) { self.write = Locked(write) }

    func callAsFunction(_ line: String) { write.withLock { $0(line) } }
}
