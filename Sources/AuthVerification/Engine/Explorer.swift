import AuthCore

/// Bounds that keep an exploration finite even when a model is not.
public struct ExplorationLimits: Hashable, Sendable {
    /// Stop after this many distinct states.
    public var maxStates: Int
    /// Do not expand states deeper than this.
    public var maxDepth: Int

    /// Creates limits.
    public init(maxStates: Int = 2_000_000, maxDepth: Int = 1_000) {
        self.maxStates = maxStates
        self.maxDepth = maxDepth
    }
}

/// What an exploration found.
public struct ExplorationReport: Sendable {
    /// The model's name.
    public var model: String
    /// Distinct (canonical) states.
    public var states: Int
    /// Transitions taken.
    public var transitions: Int
    /// The deepest state's distance from the initial one.
    public var depth: Int
    /// Wall time.
    public var seconds: Double
    /// True when every reachable state was expanded (closure), false when a limit stopped it.
    public var complete: Bool
    /// Invariants checked.
    public var invariants: Int
    /// The first (shortest) violation of each invariant that failed.
    public var violations: [Violation]
    /// Structural findings.
    public var findings: [Finding]
    /// The projected graph (case path → case path), sorted.
    public var edges: [ProjectedEdge]
    /// The initial case path.
    public var initialCase: String
    /// Case paths the model declares final.
    public var finalCases: [String]

    /// True when complete and nothing was found.
    public var passed: Bool { complete && violations.isEmpty && findings.isEmpty }
    /// Distinct states per second.
    public var statesPerSecond: Double { seconds > 0 ? Double(states) / seconds : 0 }
}

