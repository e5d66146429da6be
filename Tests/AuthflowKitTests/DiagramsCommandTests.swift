import AuthTestSupport
import AuthflowKit
import Foundation
import Testing

/// Runs `authflow` in-process and keeps what it printed.
struct CommandRun {
    var status: Int32
    var out: [String]
    var err: [String]

    init(_ words: [String]) {
        var out: [String] = []
        var err: [String] = []
        status = Authflow.run(words, out: { out.append($0) }, err: { err.append($0) })
        self.out = out
        self.err = err
    }
}

/// The checkout's `StateDiagrams/`, and scratch folders.
enum Folders {
    static let committed = Checkout.stateDiagrams

    /// A fresh empty folder, removed by `body`'s end.
    static func scratch<T>(_ body: (URL) throws -> T) throws -> T { try TemporaryDirectory.with(body) }

    /// The names of the files in `folder`.
    static func names(_ folder: URL) throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) }
}

@Suite("authflow diagrams")
struct DiagramsCommandTests {
    @Test("`authflow diagrams --check` exits 0 on the committed StateDiagrams folder")
    func checkCommittedFolder() {
        let run = CommandRun(["diagrams", "--check", "--output", Folders.committed.path])
        #expect(run.status == 0, "\(run.err.joined(separator: "\n"))")
        #expect(run.out.last?.hasPrefix("✓") == true)
    }

    @Test("`authflow diagrams --check` exits 1 and names every file that differs, is missing, or is no longer generated")
    func checkNamesStaleFiles() throws {
        try Folders.scratch { folder in
            for name in try Folders.names(Folders.committed) where !name.hasSuffix(".svg") {
                try FileManager.default.copyItem(at: Folders.committed.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            }
            let dot = folder.appendingPathComponent("codeRegistration.dot")
            let edited = try String(decoding: Data(contentsOf: dot), as: UTF8.self).replacingOccurrences(of: "submitEmail", with: "submitMail")
            try Data(edited.utf8).write(to: dot)
            try FileManager.default.removeItem(at: folder.appendingPathComponent("oauthSignIn.scxml"))
            try Data("stateDiagram-v2\n".utf8).write(to: folder.appendingPathComponent("retired.mmd"))
            let run = CommandRun(["diagrams", "--check", "--output", folder.path])
            #expect(run.status == 1)
            let stale = run.err.filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(stale == ["codeRegistration.dot (differs)", "oauthSignIn.scxml (missing)", "retired.mmd (unexpected)"])
        }
    }

    @Test("`authflow diagrams --format mermaid` writes only Mermaid files and the index, and a check of that format passes")
    func writeOneFormat() throws {
        try Folders.scratch { folder in
            let write = CommandRun(["diagrams", "--output", folder.path, "--format", "mermaid"])
            #expect(write.status == 0)
            let names = try Folders.names(folder)
            #expect(names.contains("README.md"))
            #expect(names.contains("codeRegistration.mmd"))
            #expect(names.allSatisfy { $0 == "README.md" || $0.hasSuffix(".mmd") }, "\(names.sorted())")
            #expect(CommandRun(["diagrams", "--check", "--format", "mermaid", "--output", folder.path]).status == 0)
            #expect(CommandRun(["diagrams", "--check", "--output", folder.path]).status == 1)
            #expect(CommandRun(["diagrams", "--output", folder.path, "--format", "mermaid"]).out.last?.hasSuffix(", 0 changed") == true)
        }
    }

    @Test("an unknown --format or a model name is refused with status 64")
    func refusals() {
        #expect(CommandRun(["diagrams", "--format", "png", "--check"]).status == 64)
        #expect(CommandRun(["diagrams", "session.everday"]).status == 64)
    }

    @Test("the usage text documents the diagrams command")
    func usage() {
        #expect(Authflow.usage.contains("authflow diagrams [--output DIR] [--format mermaid|dot|scxml|all] [--check]"))
    }

    @Test("every committed DOT file renders with dot -Tsvg", .enabled(if: GraphvizTool.executable() != nil, "Graphviz's dot is not on the PATH"))
    func dotRenders() throws {
        let dots = try Folders.names(Folders.committed).filter { $0.hasSuffix(".dot") }.sorted()
        #expect(dots.count >= 19)
        try Folders.scratch { folder in
            let dot = try #require(GraphvizTool.executable())
            for name in dots {
                let target = folder.appendingPathComponent(name + ".svg").path
                let problem = GraphvizTool.renderSVG(dot: dot, source: Folders.committed.appendingPathComponent(name).path, target: target)
                #expect(problem == nil, "\(name): \(problem ?? "")")
                let svg = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: target))) ?? Data(), as: UTF8.self)
                #expect(svg.contains("<svg"), "\(name) rendered no SVG")
            }
        }
    }

    @Test(
        "writing renders an .svg beside every .dot where Graphviz is installed",
        .enabled(if: GraphvizTool.executable() != nil, "Graphviz's dot is not on the PATH"))
    func writeRendersSVG() throws {
        try Folders.scratch { folder in
            let run = CommandRun(["diagrams", "--output", folder.path])
            #expect(run.status == 0, "\(run.err.joined(separator: "\n"))")
            let names = try Folders.names(folder)
            for dot in names where dot.hasSuffix(".dot") {
                #expect(names.contains(String(dot.dropLast(4)) + ".svg"), "no SVG for \(dot)")
            }
        }
    }

    @Test("a bad dot source is reported, not ignored", .enabled(if: GraphvizTool.executable() != nil, "Graphviz's dot is not on the PATH"))
    func badDotReported() throws {
        try Folders.scratch { folder in
            let source = folder.appendingPathComponent("bad.dot")
            try Data("digraph { a -> }".utf8).write(to: source)
            let dot = try #require(GraphvizTool.executable())
            #expect(GraphvizTool.renderSVG(dot: dot, source: source.path, target: folder.appendingPathComponent("bad.svg").path) != nil)
        }
    }

    @Test("dot is found on the PATH without a shell, and not found where it is not")
    func findsDot() {
        #expect(GraphvizTool.executable(path: "/nonexistent:/also-not-here") == nil)
        if let dot = GraphvizTool.executable() { #expect(dot.hasSuffix("/dot")) }
    }
}
