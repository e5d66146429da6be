import Dispatch

/// Runs async `work` to its result from synchronous code: the calling thread waits, and hands
/// each line `work` reports to `relay` as it comes (so `relay` need not be `Sendable`). The
/// bridge `authflow bench` and `authflow demo` share.
package func blocking<T: Sendable>(
    relaying relay: (String) -> Void, _ work: @escaping @Sendable (_ report: @escaping @Sendable (String) -> Void) async -> T
) -> T {
    let ready = DispatchSemaphore(value: 0)
    let shared = Locked<(lines: [String], result: T?)>(([], nil))
    Task.detached {
        let value = await work { line in
            shared.withLock { $0.lines.append(line) }
            ready.signal()
        }
        shared.withLock { $0.result = value }
        ready.signal()
    }
    while true {
        ready.wait()
        let (lines, result) = shared.withLock { state -> ([String], T?) in
            defer { state.lines.removeAll() }
            return (state.lines, state.result)
        }
        lines.forEach(relay)
        if let result { return result }
    }
}
