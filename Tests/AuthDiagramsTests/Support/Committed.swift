import AuthDiagrams
import AuthTestSupport
import Foundation

/// The committed `StateDiagrams/` folder of this checkout, and the generated set, shared by the tests.
enum Committed {
    /// `StateDiagrams/` in the checkout.
    static let folder = DiagramFolder(path: Checkout.stateDiagrams.path)

    /// What the folder holds (path → contents).
    static func files() throws -> [String: String] { try folder.read() }

    /// What the code generates (explored once per test process).
    static var generated: DiagramSet { DiagramSet.standard() }

    /// Every diagram's name, for parameterized tests (lifecycles first, then compositions).
    static let diagramNames: [String] = DiagramCatalogue.standard.lifecycles.map(\.name) + DiagramCatalogue.standard.compositions.map(\.name)
}
