import AuthCore
import AuthVerification

/// One signed-out flow of an app, found by reflecting the app machine: its position among the
/// app's nested `OneOf`s (`first`, `second.first`, …), its type and its starting case.
public struct EntryPosition: Hashable, Sendable, Comparable {
    /// The `first`/`second` steps from the app's entry to this flow.
    public var path: [String]
    /// The flow's type name (`PasswordSignIn`).
    public var typeName: String
    /// The flow's phase type (`String(reflecting:)`), as ``DiagramCatalogue/Subject`` records it.
    public var phaseType: String
    /// The flow's starting case (`enteringCredentials`).
    public var initialCase: String

    /// Creates a position.
    public init(path: [String], typeName: String, phaseType: String, initialCase: String) {
        self.path = path
        self.typeName = typeName
        self.phaseType = phaseType
        self.initialCase = initialCase
    }

    /// The case-path prefix of this flow's phases inside the app: `signedOut.second.first.`.
    public var prefix: String { (["signedOut"] + path).joined(separator: ".") + "." }

    /// Orders by position.
    public static func < (lhs: EntryPosition, rhs: EntryPosition) -> Bool { lhs.path.lexicographicallyPrecedes(rhs.path) }

    /// The entry flows of an app machine (a `Handover` of nested `OneOf`s), in position order.
    /// An app that is not a `Handover` has none.
    public static func of(_ app: Any) -> [EntryPosition] {
        guard let entry = Mirror(reflecting: app).descendant("entry") else { return [] }
        var found: [EntryPosition] = []
        var stack: [(Any, [String])] = [(entry, [])]
        while let (value, path) = stack.popLast() {
            if String(reflecting: type(of: value)).hasPrefix("AuthCore.OneOf<"),
                let first = Mirror(reflecting: value).descendant("first"), let second = Mirror(reflecting: value).descendant("second")
            {
                stack.append((second, path + ["second"]))
                stack.append((first, path + ["first"]))
            } else if let flow = value as? any EntryFlow {
                found.append(describe(flow, at: path))
            }
        }
        return found.sorted()
    }

    private static func describe<Flow: EntryFlow>(_ flow: Flow, at path: [String]) -> EntryPosition {
        EntryPosition(
            path: path, typeName: String(describing: Flow.self), phaseType: String(reflecting: Flow.Phase.self),
            initialCase: casePath(of: flow.initialPhase))
    }
}

/// Where an app's case path is: in one of the signed-out flows, or in the session.
public enum AppPlace: Hashable, Sendable {
    /// In the entry flow at this position, at this case path of its own.
    case entry(EntryPosition, String)
    /// Signed in (or restoring, refreshing…): the session's case path (`active`, `(active.idle + connected)`).
    case session(String)
    /// Not an app case path.
    case unknown(String)

    /// The place of `path` in an app with `entries`.
    public static func of(_ path: String, entries: [EntryPosition]) -> AppPlace {
        if path.hasPrefix("signedIn.") { return .session(String(path.dropFirst("signedIn.".count))) }
        let matching = entries.filter { path.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
        guard let entry = matching else { return .unknown(path) }
        return .entry(entry, String(path.dropFirst(entry.prefix.count)))
    }

    /// Whether this is an entry flow at its starting case: signed out with nothing under way.
    public var isEntryStart: Bool {
        if case .entry(let entry, let inner) = self { return inner == entry.initialCase }
        return false
    }
}

/// One step of an app, projected: case path before, event case, case path after.
public struct AppStep: Hashable, Sendable {
    /// The app's case path before the event.
    public var from: String
    /// The event's case.
    public var label: String
    /// The app's case path after the event.
    public var to: String
    /// The event's kind.
    public var kind: ProjectedEdge.Kind
    /// Whether the event was a session intent or a launch (which an app routes to its session even
    /// while signed out).
    public var reachesSession: Bool

    /// Creates a step.
    public init(from: String, label: String, to: String, kind: ProjectedEdge.Kind, reachesSession: Bool) {
        self.from = from
        self.label = label
        self.to = to
        self.kind = kind
        self.reachesSession = reachesSession
    }

    /// This step as an edge of a lifecycle model's graph, if that lifecycle takes part in it.
    ///
    /// An entry model sees the steps of its flow (a switch from another flow starts from its
    /// initial case; a handover ends in its final case). A session model sees the steps that
    /// start, change or end the session: the session's own, its sign-in's handover, and launches or
    /// session intents from the app's signed-out start.
    public func projected(onto subject: DiagramCatalogue.Subject, initialCase: String, finals: [String], entries: [EntryPosition]) -> StateGraph.Edge?
    {
        let before = AppPlace.of(from, entries: entries)
        let after = AppPlace.of(to, entries: entries)
        func edge(_ source: String, _ target: String) -> StateGraph.Edge {
            StateGraph.Edge(from: source, label: label, to: target, kind: kind)
        }
        switch subject {
        case .entry(let phaseType):
            switch (before, after) {
            case (.entry(let a, let p), .entry(let b, let q)) where a == b && a.phaseType == phaseType:
                return edge(p, q)
            case (.entry(let a, _), .entry(let b, let q)) where a != b && b.phaseType == phaseType:
                return edge(b.initialCase, q)  // ``OneOf`` starts the other flow from its beginning.
            case (.entry(let a, let p), .session) where a.phaseType == phaseType && finals.count == 1 && !reachesSession:
                return edge(p, finals[0])  // The flow reached its end and handed over.
            case (.entry, _), (.session, _), (.unknown, _):
                return nil
            }
        case .session(let entryPhaseType):
            switch (before, after) {
            case (.session(let s), .session(let t)):
                return edge("signedIn." + s, "signedIn." + t)
            case (.session(let s), .entry):
                return edge("signedIn." + s, initialCase)
            case (.entry(let a, let p), .session(let t)) where a.phaseType == entryPhaseType && !reachesSession:
                return edge("signedOut." + p, "signedIn." + t)
            case (.entry, .session(let t)) where reachesSession && before.isEntryStart:
                return edge(initialCase, "signedIn." + t)
            case (.entry, _), (.unknown, _), (.session, .unknown):
                return nil  // The sign-in alone is its own diagram's subject.
            }
        }
    }
}
