import AuthTestSupport
import Foundation
import Testing

/// Finds the dead references in the repository's Markdown: a relative link (or image) whose file
/// or folder does not exist, a link to a heading that is not there, and a repository path written
/// in code voice (`` `Sources/AuthCore/Machine/AuthMachine.swift` ``) or in plain prose
/// (Sources/AuthCore/Machine/AuthMachine.swift) that does not exist.
///
/// A link is resolved as GitHub resolves it, from the folder of the file that holds it; a path in
/// code voice or prose from the repository's root, and it counts as a path only when it begins
/// with one of the root's own entries (`Sources/…`, `Fixtures/…`, `README.md`) and holds no
/// placeholder (`Fixtures/<backend>/`, `StateDiagrams/*.dot`). Fenced code blocks are skipped;
/// URLs with a scheme and DocC's `<doc:…>` links are not files (DocC resolves its own links, and
/// `.ci/run docs` fails on one it cannot).
enum RepositoryLinks {
    /// The Markdown files the check must find, whatever else it finds: a walk that found fewer
    /// would pass by looking at nothing.
    static let required = [
        "README.md", "CONTRIBUTING.md", "BENCHMARKS.md", "StateDiagrams/README.md", "Fixtures/INDEX.md",
        "Sources/AuthRuntime/AuthRuntime.docc/Backends.md", "Fixtures/anonymousWall/README.md", "Fixtures/vynqTalk/README.md",
        "Fixtures/everday/README.md", "Fixtures/subspace/README.md", "Fixtures/hero365/README.md", "Fixtures/oidc/README.md",
    ]

    /// The DocC catalogs below `root` (`Sources/AuthCore/AuthCore.docc`), whose articles the walk
    /// must find too.
    static func catalogs(under root: URL) -> [String] {
        let sources = root.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        return modules.flatMap { module in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent(module).path)) ?? []
            return names.filter { $0.hasSuffix(".docc") }.map { "Sources/\(module)/\($0)" }
        }.sorted()
    }

    /// Every Markdown file below `root` (build products and Git's folder left out), relative to it.
    static func markdownFiles(under root: URL) -> [(path: String, text: String)] {
        OutsidePaths.textFiles(under: root).filter { $0.path.hasSuffix(".md") }.sorted { $0.path < $1.path }
    }

    /// Each dead reference in the Markdown files below `root`, as `file: reference (why)`.
    static func problems(under root: URL) -> [String] {
        markdownFiles(under: root).flatMap { file in problems(in: file.text, at: file.path, root: root).map { "\(file.path): \($0)" } }
    }

    /// Each dead reference in `text`, the Markdown file at `relativePath` below `root`.
    static func problems(in text: String, at relativePath: String, root: URL) -> [String] {
        let prose = Prose(text)
        let folder = relativePath.split(separator: "/").dropLast().joined(separator: "/")
        var found: [String] = []
        for target in prose.linkTargets {
            if let problem = problem(linking: target, from: folder, in: relativePath, text: text, root: root) {
                found.append("\(target) (\(problem))")
            }
        }
        let entries = topLevelEntries(of: root)
        for span in prose.codeSpans where isRepositoryPath(span, entries: entries) {
            if !exists(span, root: root) { found.append("`\(span)` (no such file or folder)") }
        }
        for word in prose.plainWords where isRepositoryPath(word, entries: entries) {
            if !exists(word, root: root) { found.append("\(word) (no such file or folder)") }
        }
        return found
    }

    /// Why the link `target` in the file at `path` (in `folder`) leads nowhere, or `nil` when it
    /// leads somewhere (or is no file link at all).
    private static func problem(linking target: String, from folder: String, in path: String, text: String, root: URL) -> String? {
        if target.hasPrefix("doc:") || target.hasPrefix("//") || target.range(of: #"^[A-Za-z][A-Za-z0-9+.-]*:"#, options: .regularExpression) != nil {
            return nil  // A URL, or a DocC link: not a file of the repository.
        }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let filePart = String(parts[0]).removingPercentEncoding ?? String(parts[0])
        let anchor = parts.count > 1 ? String(parts[1]) : nil
        let resolved: String
        if filePart.isEmpty {
            resolved = path  // `#heading` in the same file.
        } else if filePart.hasPrefix("/") {
            return "absolute: a repository link is relative"
        } else {
            guard let normalized = normalize(folder.isEmpty ? filePart : folder + "/" + filePart) else {
                return "leaves the repository"
            }
            resolved = normalized
        }
        guard exists(resolved, root: root) else { return "no such file or folder" }
        if let anchor, !anchor.isEmpty, resolved.hasSuffix(".md") {
            let target = resolved == path ? text : ((try? String(contentsOf: root.appendingPathComponent(resolved), encoding: .utf8)) ?? "")
            guard Prose(target).anchors.contains(anchor.lowercased()) else { return "no heading #\(anchor) in \(resolved)" }
        }
        return nil
    }

    /// `path` with `.` and `..` steps applied; `nil` when it climbs above the root.
    static func normalize(_ path: String) -> String? {
        var components: [Substring] = []
        for component in path.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !components.isEmpty else { return nil }
                components.removeLast()
            default: components.append(component)
            }
        }
        return components.joined(separator: "/")
    }

    /// Whether `path` (relative to `root`; the root itself when empty) names a file or folder.
    static func exists(_ path: String, root: URL) -> Bool {
        path.isEmpty || FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    /// The names at the root of the checkout, build products and Git's folder left out.
    static func topLevelEntries(of root: URL) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return Set(names.filter { !$0.hasPrefix(".build") && ![".git", ".swiftpm", ".index-build"].contains($0) })
    }

    /// Whether the code span `span` is a path into the repository: it starts with one of the
    /// root's entries and holds no space, placeholder or pattern.
    static func isRepositoryPath(_ span: String, entries: Set<String>) -> Bool {
        guard !span.isEmpty, span.rangeOfCharacter(from: CharacterSet(charactersIn: " \t\n<>{}[]()*?…=:,;|\"'`$")) == nil else { return false }
        let first = span.split(separator: "/", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return entries.contains(first) && (span.contains("/") || first.contains("."))
    }
}

