import AuthCore

/// What ``ContractCheck/check(_:states:)`` found.
public struct ContractCheckReport: Sendable {
    /// The model's name.
    public var model: String
    /// Distinct worlds (by fingerprint) expanded, breadth-first from the initial one.
    public var states: Int
    /// Worlds met under a fingerprint already admitted, other than its first world, whose moves
    /// were stepped and compared with those of the first: up to ``ContractCheck/othersPerFingerprint``
    /// per fingerprint, the first met.
    public var compared: Int
    /// The first world found to break the contract, as a ``Finding/Kind/brokenModelContract``
    /// finding whose trace reaches it; `nil` when every compared world kept it.
    public var finding: Finding?

    /// True when no compared world broke the contract.
    public var passed: Bool { finding == nil }
}

/// Checks ``LifecycleModel/intents(in:)``'s contract ahead of time, where the explorer and the
/// fuzzer only check the traces they report.
///
/// The explorer expands the first world of each fingerprint and trusts every later world with
/// that fingerprint to offer the same moves, leading to worlds of the same fingerprints. A model
/// whose menu depends on something its fingerprint leaves out (an absolute time, a token's or
/// request id's own name, state outside the world) breaks that silently: the exploration is
/// narrowed, and only a reported trace that fails to replay reveals it. This check looks for it:
/// breadth-first over the model's first `states` distinct worlds, it steps every move of each
/// world expanded and, for each fingerprint met again in other worlds, every move of the first few
/// such worlds (``othersPerFingerprint``: worlds that differ only in what a menu must not read, a
/// sender's counter, come first and would hide a later one that breaks the contract), and compares
/// the lists move by move (choice and the fingerprint it leads to).
/// The same comparison also fails when the menus agree but one move leads to worlds of different
/// fingerprints: then the fingerprint leaves out something the lifecycle's steps depend on, and
/// the search's symmetry reduction is unsound in the same way.
///
/// It costs about two explorations of the same worlds without invariants, and keeps every world
/// it admits whole (the explorer keeps a fingerprint), so it is a separate call with a small bound:
/// run it in a test over a composition of your own, as this package's tests run it over every
/// shipped model.
public enum ContractCheck {
    /// How many other worlds of one fingerprint are compared with its first.
    public static let othersPerFingerprint = 4

