import Foundation

/// The faults waiting to be applied, each for one path (or all) and for a number of requests (or always).
final class FaultBoard: Sendable {
    private struct Rule {
        var fault: Fault
        var path: String?
        var remaining: Int?
    }

    private let rules = Locked<[Rule]>([])

    /// Adds a fault; `path` matches the request path with or without the backend prefix, `nil` matches all.
    func inject(_ fault: Fault, path: String?, times: Int?) {
        rules.withLock { $0.append(Rule(fault: fault, path: path, remaining: times)) }
    }

    /// Removes every fault.
    func clear() {
        rules.withLock { $0.removeAll() }
    }

    /// The first fault that matches one of `paths`, counting it as used.
    func take(matching paths: [String]) -> Fault? {
        rules.withLock { rules in
            guard let index = rules.firstIndex(where: { rule in rule.path.map(paths.contains) ?? true }) else {
                return nil
            }
            let fault = rules[index].fault
            if let remaining = rules[index].remaining {
                if remaining <= 1 {
                    rules.remove(at: index)
                } else {
                    rules[index].remaining = remaining - 1
                }
            }
            return fault
        }
    }
}
