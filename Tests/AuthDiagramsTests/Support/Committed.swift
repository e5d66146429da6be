import AuthDiagrams
import AuthTestSupport
import Foundation

/// The committed `StateDiagrams/` folder of this checkout, and the generated set, shared by the tests.
enum Committed {
    /// `StateDiagrams/` in the checkout.
    static let folder = DiagramFolder(path: Checkout.stateDiagrams.path)

    /// What the folder holds (path → contents).
    static func files() throws -> [String: String] { try folder.read() }

    /// What the code generates, explored once per test process on a thread of its own. The
    /// exploration takes minutes in a debug build; a test awaiting it suspends instead of holding
    /// one of the test runner's few threads, so the tests that wait on a subprocess or a socket
    /// (each with a time limit) keep running meanwhile.
    static var generated: DiagramSet {
        get async { await exploration.value }
    }

    private static let exploration = Task<DiagramSet, Never> { await OwnThread.run { DiagramSet.standard() } }

    /// Every diagram's name, for parameterized tests (lifecycles first, then compositions).
    static let diagramNames: [String] = DiagramCatalogue.standard.lifecycles.map(\.name) + DiagramCatalogue.standard.compositions.map(\.name)
}
