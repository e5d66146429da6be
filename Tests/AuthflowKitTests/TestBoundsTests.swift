import AuthTestSupport
import Foundation
import Testing

/// No test can wait forever: a bug that loses an answer (a replayed 401 refreshing again, a logout
/// ignored while refreshing) must fail the suite, not hang CI. Every file with an asynchronous test
/// bounds it with Swift Testing's `.timeLimit`, on its suite or on the test.
@Suite("Every awaiting test has a bound")
struct TestBoundsTests {
    /// Each test file (path from the root) declaring an `async` test, and whether it names a time limit.
    static func asyncTestFiles() throws -> [(path: String, bounded: Bool)] {
        let tests = Checkout.root.appendingPathComponent("Tests")
        guard let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil) else { return [] }
        var found: [(path: String, bounded: Bool)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            guard text.contains("@Test"), text.range(of: #"func \w+\([^)]*\)\s+async"#, options: .regularExpression) != nil else { continue }
            let path = String(file.path.dropFirst(Checkout.root.path.count + 1))
            found.append((path, text.contains(".timeLimit(")))
        }
        return found.sorted { $0.path < $1.path }
    }

    @Test("every test file with an async test declares a .timeLimit")
    func everyAsyncTestIsBounded() throws {
        let files = try Self.asyncTestFiles()
        #expect(files.count > 20, "the scan finds the asynchronous test files (\(files.count))")
        let unbounded = files.filter { !$0.bounded }.map(\.path)
        #expect(unbounded.isEmpty, "no .timeLimit in \(unbounded.joined(separator: ", "))")
    }
}
