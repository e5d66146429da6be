import AuthVerification

/// A lifecycle's graph as a diagram draws it: the explorer's projected graph (concrete states
/// projected onto their case path, transitions onto their event's case), with the changes that stay
/// inside one case set apart.
///
/// Only transitions the explorer took appear, so an edge is always something the code does.
/// Events a state ignores or rejects never change the state and are not in the projected graph at
/// all; events that change only a state's payload (a call put in flight, a timer re-armed) are
/// kept as ``internalEvents`` and not drawn as edges.
public struct StateGraph: Hashable, Sendable {
    /// One drawn transition between two different cases.
    public struct Edge: Hashable, Sendable, Comparable {
        /// The source case path.
        public var from: String
        /// The event's case (`submitEmail`, `granted`, `failed(network)`, `tick`, `launched(stored)`).
        public var label: String
        /// The target case path.
        public var to: String
        /// What kind of event: intent, success, failure, timer, launch.
        public var kind: ProjectedEdge.Kind

        /// Creates an edge.
        public init(from: String, label: String, to: String, kind: ProjectedEdge.Kind) {
            self.from = from
            self.label = label
            self.to = to
            self.kind = kind
        }

        /// Orders by source, target, kind, label: the order every format writes.
        public static func < (lhs: Edge, rhs: Edge) -> Bool {
            (lhs.from, lhs.to, lhs.kind.rawValue, lhs.label) < (rhs.from, rhs.to, rhs.kind.rawValue, rhs.label)
        }
    }

    /// The diagram's name, used for file names (`session.everday`).
    public var name: String
    /// The title shown above the diagram.
    public var title: String
    /// The case path where the lifecycle starts.
    public var initial: String
    /// Case paths where the lifecycle is done, among ``states``.
    public var finals: [String]
    /// Every case path drawn, sorted.
    public var states: [String]
    /// The drawn transitions, sorted; no self-loops.
    public var edges: [Edge]
    /// Events that changed a state's payload but not its case, by case path (sorted labels).
    public var internalEvents: [String: [String]]
    /// Launch edges from cases other than the initial one that land in the initial case, or where
    /// a launch from the initial case lands: a relaunch starts the app from scratch, so such a
    /// launch is drawn once, from the initial case (or not at all when it stays there).
    public var foldedLaunches: Int
    /// Distinct concrete states the explorer reached.
    public var exploredStates: Int
    /// Concrete transitions the explorer took.
    public var exploredTransitions: Int
    /// True when exploration reached closure; false when limits bounded it (edges may be missing).
    public var complete: Bool
    /// What a diagram marks on this graph: the edges documented flows take, by edge.
    public var coverage: [Edge: [String]]

    /// Creates a graph from parts; states and edges are sorted, self-loops set apart, and launches
    /// from other cases folded onto the initial case's (see ``foldedLaunches``).
    public init(
        name: String, title: String, initial: String, finals: [String], edges: [Edge], extraStates: [String] = [],
        exploredStates: Int, exploredTransitions: Int, complete: Bool, coverage: [Edge: [String]] = [:]
    ) {
        var drawn = Set<Edge>()
        var inside: [String: Set<String>] = [:]
        let all = Set(edges)
        var folded = 0
        for edge in edges {
            if edge.kind == .launch, edge.from != initial,
                edge.to == initial || all.contains(Edge(from: initial, label: edge.label, to: edge.to, kind: .launch))
            {
                folded += 1  // A relaunch starts the app from scratch: drawn once, from the initial case.
            } else if edge.from == edge.to {
                inside[edge.from, default: []].insert(edge.label)
            } else {
                drawn.insert(edge)
            }
        }
        var states = Set(extraStates)
        states.insert(initial)
        for edge in drawn {
            states.insert(edge.from)
            states.insert(edge.to)
        }
        self.name = name
        self.title = title
        self.initial = initial
        self.finals = finals.filter(states.contains).sorted()
        self.states = states.sorted()
        self.edges = drawn.sorted()
        self.internalEvents = inside.filter { states.contains($0.key) }.mapValues { $0.sorted() }
        self.foldedLaunches = folded
        self.exploredStates = exploredStates
        self.exploredTransitions = exploredTransitions
        self.complete = complete
        self.coverage = coverage.filter { drawn.contains($0.key) }
    }

    /// The graph an exploration found, with the edges documented flows take.
    public init(report: ExplorationReport, coverage: [Edge: [String]] = [:]) {
        self.init(
            name: report.model, title: report.model, initial: report.initialCase, finals: report.finalCases,
            edges: report.edges.map { Edge(from: $0.from, label: $0.label, to: $0.to, kind: $0.kind) },
            exploredStates: report.states, exploredTransitions: report.transitions, complete: report.complete, coverage: coverage)
    }

    /// Whether `state` is final.
    public func isFinal(_ state: String) -> Bool { finals.contains(state) }

    /// Edges with the same source, target and kind, merged into one with their labels joined:
    /// what a drawing shows, so parallel arrows do not pile up.
    public var mergedEdges: [MergedEdge] {
        var groups: [MergedEdge.Key: [String]] = [:]
        for edge in edges { groups[MergedEdge.Key(from: edge.from, to: edge.to, kind: edge.kind), default: []].append(edge.label) }
        return groups.map { key, labels in
            let covered = edges.filter { $0.from == key.from && $0.to == key.to && $0.kind == key.kind && coverage[$0] != nil }
            return MergedEdge(from: key.from, to: key.to, kind: key.kind, labels: labels.sorted(), covered: !covered.isEmpty)
        }.sorted()
    }