/// A Markdown text read just far enough to find its links, code spans and headings: fenced code
/// blocks are skipped, and a link inside a code span is no link.
struct Prose {
    /// The targets of inline links and images (`[text](target)`) and of reference definitions
    /// (`[name]: target`), in order.
    private(set) var linkTargets: [String] = []
    /// The contents of the code spans, trimmed, in order.
    private(set) var codeSpans: [String] = []
    /// The words of the prose outside code spans and link targets, stripped of the punctuation
    /// and emphasis around them (`(Sources/AuthCore).` → `Sources/AuthCore`), in order.
    private(set) var plainWords: [String] = []
    /// The anchors GitHub gives the headings (`## The backends' contracts` → `the-backends-contracts`).
    private(set) var anchors: Set<String> = []

    init(_ text: String) {
        var outside: [Substring] = []  // The lines outside fenced code blocks.
        var fence: Substring?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = trimmed.prefix { $0 == trimmed.first }
                continue
            }
            outside.append(line)
            if let heading = trimmed.firstMatch(of: #/^#{1,6}[ \t]+(.*?)[ \t#]*$/#) {
                // GitHub numbers a repeated heading's anchor: `setup`, `setup-1`, `setup-2`.
                let anchor = Self.anchor(heading.output.1)
                var unique = anchor
                var repeats = 0
                while anchors.contains(unique) {
                    repeats += 1
                    unique = "\(anchor)-\(repeats)"
                }
                anchors.insert(unique)
            }
            if let match = trimmed.firstMatch(of: #/^\[[^\]]+\]:\s*(\S+)/#) { linkTargets.append(String(match.output.1)) }
        }
        // Split the remaining text into code spans and the rest (spans may cross a line break).
        let characters = Array(outside.joined(separator: "\n"))
        var plain = ""
        var index = 0
        while index < characters.count {
            guard characters[index] == "`" else {
                plain.append(characters[index])
                index += 1
                continue
            }
            var run = 0
            while index + run < characters.count, characters[index + run] == "`" { run += 1 }
            var close = index + run
            var closedAt: Int?
            while close < characters.count {
                if characters[close] == "`" {
                    var length = 0
                    while close + length < characters.count, characters[close + length] == "`" { length += 1 }
                    if length == run {
                        closedAt = close
                        break
                    }
                    close += length
                } else {
                    close += 1
                }
            }
            guard let closedAt else {
                plain += String(repeating: "`", count: run)  // An unmatched run is literal text.
                index += run
                continue
            }
            let content = String(characters[(index + run)..<closedAt]).replacingOccurrences(of: "\n", with: " ")
            codeSpans.append(content.trimmingCharacters(in: .whitespaces))
            plain += "code"  // Keeps `[`code`](target)` a link with text.
            index = closedAt + run
        }
        for match in plain.matches(of: #/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/#) {
            linkTargets.append(String(match.output.1))
        }
        // The prose without link targets and reference definitions, whose targets are checked
        // as links above.
        let prose = plain.replacing(#/\]\(\s*<?[^)\s>]+>?(?:\s+"[^"]*")?\s*\)/#, with: "]")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.drop { $0 == " " }.firstMatch(of: #/^\[[^\]]+\]:\s*\S+/#) == nil }
        for word in prose.joined(separator: "\n").split(whereSeparator: \.isWhitespace) {
            // A leading dot stays (`.ci/run`); a trailing one ends a sentence.
            let stripped = word.drop { "([{\"'*_".contains($0) }.reversed().drop { ")]}\"'*_.,;:!?".contains($0) }.reversed()
            if !stripped.isEmpty { plainWords.append(String(stripped)) }
        }
    }

