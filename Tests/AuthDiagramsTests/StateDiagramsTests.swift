import AuthCore
import AuthDiagrams
import AuthTestSupport
import AuthVerification
import Foundation
import Testing

@Suite("StateDiagrams/ is what the code generates", .timeLimit(.minutes(15)))
struct StateDiagramsTests {
    static let allFormats = Set(DiagramFormat.allCases)

    @Test("the committed StateDiagrams folder is exactly what the code generates (the check `authflow diagrams --check` makes)")
    func committedFolderIsGenerated() async throws {
        let generated = await Committed.generated
        let stale = try Committed.folder.check(generated.files(), formats: Self.allFormats)
        #expect(stale.isEmpty, "stale: \(stale.map(\.description).joined(separator: ", ")) — run `swift run authflow diagrams`")
    }

    @Test("every diagram has a Mermaid, a DOT and an SCXML file, and the index embeds its Mermaid", arguments: Committed.diagramNames)
    func everyDiagramHasEveryFormat(_ name: String) async throws {
        let generated = await Committed.generated
        let files = generated.files()
        for format in DiagramFormat.allCases {
            #expect(files.contains { $0.path == "\(name).\(format.fileExtension)" }, "no \(name).\(format.fileExtension)")
        }
        let index = try #require(files.first { $0.path == "README.md" })
        let diagram = try #require(generated.diagram(named: name))
        #expect(index.contents.contains("```mermaid\n" + Mermaid.render(diagram.graph)))
    }

    @Test("a graph with one edge removed makes the check fail, naming the diagram's files", arguments: Committed.diagramNames)
    func removedEdgeIsStale(_ name: String) async throws {
        let generated = await Committed.generated
        let diagram = try #require(generated.diagram(named: name))
        let edge = try #require(diagram.graph.edges.last)
        let changed = generated.changing(name) { $0.removing(edge) }
        let stale = staleFiles(expected: changed.files(), existing: try Committed.files(), formats: Self.allFormats)
        #expect(Set(stale) == Set(["\(name).mmd", "\(name).dot", "\(name).scxml", "README.md"].map { StaleFile(path: $0, reason: .differs) }))
    }

    @Test("the full-bounds check names what a lifecycle diagram lacks of a wider exploration, and nothing when it lacks nothing")
    func fullBoundsCheckNamesMissingEdges() async throws {
        let generated = await Committed.generated
        #expect(generated.missing(comparedTo: generated).isEmpty)
        let diagram = try #require(generated.diagram(named: "session.everday"))
        let edge = try #require(diagram.graph.edges.last)
        let narrower = generated.changing("session.everday") { $0.removing(edge) }
        let missing = narrower.missing(comparedTo: generated)
        #expect(missing.map(\.diagram) == ["session.everday"])
        #expect(missing.first?.missing == ["edge \(edge.from) —\(edge.label)→ \(edge.to)"])
    }

    @Test("verify --diagrams names what a drawn diagram lacks of its own exploration at 4/2, and nothing when it lacks nothing")
    func diagramsCheckedAgainstVerifyReports() async throws {
        let generated = await Committed.generated
        let full = Models.fullBounds
        let shipped = try #require(Models.lifecycles.first { $0.name == "codeRegistration" })
        let report = shipped.bounded(inFlight: full.inFlight, stale: full.stale).explore()
        #expect(report.passed)
        #expect(generated.missing(comparedTo: [report]).isEmpty)
        let diagram = try #require(generated.diagram(named: "codeRegistration"))
        let edge = try #require(diagram.graph.edges.first)
        let narrower = generated.changing("codeRegistration") { $0.removing(edge) }
        let missing = narrower.missing(comparedTo: [report])
        #expect(missing.map(\.diagram) == ["codeRegistration"])
        #expect(missing.first?.missing == ["edge \(edge.from) —\(edge.label)→ \(edge.to)"])
    }

    @Test("a graph with one edge added makes the check fail, naming the diagram's files")
    func addedEdgeIsStale() async throws {
        let generated = await Committed.generated
        let changed = generated.changing("codeRegistration") {
            $0.adding(StateGraph.Edge(from: "registered", label: "logout", to: "enteringEmail", kind: .intent))
        }
        let stale = staleFiles(expected: changed.files(), existing: try Committed.files(), formats: Self.allFormats)
        #expect(stale.map(\.path).sorted() == ["README.md", "codeRegistration.dot", "codeRegistration.mmd", "codeRegistration.scxml"])
    }

    @Test("a deliberately altered model (no new code can be requested) makes the check fail and names its files")
    func alteredModelIsStale() throws {
        let machine = CodeRegistration(resendCooldown: .seconds(60))
        let altered = Model(
            name: "codeRegistration", machine: machine, replies: ReplyCatalogue(), finalCases: ["registered"],
            unreachableByDesign: ["CodeRegistration.Phase.resendingCode": "this test removed the intent"]
        ) { _ in Menus.codeRegistration.filter { $0 != .requestNewCode } }
        let entry = try #require(DiagramCatalogue.standard.lifecycles.first { $0.name == "codeRegistration" })
        let catalogue = DiagramCatalogue(
            lifecycles: [
                DiagramCatalogue.LifecycleEntry(model: AnyModel(altered), backends: entry.backends, draws: entry.draws, subject: entry.subject)
            ], compositions: [])
        let files = DiagramSet.explore(catalogue).files().filter { $0.format != nil }
        let stale = staleFiles(expected: files, existing: try Committed.files(), formats: Self.allFormats).filter { $0.reason == .differs }
        #expect(stale.map(\.path) == ["codeRegistration.dot", "codeRegistration.mmd", "codeRegistration.scxml"])
        let mermaid = try #require(files.first { $0.path == "codeRegistration.mmd" })
        #expect(!mermaid.contents.contains("resendingCode"))
    }

    @Test("the check names missing and unexpected files, and ignores .svg files and files of formats not checked")
    func missingAndUnexpected() {
        let expected = [
            GeneratedFile(path: "a.mmd", contents: "A", format: .mermaid), GeneratedFile(path: "a.dot", contents: "D", format: .dot),
            GeneratedFile(path: "README.md", contents: "R", format: nil),
        ]
        let existing = ["a.dot": "D", "README.md": "R", "old.mmd": "X", "old.scxml": "Y", "a.svg": "<svg/>", "notes.txt": "n"]
        let stale = staleFiles(expected: expected, existing: existing, formats: [.mermaid, .dot])
        #expect(stale == [StaleFile(path: "a.mmd", reason: .missing), StaleFile(path: "old.mmd", reason: .unexpected)])
    }

    @Test("writing a folder makes the check pass, and removes diagram files the code no longer generates")
    func writeThenCheck() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let directory = scratch.url
        try Data("old".utf8).write(to: directory.appendingPathComponent("gone.mmd"))
        try Data("<svg/>".utf8).write(to: directory.appendingPathComponent("gone.svg"))
        let folder = DiagramFolder(path: directory.path)
        let files = [GeneratedFile(path: "x.mmd", contents: "X\n", format: .mermaid), GeneratedFile(path: "README.md", contents: "R\n", format: nil)]
        let changed = try folder.write(files, formats: [.mermaid])
        #expect(Set(changed.map(\.description)) == ["x.mmd (missing)", "README.md (missing)", "gone.mmd (unexpected)"])
        #expect(try folder.check(files, formats: [.mermaid]).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("gone.svg").path))
    }
}
