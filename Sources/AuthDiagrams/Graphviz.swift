/// Graphviz DOT, deterministic: nodes in sorted order, then edges in sorted order, so a diff of
/// two generations shows exactly what changed in the graph.
///
/// The initial state is pointed at by a dot; final states have a double border; failure edges are
/// red and dashed, timers dotted, launches blue; edges a documented flow takes are bold.
public enum Graphviz: Sendable {
    /// The `digraph` for `graph`, with `header` lines written as `//` comments.
    public static func render(_ graph: StateGraph, header: [String] = []) -> String {
        let ids = Identifiers(graph.states)
        var lines = header.map { "// " + $0 }
        lines.append("digraph \(quoted(graph.name)) {")
        lines.append("    label=\(quoted(graph.title + (graph.complete ? "" : " (bounded exploration)")));")
        lines.append("    labelloc=t;")
        lines.append("    fontname=\"Helvetica\";")
        lines.append("    rankdir=\(graph.states.count <= Mermaid.leftToRightUpTo ? "LR" : "TB");")
        lines.append("    node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11];")
        lines.append("    edge [fontname=\"Helvetica\", fontsize=9];")
        lines.append("    __start [shape=point, width=0.15, label=\"\"];")
        for state in graph.states {
            let final = graph.isFinal(state) ? ", peripheries=2" : ""
            lines.append("    \(ids[state]) [label=\(quoted(state))\(final)];")
        }
        lines.append("    __start -> \(ids[graph.initial]);")
        for edge in graph.mergedEdges {
            var attributes = ["label=\(quoted(wrapped(edge.compactLabels)))"]
            switch edge.kind {
            case .failure: attributes += ["color=\"#c62828\"", "fontcolor=\"#c62828\"", "style=dashed"]
            case .timer: attributes += ["style=dotted"]
            case .launch: attributes += ["color=\"#1565c0\"", "fontcolor=\"#1565c0\""]
            case .intent, .success: break
            }
            if edge.covered { attributes.append("penwidth=2.2") }
            lines.append("    \(ids[edge.from]) -> \(ids[edge.to]) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Labels one per line, long ones broken after a comma near 40 characters.
    static func wrapped(_ labels: [String]) -> String {
        labels.map { label in
            var lines: [String] = []
            var line = ""
            for part in label.split(separator: " ", omittingEmptySubsequences: false) {
                if !line.isEmpty, line.count + part.count > 40 {
                    lines.append(line)
                    line = ""
                }
                line += line.isEmpty ? String(part) : " " + part
            }
            lines.append(line)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A DOT string literal: quotes and backslashes escaped, line breaks as `\n`.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": break
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