/// Exhaustive breadth-first exploration of a model's worlds to closure, checking every invariant
/// at every state and transition, then the structure of the graph. Iterative throughout, so
/// cyclic graphs of any size cannot overflow the stack.
public enum Explorer {
    /// Explores `model` within `limits`.
    public static func explore<Model: LifecycleModel>(_ model: Model, limits: ExplorationLimits = ExplorationLimits(), progress: (@Sendable (Int, Int) -> Void)? = nil) -> ExplorationReport {
        typealias Machine = Model.Machine
        let clock = ContinuousClock()
        let start = clock.now
        let environment = Environment(model: model)
        let invariants = model.invariants
        var violations: [String: Violation] = [:]
        var violationOrder: [String] = []

        var index: [[UInt8]: Int32] = [:]
        var parent: [Int32] = []
        var via: [Move<Machine>?] = []
        var depth: [Int32] = []
        var pathIndex: [Int32] = []
        var paths: [String] = []
        var pathIDs: [String: Int32] = [:]
        var edgesFrom: [Int32] = []
        var edgesTo: [Int32] = []
        var edgeIsLoopMaterial: [Bool] = []
        var projected = Set<ProjectedEdge>()
        var declared: [String: [String]] = [:]
        var seenCases = Set<PhaseCase>()
        var declaredIntents: [String: [String]] = [:]
        var offeredIntents = Set<PhaseCase>()
        var queue: [Snapshot<Machine>?] = []
        var surveyed: [World<Machine>: Snapshot<Machine>] = [:]
        var head = 0
        var complete = true

        func intern(_ path: String) -> Int32 {
            if let id = pathIDs[path] { return id }
            let id = Int32(paths.count)
            paths.append(path)
            pathIDs[path] = id
            return id
        }

        func trace(to node: Int32) -> [TraceStep] {
            var steps: [TraceStep] = []
            var current = node
            while current > 0, let move = via[Int(current)] {
                steps.append(TraceStep(choice: move.choice, event: move.event.description, phase: paths[Int(pathIndex[Int(current)])]))
                current = parent[Int(current)]
            }
            return steps.reversed()
        }

        func record(_ invariant: Invariant<Machine>, _ message: String, _ steps: [TraceStep]) {
            guard violations[invariant.name] == nil else { return }
            violations[invariant.name] = Violation(invariant: invariant.name, source: invariant.source, message: message, trace: steps)
            violationOrder.append(invariant.name)
        }

        func admit(_ snapshot: Snapshot<Machine>, parent from: Int32, via move: Move<Machine>?, depth d: Int32) -> Int32 {
            let id = Int32(parent.count)
            index[snapshot.key] = id
            parent.append(from)
            via.append(move)
            depth.append(d)
            pathIndex.append(intern(snapshot.casePath))
            queue.append(snapshot)
            for phaseCase in snapshot.phaseCases where !seenCases.contains(phaseCase) {
                seenCases.insert(phaseCase)
                if declared[phaseCase.type] == nil { declared[phaseCase.type] = declaredCases(ofTypeNamed: phaseCase.type, in: snapshot.world.state) }
            }
            for invariant in invariants {
                guard case .state(let check) = invariant.check, violations[invariant.name] == nil else { continue }
                if let message = check(snapshot) { record(invariant, message, trace(to: id)) }
            }
            return id
        }

        _ = admit(Snapshot(model.initialWorld), parent: -1, via: nil, depth: 0)

        while head < queue.count {
            guard let snapshot = queue[head] else { head += 1; continue }
            queue[head] = nil
            let node = Int32(head)
            head += 1
            if Int(depth[Int(node)]) >= limits.maxDepth {
                complete = false
                continue
            }
            for move in environment.moves(snapshot) {
                if case .intent(let intent, _) = move.event {
                    EventLabel.intentCases(of: intent, into: &offeredIntents)
                    if declaredIntents.isEmpty { declaredIntents = intentDeclarations(intent) }
                }
                let (after, transition) = environment.step(move, from: snapshot, cache: &surveyed)
                var target = index[after.key]
                for invariant in invariants {
                    guard case .step(let check) = invariant.check, violations[invariant.name] == nil else { continue }
                    if let message = check(transition) {
                        let steps = trace(to: node) + [TraceStep(choice: move.choice, event: move.event.description, phase: after.casePath)]
                        record(invariant, message, steps)
                    }
                }
                if target == nil {
                    if parent.count >= limits.maxStates {
                        complete = false
                        continue
                    }
                    target = admit(after, parent: node, via: move, depth: depth[Int(node)] + 1)
                }
                edgesFrom.append(node)
                edgesTo.append(target!)
                edgeIsLoopMaterial.append(isEnvironmentFailure(move))
                if after.world.state.phase != snapshot.world.state.phase {
                    let (label, kind) = EventLabel.of(move.event)
                    projected.insert(ProjectedEdge(from: snapshot.casePath, label: label, to: after.casePath, kind: kind))
                }
            }
            if let progress, head % 50_000 == 0 { progress(parent.count, edgesFrom.count) }
        }

        var findings: [Finding] = []
        if complete {
            findings += structuralFindings(
                count: parent.count, edgesFrom: edgesFrom, edgesTo: edgesTo, loopMaterial: edgeIsLoopMaterial,
                pathOf: { paths[Int(pathIndex[Int($0)])] }, initialPath: paths[0], finals: Set(model.finalCases), trace: trace,
                via: { via[Int($0)] })
            for (type, cases) in declared.sorted(by: { $0.key < $1.key }) {
                for name in cases where !seenCases.contains(PhaseCase(type: type, name: name)) {
                    let key = "\(type).\(name)"
                    if model.unreachableByDesign[key] == nil {
                        findings.append(Finding(kind: .unreachedCase, detail: key, trace: []))
                    }
                }
            }
            for seen in seenCases.sorted() where !(declared[seen.type] ?? []).contains(seen.name) {
                findings.append(Finding(kind: .undeclaredCase, detail: seen.description, trace: []))
            }
            for (type, cases) in declaredIntents.sorted(by: { $0.key < $1.key }) {
                for name in cases where !offeredIntents.contains(PhaseCase(type: type, name: name)) {
                    findings.append(Finding(kind: .unusedIntent, detail: "\(type).\(name)", trace: []))
                }
            }
        }
        let seconds = Double((clock.now - start).components.attoseconds) / 1e18 + Double((clock.now - start).components.seconds)
        return ExplorationReport(
            model: model.name, states: parent.count, transitions: edgesFrom.count, depth: Int(depth.max() ?? 0),
            seconds: seconds, complete: complete, invariants: invariants.count,
            violations: violationOrder.compactMap { violations[$0] }, findings: findings, edges: projected.sorted(),
            initialCase: paths[0], finalCases: model.finalCases)
    }

