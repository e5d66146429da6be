/// Mermaid `stateDiagram-v2`, as GitHub renders it in Markdown.
///
/// Every state is declared as `state "case.path" as id` with an id GitHub's renderer accepts;
/// `[*]` marks the initial state and the final ones; parallel edges of one kind are merged into
/// one arrow; failure edges are labelled `✗ failed(…)` (state diagrams cannot style an arrow).
/// A note by the initial state is the legend: how arrows are labelled, and each failure list
/// several arrows share (`F1 = …`), which they carry by its name.
public enum Mermaid: Sendable {
    /// Graphs with at most this many states read better left to right.
    public static let leftToRightUpTo = 14

    /// The diagram for `graph`, with `header` lines written as `%%` comments.
    public static func render(_ graph: StateGraph, header: [String] = []) -> String {
        let ids = Identifiers(graph.states)
        var lines = header.map { "%% " + $0 }
        lines.append("stateDiagram-v2")
        if graph.states.count <= leftToRightUpTo { lines.append("    direction LR") }
        for state in graph.states {
            lines.append("    state \"\(label(state))\" as \(ids[state])")
        }
        lines.append("    [*] --> \(ids[graph.initial])")
        let shared = graph.sharedFailures
        for edge in graph.mergedEdges {
            lines.append("    \(ids[edge.from]) --> \(ids[edge.to]) : \(label(graph.drawnText(edge, shared: shared)))")
        }
        for state in graph.finals {
            lines.append("    \(ids[state]) --> [*]")
        }
        lines.append("    note right of \(ids[graph.initial])")
        for line in legend + shared.flatMap({ Graphviz.wrapped([$0.legend], width: 60).components(separatedBy: "\n") }) {
            lines.append("        " + label(line))
        }
        lines.append("    end note")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The legend's lines before the shared failure lists.
    public static let legend = [
        "Legend - an arrow is labelled with its event",
        "a user intent or a server answer, by its case",
        "✗ a failed answer, tick a timer, launched(…) an app launch",
    ]

    /// Text safe inside a state label or after a transition's `:`: no quotes, colons, semicolons,
    /// `#` (entity codes), `%` (comments), or line breaks.
    public static func label(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\"": result += "'"
            case ":", ";", "#", "%", "\n", "\r", "{", "}", "<", ">": result += " "
            default: result.append(character)
            }
        }
        return result
    }
}