    /// The failure lists of three failures or more that label two failure arrows or more, each
    /// drawn once under a short name (`F1`, `F2`, … in arrow order) in the diagram's legend
    /// instead of on every arrow.
    public var sharedFailures: [SharedFailures] {
        var order: [String] = []
        var count: [String: Int] = [:]
        for edge in mergedEdges where edge.kind == .failure {
            for label in edge.compactLabels {
                guard let list = SharedFailures.list(in: label), list.count >= SharedFailures.minimumLength else { continue }
                let key = list.joined(separator: ", ")
                if count[key] == nil { order.append(key) }
                count[key, default: 0] += 1
            }
        }
        return order.filter { count[$0, default: 0] >= 2 }.enumerated().map { index, key in
            SharedFailures(name: "F\(index + 1)", failures: key.components(separatedBy: ", "))
        }
    }

    /// The labels a drawing writes on `edge`: its ``MergedEdge/compactLabels``, with a list of
    /// ``sharedFailures`` written by its name (`failed(F1)`). `shared` is `sharedFailures`, passed
    /// in so that a renderer computes it once.
    public func drawnLabels(_ edge: MergedEdge, shared: [SharedFailures]) -> [String] {
        guard edge.kind == .failure, !shared.isEmpty else { return edge.compactLabels }
        return edge.compactLabels.map { label in
            guard let list = SharedFailures.list(in: label), let open = label.firstIndex(of: "("),
                let named = shared.first(where: { $0.failures == list })
            else { return label }
            return label[..<open] + "(" + named.name + ")"
        }
    }

    /// ``drawnLabels(_:shared:)`` on one line, a failure marked `✗`: `✗ failed(F1)`.
    public func drawnText(_ edge: MergedEdge, shared: [SharedFailures]) -> String {
        let joined = drawnLabels(edge, shared: shared).joined(separator: ", ")
        return edge.kind == .failure ? "✗ " + joined : joined
    }

    /// The graph without `edge` (for showing that a changed graph is detected).
    public func removing(_ edge: Edge) -> StateGraph {
        var copy = self
        copy.edges.removeAll { $0 == edge }
        copy.coverage[edge] = nil
        return copy
    }

    /// The graph with `edge` added.
    public func adding(_ edge: Edge) -> StateGraph {
        var copy = self
        if edge.from == edge.to {
            copy.internalEvents[edge.from, default: []].append(edge.label)
            copy.internalEvents[edge.from]?.sort()
        } else if !copy.edges.contains(edge) {
            copy.edges.append(edge)
            copy.edges.sort()
        }
        copy.states = Array(Set(copy.states + [edge.from, edge.to])).sorted()
        return copy
    }
}

/// Parallel edges of one kind between two cases, drawn as one arrow.
public struct MergedEdge: Hashable, Sendable, Comparable {
    /// What identifies a merged edge.
    public struct Key: Hashable, Sendable {
        /// The source case path.
        public var from: String
        /// The target case path.
        public var to: String
        /// The kind of event.
        public var kind: ProjectedEdge.Kind
    }

    /// The source case path.
    public var from: String
    /// The target case path.
    public var to: String
    /// The kind of event.
    public var kind: ProjectedEdge.Kind
    /// The events' cases, sorted.
    public var labels: [String]
    /// Whether a documented flow takes one of these edges.
    public var covered: Bool

    /// The labels with those of one case written once: `failed(network)`, `failed(timeout)` →
    /// `failed(network, timeout)`.
    public var compactLabels: [String] {
        var order: [String] = []
        var arguments: [String: [String]] = [:]
        for label in labels {
            guard let open = label.firstIndex(of: "("), label.hasSuffix(")") else {
                order.append(label)
                continue
            }
            let name = String(label[..<open])
            let argument = String(label[label.index(after: open)..<label.index(before: label.endIndex)])
            if arguments[name] == nil { order.append(name + "(") }
            arguments[name, default: []].append(argument)
        }
        return order.map { item in
            guard item.hasSuffix("("), let list = arguments[String(item.dropLast())] else { return item }
            return item + list.joined(separator: ", ") + ")"
        }
    }

    /// The label a drawing writes: `submitEmail`, `✗ failed(network, timeout)`.
    public var text: String {
        let joined = compactLabels.joined(separator: ", ")
        return kind == .failure ? "✗ " + joined : joined
    }

    /// Orders by source, target, kind.
    public static func < (lhs: MergedEdge, rhs: MergedEdge) -> Bool {
        (lhs.from, lhs.to, lhs.kind.rawValue) < (rhs.from, rhs.to, rhs.kind.rawValue)
    }
}

/// A list of failures that labels several failure arrows of one diagram, written once in its
/// legend (`F1 = badRequest, conflict, …`) and on the arrows by its name.
public struct SharedFailures: Hashable, Sendable {
    /// The short name the arrows carry (`F1`).
    public var name: String
    /// The failures, in the order the arrows list them.
    public var failures: [String]

    /// Creates a named list.
    public init(name: String, failures: [String]) {
        self.name = name
        self.failures = failures
    }

    /// Lists shorter than this stay on their arrows.
    public static let minimumLength = 3

    /// `F1 = badRequest, conflict, forbidden`.
    public var legend: String { "\(name) = " + failures.joined(separator: ", ") }

    /// The arguments of a label `name(a, b, c)`, or `nil` for a label without any.
    static func list(in label: String) -> [String]? {
        guard let open = label.firstIndex(of: "("), label.hasSuffix(")") else { return nil }
        let inside = label[label.index(after: open)..<label.index(before: label.endIndex)]
        return inside.components(separatedBy: ", ")
    }
}
