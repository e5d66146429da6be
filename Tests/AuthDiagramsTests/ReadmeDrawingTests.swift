import AuthCore
import AuthDiagrams
import AuthTestSupport
import AuthVerification
import Foundation
import Testing

/// The README's "Drawing your own composition" snippet, compiled here: ``draw(_:into:)`` holds its
/// lines between the markers, and a test checks that the README's code block is those lines.
@Suite("README: drawing your own composition")
struct ReadmeDrawingTests {
    /// The README's snippet, run on `model` (an app's composition), writing into `folder`.
    static func draw<M: LifecycleModel>(_ model: M, into folder: String) throws {
        // README snippet begins
        let graph = StateGraph(report: Explorer.explore(model))  // `model`: your composition's Model, as above
        try Mermaid.render(graph).write(toFile: "\(folder)/MyApp.mmd", atomically: true, encoding: .utf8)
        try Graphviz.render(graph).write(toFile: "\(folder)/MyApp.dot", atomically: true, encoding: .utf8)  // dot -Tsvg
        try SCXML.render(graph).write(toFile: "\(folder)/MyApp.scxml", atomically: true, encoding: .utf8)
        // README snippet ends
    }

    /// The snippet's lines as this file holds them.
    static var compiledLines: [String] {
        get throws {
            let source = try String(contentsOfFile: #filePath, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(source.firstIndex { $0.hasSuffix("// README snippet begins") })
            let end = try #require(source.firstIndex { $0.hasSuffix("// README snippet ends") })
            return source[(start + 1)..<end].map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The code block under the README's "Drawing your own composition" heading.
    static var readmeLines: [String] {
        get throws {
            let readme = try String(contentsOf: Checkout.root.appendingPathComponent("README.md"), encoding: .utf8)
            let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let heading = try #require(lines.firstIndex(of: "## Drawing your own composition"))
            let open = try #require(lines[heading...].firstIndex(of: "```swift"))
            let close = try #require(lines[(open + 1)...].firstIndex(of: "```"))
            return lines[(open + 1)..<close].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("import ") && !$0.isEmpty }
        }
    }

    @Test("the README's drawing snippet is the code compiled here, line for line")
    func readmeMatches() throws {
        #expect(try Self.readmeLines == Self.compiledLines)
    }

    @Test("the snippet draws a composition: Mermaid, DOT and SCXML files naming its cases")
    func draws() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readme-drawing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.draw(Models.vynqTalkApp(), into: folder.path)
        let mermaid = try String(contentsOf: folder.appendingPathComponent("MyApp.mmd"), encoding: .utf8)
        let dot = try String(contentsOf: folder.appendingPathComponent("MyApp.dot"), encoding: .utf8)
        let scxml = try String(contentsOf: folder.appendingPathComponent("MyApp.scxml"), encoding: .utf8)
        #expect(mermaid.hasPrefix("stateDiagram-v2"))
        #expect(dot.contains("digraph"))
        #expect(scxml.contains("<scxml"))
        for text in [mermaid, dot, scxml] { #expect(text.contains("signedIn"), "\(text.prefix(200))") }
    }
}
