/// W3C SCXML (`http://www.w3.org/2005/07/scxml`, version 1.0), so statechart tools can import a
/// lifecycle.
///
/// One `<transition event=… target=…>` per edge (not merged); event names use SCXML's dotted
/// form (`failed(network)` → `failed.network`, so the descriptor `failed` matches every failure);
/// the event's kind is kept in an attribute of AuthCore's own namespace, which SCXML processors
/// ignore. A final case with no way out is a `<final>`; one that can still be left stays a
/// `<state>` (SCXML's `<final>` has no transitions). Every value is XML-escaped.
public enum SCXML: Sendable {
    /// SCXML's namespace.
    public static let namespace = "http://www.w3.org/2005/07/scxml"
    /// The namespace of the `kind` attribute on transitions.
    public static let authCoreNamespace = "urn:authcore:diagrams"

    /// The document for `graph`, with `header` lines written as one XML comment.
    public static func render(_ graph: StateGraph, header: [String] = []) -> String {
        let ids = Identifiers(graph.states)
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        if !header.isEmpty {
            lines.append("<!--")
            lines += header.map { "  " + comment($0) }
            lines.append("-->")
        }
        lines.append(
            "<scxml xmlns=\"\(namespace)\" xmlns:authcore=\"\(authCoreNamespace)\" version=\"1.0\" name=\"\(escape(graph.name))\" initial=\"\(escape(ids[graph.initial]))\">"
        )
        for state in graph.states {
            let outgoing = graph.edges.filter { $0.from == state }
            if graph.isFinal(state), outgoing.isEmpty {
                lines.append("  <final id=\"\(escape(ids[state]))\"/>")
                continue
            }
            if outgoing.isEmpty {
                lines.append("  <state id=\"\(escape(ids[state]))\"/>")
                continue
            }
            lines.append("  <state id=\"\(escape(ids[state]))\">")
            for edge in outgoing {
                lines.append(
                    "    <transition event=\"\(escape(eventName(edge.label)))\" target=\"\(escape(ids[edge.to]))\" authcore:kind=\"\(edge.kind.rawValue)\"/>"
                )
            }
            lines.append("  </state>")
        }
        lines.append("</scxml>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// SCXML's dotted event name for a label: `failed(network)` → `failed.network`,
    /// `launched(stored)` → `launched.stored`; other characters become `_`.
    public static func eventName(_ label: String) -> String {
        var result = ""
        for scalar in label.unicodeScalars {
            let isWord = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            if isWord {
                result.unicodeScalars.append(scalar)
            } else if scalar == "(" || scalar == "." {
                if !result.hasSuffix(".") { result += "." }
            } else if scalar == ")" {
                continue
            } else if !result.hasSuffix("_") {
                result += "_"
            }
        }
        while result.hasSuffix(".") || result.hasSuffix("_") { result.removeLast() }
        return result.isEmpty ? "event" : result
    }

    /// `&`, `<`, `>`, `"` and `'` as entities.
    public static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// Text safe inside an XML comment (no `--`).
    static func comment(_ text: String) -> String {
        var result = text
        while result.contains("--") { result = result.replacing("--", with: "- -") }
        return result
    }
}