    /// Timers and failed answers: the only moves a livelock may consist of.
    private static func isEnvironmentFailure<Machine>(_ move: Move<Machine>) -> Bool {
        switch move.event {
        case .tick: return true
        case .reply(_, .failed(let failure), _): return failure.isTransient
        case .reply(_, .realtimeClosed, _): return true
        case .reply, .intent, .launched: return false
        }
    }

    private static func declaredCases(ofTypeNamed name: String, in state: Any) -> [String] {
        var found: [String] = []
        func visit(_ value: Any) {
            if let phase = value as? any LifecyclePhase, typeName(type(of: phase)) == name {
                found = type(of: phase).declaredCases
                return
            }
            if value is any AnySecret { return }
            for child in Mirror(reflecting: value).children where found.isEmpty { visit(child.value) }
        }
        visit(state)
        return found
    }

    private static func intentDeclarations(_ intent: Any) -> [String: [String]] {
        var result: [String: [String]] = [:]
        func visit(_ value: Any) {
            guard let listing = value as? any CaseListing else { return }
            result[typeName(type(of: listing))] = type(of: listing).declaredCases
            for child in Mirror(reflecting: listing).children { visit(child.value) }
        }
        visit(intent)
        return result
    }

    private static func structuralFindings<Machine>(
        count: Int, edgesFrom: [Int32], edgesTo: [Int32], loopMaterial: [Bool], pathOf: (Int32) -> String,
        initialPath: String, finals: Set<String>, trace: (Int32) -> [TraceStep], via: (Int32) -> Move<Machine>?
    ) -> [Finding] {
        var findings: [Finding] = []
        var outgoing = [[Int32]](repeating: [], count: count)
        var incoming = [[Int32]](repeating: [], count: count)
        for (from, to) in zip(edgesFrom, edgesTo) where from != to {
            outgoing[Int(from)].append(to)
            incoming[Int(to)].append(from)
        }
        // Deadlocks: non-final states where no event changes anything.
        for node in 0..<count where outgoing[node].isEmpty && !finals.contains(pathOf(Int32(node))) {
            findings.append(Finding(kind: .deadlock, detail: pathOf(Int32(node)), trace: trace(Int32(node))))
            break
        }
        // The starting case is reachable from every non-final state (backwards search from home).
        var reachesHome = [Bool](repeating: false, count: count)
        var stack: [Int32] = []
        for node in 0..<count where pathOf(Int32(node)) == initialPath {
            reachesHome[node] = true
            stack.append(Int32(node))
        }
        while let node = stack.popLast() {
            for source in incoming[Int(node)] where !reachesHome[Int(source)] {
                reachesHome[Int(source)] = true
                stack.append(source)
            }
        }
        for node in 0..<count where !reachesHome[node] && !finals.contains(pathOf(Int32(node))) {
            findings.append(Finding(kind: .noWayHome, detail: "no way back to \(initialPath) from \(pathOf(Int32(node)))", trace: trace(Int32(node))))
            break
        }
        // Livelocks: cycles in the subgraph of timers and failed answers (self-loops included).
        var inDegree = [Int](repeating: 0, count: count)
        var material = [[Int32]](repeating: [], count: count)
        for ((from, to), isMaterial) in zip(zip(edgesFrom, edgesTo), loopMaterial) where isMaterial {
            material[Int(from)].append(to)
            inDegree[Int(to)] += 1
        }
        var removable = (0..<count).filter { inDegree[$0] == 0 }.map(Int32.init)
        var removed = [Bool](repeating: false, count: count)
        while let node = removable.popLast() {
            removed[Int(node)] = true
            for target in material[Int(node)] {
                inDegree[Int(target)] -= 1
                if inDegree[Int(target)] == 0 { removable.append(target) }
            }
        }
        if let onCycle = (0..<count).first(where: { !removed[$0] && material[$0].contains { !removed[Int($0)] } }) {
            findings.append(
                Finding(kind: .livelock, detail: "timers and failed answers alone loop through \(pathOf(Int32(onCycle)))", trace: trace(Int32(onCycle))))
        }
        return findings
    }
}
