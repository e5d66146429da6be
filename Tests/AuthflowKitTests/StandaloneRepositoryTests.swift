import AuthTestSupport
import Foundation
import Testing

/// Finds references to paths outside the repository in its text files: a relative path whose
/// `..` steps climb above the repository's root (such as the shared folder beside a checkout),
/// and absolute paths into home or work directories. A person who clones the repository has none
/// of those.
enum OutsidePaths {
    /// The shared folder beside the checkout, spelled in two pieces so this file does not name it.
    static let sharedFolder = ".." + "/shared"

    /// Absolute paths no clone has (built from their names, so this file does not contain them).
    static let absolutePrefixes = ["work", "home", "Users", "root"].map { "/" + $0 + "/" }

    /// Each reference to a path outside `root` in `text`, the text of the file at `relativePath`
    /// (from the root, e.g. `Sources/AuthCore/X.swift`).
    static func references(in text: String, at relativePath: String) -> [String] {
        var found: [String] = []
        if text.contains(sharedFolder) { found.append(sharedFolder) }
        // Depth of the file's folder below the root: how many `..` it may climb and stay inside.
        let depth = relativePath.split(separator: "/").count - 1
        for match in text.matches(of: #/(?:\.\./)+/#) {
            let climbs = match.output.count / 3
            if climbs > depth { found.append(String(text[match.range.lowerBound...].prefix(40))) }
        }
        for prefix in absolutePrefixes {
            var rest = text[...]
            while let range = rest.range(of: prefix) {
                // Only a path: the prefix starts the text or follows a space, quote, bracket or backtick.
                let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
                if before == nil || " \t\n\"'`([<=:".contains(before!) { found.append(String(text[range.lowerBound...].prefix(40))) }
                rest = rest[range.upperBound...]
            }
        }
        return found
    }

    /// The patterns of names only the authors' private notes have: a numbered source document,
    /// its file name (three digits, `_`, sixteen hex digits) and a design notes file. Each is
    /// spelled in pieces so this file does not match them. The repository names a backend's
    /// document as "Everday's API document" and summarises it in `Fixtures/<backend>/README.md`.
    static let privateNames = ["se" + "ed [0-9]{3}", "[0-9]{3}_[0-9a-f]{16}" + "\\.txt", "DES" + "IGN\\.md"]

    /// Each name from `privateNames` in `text`.
    static func privateReferences(in text: String) throws -> [String] {
        try privateNames.flatMap { pattern in try text.matches(of: Regex(pattern)).map { String(text[$0.range]) } }
    }

    /// Every text file of the checkout below `root`, relative to it: build products, Swift
    /// Package Manager's state and Git's folder left out, as a clean clone has none of them.
    static func textFiles(under root: URL) -> [(path: String, text: String)] {
        let skipped: Set<String> = [".git", ".swiftpm", ".build", ".index-build"]
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker {
            let name = url.lastPathComponent
            let isDirectory = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isDirectory {
                if skipped.contains(name) || name.hasPrefix(".build") { walker.skipDescendants() }
                continue
            }
            if name == ".git" { continue }  // A worktree's `.git` is a file naming the repository it belongs to.
            guard let data = try? Data(contentsOf: url), !data.contains(0), let text = String(data: data, encoding: .utf8) else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            files.append((relative, text))
        }
        return files
    }
}

@Suite("the repository stands alone")
struct StandaloneRepositoryTests {
    @Test("no text file in the repository refers to the shared folder beside it or to another path outside it")
    func noPathOutside() {
        let files = OutsidePaths.textFiles(under: Checkout.root)
        #expect(
            files.contains { $0.path == "README.md" } && files.contains { $0.path == "CONTRIBUTING.md" } && files.contains { $0.path == ".ci/run" })
        #expect(files.count > 100, "the walk found only \(files.count) files")
        let offending = files.flatMap { file in OutsidePaths.references(in: file.text, at: file.path).map { "\(file.path): \($0)" } }
        #expect(offending.isEmpty, "\(offending.joined(separator: "\n"))")
    }

    @Test("no text file in the repository names a document only its authors have")
    func noPrivateNames() throws {
        let files = OutsidePaths.textFiles(under: Checkout.root)
        #expect(files.count > 100, "the walk found only \(files.count) files")
        var offending: [String] = []
        for file in files {
            offending += try OutsidePaths.privateReferences(in: file.text).map { "\(file.path): \($0)" }
        }
        #expect(offending.isEmpty, "\(offending.joined(separator: "\n"))")
    }

    @Test(
        "the check for private names catches a numbered document, its file name and a design file; it lets a fuzz seed and an API document pass",
        arguments: [
            ("/// as " + "se" + "ed 002 documents it", true),
            ("see `002_84b84fbf" + "05aff65e.txt`", true),
            ("source: \"" + "DES" + "IGN.md, Logout\"", true),
            ("/// as Everday's API document describes it; fuzz seed 0x2a, seed 42", false),
            ("design notes in CONTRIBUTING.md", false),
        ])
    func privateNamesCanFail(_ text: String, _ named: Bool) throws {
        #expect(try OutsidePaths.privateReferences(in: text).isEmpty == !named, "\(text)")
    }

    @Test(
        "the check catches the shared folder, a link climbing above the root, and a home directory; it lets a link within the repository pass",
        arguments: [
            ("README.md", "Read [the notes](" + OutsidePaths.sharedFolder + "/NOTES.md).", true),
            ("Sources/AuthCore/X.swift", "/// see `" + OutsidePaths.sharedFolder + "/documents/`", true),
            ("StateDiagrams/README.md", "[up](../../other/README.md)", true),
            ("CONTRIBUTING.md", "cd " + OutsidePaths.absolutePrefixes[0] + "main && swift test", true),
            ("Sources/AuthCore/X.swift", "let x = \"" + OutsidePaths.absolutePrefixes[1] + "someone/file\"", true),
            ("StateDiagrams/README.md", "[readme](../README.md)", false),
            ("Sources/AuthCore/Apps/X.swift", "// ../../Lifecycles/Session", false),
            ("README.md", "[fixtures](Fixtures/INDEX.md), /api/v1/auth/login", false),
        ])
    func checkCanFail(_ path: String, _ text: String, _ outside: Bool) {
        #expect(OutsidePaths.references(in: text, at: path).isEmpty == !outside, "\(path): \(text)")
    }
}
