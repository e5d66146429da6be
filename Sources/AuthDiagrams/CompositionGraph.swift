import AuthCore
import AuthVerification

/// A backend's composition: the lifecycles its app composes and how they hand over to the session,
/// derived from the exploration of the backend's app model.
///
/// The app's projected graph is projected once more: every signed-out flow becomes one state
/// (named after its type; its inner cases are in its own lifecycle diagram), every flow's starting
/// case becomes the one `signedOut` state, and the session keeps its cases (`signedIn.active.idle`,
/// `signedIn.passwordSetupRequired`, …; a realtime connection beside the session is folded into the
/// session's case). Switches from one signed-out flow to another (an intent for another flow
/// abandons the current one) are not drawn: every flow can be left for every other.
public enum CompositionGraph: Sendable {
    /// The state every flow's starting case maps to.
    public static let signedOut = "signedOut"

    /// The composition state of an app case path.
    public static func state(of path: String, entries: [EntryPosition]) -> String {
        switch AppPlace.of(path, entries: entries) {
        case .entry(let entry, let inner):
            return inner == entry.initialCase ? signedOut : name(of: entry, among: entries)
        case .session(let inner):
            return "signedIn." + sessionCase(inner)
        case .unknown(let path):
            return path
        }
    }

    /// The session's own case in a session case path: `(active.idle + connected)` → `active.idle`.
    static func sessionCase(_ path: String) -> String {
        var word = ""
        for character in path.drop(while: { $0 == "(" }) {
            if character == " " || character == ")" { break }
            word.append(character)
        }
        return word.isEmpty ? path : word
    }

    /// A flow's state name: its type, with its position when two flows share a type.
    static func name(of entry: EntryPosition, among entries: [EntryPosition]) -> String {
        entries.filter { $0.typeName == entry.typeName }.count > 1 ? entry.typeName + "@" + entry.path.joined(separator: ".") : entry.typeName
    }

    /// The composition edge for an app edge, or `nil` for a switch between two signed-out flows.
    public static func edge(from: String, label: String, to: String, kind: ProjectedEdge.Kind, entries: [EntryPosition]) -> StateGraph.Edge? {
        if case .entry(let a, let inner) = AppPlace.of(from, entries: entries), inner != a.initialCase,
            case .entry(let b, _) = AppPlace.of(to, entries: entries), a != b
        {
            return nil  // A switch from one signed-out flow to another.
        }
        return StateGraph.Edge(from: state(of: from, entries: entries), label: label, to: state(of: to, entries: entries), kind: kind)
    }

    /// The composition graph of `backend` from its app model's exploration.
    public static func graph(
        report: ExplorationReport, backend: Backend, entries: [EntryPosition], coverage: [AppStep: [String]] = [:]
    ) -> StateGraph {
        let edges = report.edges.compactMap { edge($0.from, $0.label, $0.to, $0.kind, entries) }
        var covered: [StateGraph.Edge: [String]] = [:]
        for (step, flows) in coverage {
            guard let projected = edge(step.from, step.label, step.to, step.kind, entries) else { continue }
            covered[projected, default: []] += flows
        }
        let flowStates = entries.map { name(of: $0, among: entries) }
        return StateGraph(
            name: report.model, title: "\(backend): lifecycles and handover to the session",
            initial: state(of: report.initialCase, entries: entries), finals: [], edges: edges, extraStates: flowStates,
            exploredStates: report.states, exploredTransitions: report.transitions, complete: report.complete,
            coverage: covered.mapValues { Array(Set($0)).sorted() })
    }

    private static func edge(_ from: String, _ label: String, _ to: String, _ kind: ProjectedEdge.Kind, _ entries: [EntryPosition]) -> StateGraph
        .Edge?
    {
        edge(from: from, label: label, to: to, kind: kind, entries: entries)
    }
}