    /// Checks `model`'s first `states` distinct worlds; see ``ContractCheck``.
    public static func check<Model: LifecycleModel>(_ model: Model, states cap: Int = 1_000) -> ContractCheckReport {
        typealias Machine = Model.Machine
        let environment = Environment(model: model)
        /// A world's moves as the explorer follows them: each choice and the fingerprint it leads to.
        func outcomes(of snapshot: Snapshot<Machine>) -> [(choice: Choice, to: Fingerprint)] {
            environment.moves(snapshot).map { ($0.choice, environment.step($0, from: snapshot).after.fingerprint) }
        }
        var index: [Fingerprint: Int] = [:]
        var parents: [(node: Int, choice: Choice)] = []
        var worlds: [Snapshot<Machine>] = []
        var expanded: [[(choice: Choice, to: Fingerprint)]] = []
        var metAgain: [(snapshot: Snapshot<Machine>, parent: Int, choice: Choice, first: Int)] = []
        // The other worlds met under each first world's fingerprint, to be compared with it.
        var others: [Int: [World<Machine>]] = [:]
        var frontier = [environment.initial]
        index[frontier[0].fingerprint] = 0
        parents.append((-1, .intent(0)))
        worlds.append(frontier[0])
        var node = 0
        while !frontier.isEmpty {
            var next: [Snapshot<Machine>] = []
            for snapshot in frontier {
                defer { node += 1 }
                var moves: [(choice: Choice, to: Fingerprint)] = []
                for move in environment.moves(snapshot) {
                    let after = environment.step(move, from: snapshot).after
                    moves.append((move.choice, after.fingerprint))
                    if let first = index[after.fingerprint] {
                        // The same world again (a self-loop, or a move that changes nothing)
                        // offers the same moves by construction: only another world can differ.
                        // Each other world once: refused intents all make one world (the intent
                        // counter moved on), which must not take every comparison.
                        let met = others[first, default: []]
                        if met.count < othersPerFingerprint, after.world != worlds[first].world, !met.contains(after.world) {
                            others[first, default: []].append(after.world)
                            metAgain.append((after, node, move.choice, first))
                        }
                    } else if index.count < cap {
                        index[after.fingerprint] = parents.count
                        parents.append((node, move.choice))
                        worlds.append(after)
                        next.append(after)
                    }
                }
                expanded.append(moves)
            }
            frontier = next
        }
        func trace(to node: Int) -> [Choice] {
            var choices: [Choice] = []
            var current = node
            while current > 0 {
                choices.append(parents[current].choice)
                current = parents[current].node
            }
            return choices.reversed()
        }
        /// Where `choice` leads from `snapshot`, by case path.
        func path(after choice: Choice, from snapshot: Snapshot<Machine>) -> String {
            environment.move(choice, in: snapshot).map { environment.step($0, from: snapshot).after.casePath } ?? "nowhere"
        }
        /// Under ``Reduction/symmetric``, worlds with one fingerprint may hold their requests in
        /// flight and their open intents in another order: the answers and the withdrawals are
        /// then compared as a multiset of the worlds they lead to, every other move by position.
        func unordered(_ choice: Choice) -> Bool {
            guard environment.reduction == .symmetric else { return false }
            switch choice {
            case .reply, .withdraw: return true
            case .intent, .timer, .relaunch, .wait: return false
            }
        }
        for (compared, again) in metAgain.enumerated() {
            let theirs = expanded[again.first]
            let ours = outcomes(of: again.snapshot)
            let (theirsInOrder, oursInOrder) = (theirs.filter { !unordered($0.choice) }, ours.filter { !unordered($0.choice) })
            let (theirsAsSet, oursAsSet) = (theirs.filter { unordered($0.choice) }, ours.filter { unordered($0.choice) })
            let differ = (0..<min(theirsInOrder.count, oursInOrder.count)).first {
                theirsInOrder[$0].choice != oursInOrder[$0].choice || theirsInOrder[$0].to != oursInOrder[$0].to
            }
            var unmatched = oursAsSet.map(\.to)
            let missing = theirsAsSet.first { move in
                guard let match = unmatched.firstIndex(of: move.to) else { return true }
                unmatched.remove(at: match)
                return false
            }
            let how: String
            if let differ {
                let (a, b) = (theirsInOrder[differ], oursInOrder[differ])
                how =
                    a.choice == b.choice
                    ? "move \(a.choice) leads to \(path(after: a.choice, from: worlds[again.first])) from the first "
                        + "and to another world, in \(path(after: b.choice, from: again.snapshot)), from this one"
                    : "move \(differ + 1) is \(a.choice) at the first and \(b.choice) at this one"
            } else if theirs.count != ours.count {
                how = "the first offers \(theirs.count) moves and this one \(ours.count)"
            } else if let missing {
                how =
                    "move \(missing.choice) leads to \(path(after: missing.choice, from: worlds[again.first])) from the first, "
                    + "and no answer or withdrawal from this one leads to that world"
            } else {
                continue
            }
            let choices = trace(to: again.parent) + [again.choice]
            return ContractCheckReport(
                model: model.name, states: parents.count, compared: compared + 1,
                finding: Finding(
                    kind: .brokenModelContract,
                    detail:
                        "two worlds with one fingerprint offer different moves (\(how)); the first was reached in \(trace(to: again.first).count) moves, "
                        + "this one by the trace below: intents(in:) must depend only on the snapshot's facts (not on absolute times, "
                        + "the names of ids and tokens, or state outside the world), and a move must lead alike from both (else the fingerprint "
                        + "leaves out something the step depends on), or the explorer's search is narrowed and its traces cannot be trusted",
                    trace: environment.trace(choices)))
        }
        return ContractCheckReport(model: model.name, states: parents.count, compared: metAgain.count, finding: nil)
    }
}
