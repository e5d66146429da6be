/// Graphviz DOT, deterministic: nodes in sorted order, then edges in sorted order, so a diff of
/// two generations shows exactly what changed in the graph.
///
/// The initial state is pointed at by a dot; final states have a double border; failure edges are
/// red and dashed, timers dotted, launches blue; edges a documented flow takes are bold. A legend
/// box shows each style, and each failure list several arrows share (`F1 = …`), which they carry
/// by its name.
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
        let shared = graph.sharedFailures
        for edge in graph.mergedEdges {
            var attributes = ["label=\(quoted(wrapped(graph.drawnLabels(edge, shared: shared))))"]
            switch edge.kind {
            case .failure: attributes += ["color=\"#c62828\"", "fontcolor=\"#c62828\"", "style=dashed"]
            case .timer: attributes += ["style=dotted"]
            case .launch: attributes += ["color=\"#1565c0\"", "fontcolor=\"#1565c0\""]
            case .intent, .success: break
            }
            if edge.covered { attributes.append("penwidth=2.2") }
            lines.append("    \(ids[edge.from]) -> \(ids[edge.to]) [\(attributes.joined(separator: ", "))];")
        }
        lines += legend(shared)
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The legend: a box with an arrow of each style, labelled with what it stands for, and the
    /// shared failure lists.
    static func legend(_ shared: [SharedFailures]) -> [String] {
        let styles: [(String, String)] = [
            ("user intent or server answer", ""), ("failed answer", ", color=\"#c62828\", fontcolor=\"#c62828\", style=dashed"),
            ("timer", ", style=dotted"), ("app launch", ", color=\"#1565c0\", fontcolor=\"#1565c0\""),
            ("documented flow", ", penwidth=2.2"),
        ]
        var lines = [
            "    subgraph cluster_legend {",
            "        label=\"Legend\"; fontsize=9; style=rounded; color=\"#9e9e9e\";",
            "        node [shape=point, width=0.05, label=\"\"];",
        ]
        for (index, style) in styles.enumerated() {
            lines.append("        __legend\(index)a -> __legend\(index)b [label=\(quoted(style.0))\(style.1)];")
        }
        if !shared.isEmpty {
            let text = shared.map { wrapped([$0.legend], width: 60).replacingOccurrences(of: "\n", with: "\\l    ") + "\\l" }.joined()
            lines.append("        __legendFailures [shape=plaintext, fontsize=9, label=\"\(text.replacingOccurrences(of: "\"", with: "\\\""))\"];")
        }
        lines.append("    }")
        return lines
    }

    /// Labels one per line, long ones broken after a comma near `width` characters.
    static func wrapped(_ labels: [String], width: Int = 40) -> String {
        labels.map { label in
            var lines: [String] = []
            var line = ""
            for part in label.split(separator: " ", omittingEmptySubsequences: false) {
                if !line.isEmpty, line.count + part.count > width {
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