    /// GitHub's anchor for a heading's text: lowercased, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: Substring) -> String {
        let text = heading.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "").lowercased()
        return String(
            text.unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
                return nil
            })
    }
}

@Suite("the repository's links and paths resolve")
struct RepositoryLinkTests {
    @Test("every relative link, heading link and path in code voice or prose in the repository's Markdown resolves")
    func everyLinkResolves() {
        let files = RepositoryLinks.markdownFiles(under: Checkout.root).map(\.path)
        for required in RepositoryLinks.required {
            #expect(files.contains(required), "the walk did not find \(required)")
        }
        let catalogs = RepositoryLinks.catalogs(under: Checkout.root)
        #expect(catalogs.count >= 4, "found the DocC catalogs \(catalogs)")
        for catalog in catalogs {
            #expect(files.contains { $0.hasPrefix(catalog + "/") }, "the walk found no article of \(catalog)")
        }
        let problems = RepositoryLinks.problems(under: Checkout.root)
        #expect(problems.isEmpty, "dead references:\n\(problems.joined(separator: "\n"))")
    }

    @Test(
        "the check reports a dead link, a missing heading, a link out of the repository and a dead path in code voice or prose; it passes live ones",
        arguments: [
            ("README.md", "See [the session](Sources/AuthCore/Lifecycles/Session.swift).", true),
            ("README.md", "![diagram](StateDiagrams/missing.svg)", true),
            ("README.md", "[contracts](CONTRIBUTING.md#the-backends-contract)", true),
            ("StateDiagrams/README.md", "[up](../../README.md)", true),
            ("Fixtures/INDEX.md", "[Everday](#everdays-api)\n\n## Everday", true),
            ("CONTRIBUTING.md", "the models (`Sources/AuthVerification/Model/Registry.swift`)", true),
            ("README.md", "[unused]: Sources/Nowhere", true),
            ("README.md", "The session is in Sources/AuthCore/Lifecycles/Session.swift.", true),
            ("Sources/AuthRuntime/AuthRuntime.docc/Backends.md", "described in (Fixtures/everday/API.md)", true),
            ("CONTRIBUTING.md", "**Tests/AuthCoreTests/Nowhere/**: none", true),
            ("CONTRIBUTING.md", "Run .ci/check first.", true),
            ("README.md", "See [the session](Sources/AuthCore/Lifecycles/Session/SessionLifecycle.swift).", false),
            ("README.md", "[contracts](CONTRIBUTING.md#the-backends-contracts), [license](LICENSE)", false),
            ("StateDiagrams/README.md", "[readme](../README.md) and [Everday](#everday)\n\n## Everday", false),
            ("README.md", "`Fixtures/<backend>/README.md`, `StateDiagrams/*.dot`, `.build/documentation/`, `/api/v1/auth/login`", false),
            ("README.md", "[site](https://www.swift.org), <doc:Backends>, [symbol](doc:AuthRunner)", false),
            ("README.md", "```sh\ncat Sources/Nowhere/file.swift\n```\n", false),
            ("README.md", "`` [not a link](Sources/Nowhere) ``", false),
            ("README.md", "The example (Sources/Examples/SubspaceExample) runs; see BENCHMARKS.md.", false),
            ("README.md", "[Sources/AuthCore](Sources/AuthCore), https://example.com/Sources/Nowhere, Sources/<module>/", false),
            ("README.md", "Sources and Tests, Fixtures: plain words", false),
            ("CONTRIBUTING.md", "Run .ci/run docs first.", false),
        ])
    func checkCanFail(_ path: String, _ text: String, _ dead: Bool) {
        let problems = RepositoryLinks.problems(in: text, at: path, root: Checkout.root)
        #expect(problems.isEmpty == !dead, "\(path): \(text) → \(problems)")
    }

    @Test("a dead link planted in a repository is reported by the whole walk, naming the file; without it the walk passes")
    func plantedDeadLinkIsFound() throws {
        try TemporaryDirectory.with { scratch in
            try FileManager.default.createDirectory(at: scratch.appendingPathComponent("Sources"), withIntermediateDirectories: true)
            try Data("Apache License 2.0\n".utf8).write(to: scratch.appendingPathComponent("LICENSE"))
            try Data("# Package\n\nSee [`LICENSE`](LICENSE) and `Sources/`.\n".utf8).write(to: scratch.appendingPathComponent("README.md"))
            #expect(RepositoryLinks.problems(under: scratch).isEmpty)
            try Data("# Sources\n\n[the package](../README.md#package), [gone](Gone.swift), see Sources/Gone/\n".utf8)
                .write(to: scratch.appendingPathComponent("Sources/README.md"))
            #expect(
                RepositoryLinks.problems(under: scratch) == [
                    "Sources/README.md: Gone.swift (no such file or folder)", "Sources/README.md: Sources/Gone/ (no such file or folder)",
                ])
        }
    }
}
