/// Identifiers for case paths that every format accepts: Mermaid ids (no spaces, `-`, `.` or `:`),
/// Graphviz ids, and SCXML state ids (XML `NCName`s).
///
/// A case path's words are joined with `_` (`signedIn.(active + connected)` →
/// `signedIn_active_connected`), so ids stay readable in diffs. Distinct paths that would collide,
/// and words the formats reserve, get a numeric suffix, assigned in sorted order so that the same
/// graph always gets the same ids.
public struct Identifiers: Hashable, Sendable {
    /// Words Mermaid's state-diagram grammar or Graphviz reserve.
    public static let reserved: Set<String> = [
        "state", "note", "end", "direction", "class", "classDef", "style", "click", "graph", "digraph", "node", "edge",
        "subgraph", "strict", "default", "TB", "BT", "LR", "RL", "as",
    ]

    private var ids: [String: String] = [:]

    /// Identifiers for `paths` (plus the start marker's, which is never a case path).
    public init(_ paths: [String]) {
        var used: Set<String> = ["__start"]
        for path in paths.sorted() where ids[path] == nil {
            let base = Self.base(path)
            var candidate = base
            var suffix = 2
            while used.contains(candidate) || Self.reserved.contains(candidate) {
                candidate = "\(base)_\(suffix)"
                suffix += 1
            }
            used.insert(candidate)
            ids[path] = candidate
        }
    }

    /// The id of `path`.
    public subscript(_ path: String) -> String { ids[path] ?? Self.base(path) }

    /// ASCII letters and digits; every other run of characters becomes one `_`; never starts with a digit.
    static func base(_ path: String) -> String {
        var result = ""
        var pendingSeparator = false
        for scalar in path.unicodeScalars {
            let isWordCharacter = scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
            if isWordCharacter {
                if pendingSeparator, !result.isEmpty { result += "_" }
                pendingSeparator = false
                result.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        if result.isEmpty { return "unnamed" }
        if let first = result.unicodeScalars.first, ("0"..."9").contains(first) { return "s_" + result }
        return result
    }

    /// Whether `id` is valid for GitHub's Mermaid renderer and as an XML `NCName`: an ASCII letter or
    /// `_` first, then letters, digits and `_` only.
    public static func isValid(_ id: String) -> Bool {
        guard let first = id.unicodeScalars.first, first.isASCII, first == "_" || first.properties.isAlphabetic else { return false }
        return id.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
            && !reserved.contains(id)
    }
}
