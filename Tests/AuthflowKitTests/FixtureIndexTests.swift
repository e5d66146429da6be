import AuthTestSupport
import AuthflowKit
import Foundation
import Testing

@Suite("authflow fixtures: the generated fixture index")
struct FixtureIndexTests {
    /// `Fixtures/` at the package root.
    static let fixtures = Checkout.fixtures

    static let backends = [
        ("anonymousWall", "Anonymous Wall"), ("vynqTalk", "VynqTalk"), ("everday", "Everday"), ("subspace", "Subspace"),
        ("hero365", "Hero365"),
    ]

    /// Runs `authflow` with `words`, returning its status, output and errors.
    private func authflow(_ words: [String]) -> (status: Int32, out: String, err: String) {
        var out: [String] = []
        var err: [String] = []
        let status = Authflow.run(words, out: { out.append($0) }, err: { err.append($0) })
        return (status, out.joined(separator: "\n"), err.joined(separator: "\n"))
    }

    /// Runs `body` with a copy of `Fixtures/` in a fresh temporary directory, removed afterwards.
    private func withCopyOfFixtures(_ body: (URL) throws -> Void) throws {
        try TemporaryDirectory.with { scratch in
            let directory = scratch.appendingPathComponent("Fixtures")
            try FileManager.default.copyItem(at: Self.fixtures, to: directory)
            try body(directory)
        }
    }

    @Test("the committed Fixtures/INDEX.md is exactly what `authflow fixtures` generates from Fixtures/")
    func committedIndexIsFresh() throws {
        let committed = try String(contentsOf: Self.fixtures.appendingPathComponent(FixtureIndex.fileName), encoding: .utf8)
        let generated = try FixtureIndex.generate(fixturesAt: Self.fixtures)
        #expect(committed == generated, "Fixtures/INDEX.md is stale: run `swift run authflow fixtures --write` and commit it")
        let run = authflow(["fixtures", "--check", Self.fixtures.path])
        #expect(run.status == 0, "\(run.err)")
    }

    @Test("the index lists every fixture file of every backend exactly once, with its endpoint")
    func indexListsEveryFixture() throws {
        let index = try FixtureIndex.generate(fixturesAt: Self.fixtures)
        var total = 0
        let sections = index.components(separatedBy: "\n## ").dropFirst()
        #expect(sections.count == Self.backends.count)
        for (backend, title) in Self.backends {
            let section = try #require(sections.first { $0.hasPrefix(title + "\n") }, "no section for \(title)")
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.appendingPathComponent(backend).path)
                .filter { $0.hasSuffix(".json") && $0 != FixtureIndex.sidecarName }
            #expect(!files.isEmpty, "\(backend) has no fixtures")
            for file in files {
                let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `\(file)` | `") }
                #expect(rows.count == 1, "\(backend)/\(file) appears \(rows.count) times")
            }
            total += files.count
        }
        let rows = index.split(separator: "\n").filter { $0.hasPrefix("| `") && $0.contains(".json` | `") }
        #expect(rows.count == total)
    }

    @Test("`authflow fixtures --check` fails on a stale index, and `--write` makes it pass")
    func checkFailsWhenStale() throws {
        try withCopyOfFixtures { directory in
            let index = directory.appendingPathComponent(FixtureIndex.fileName)
            try Data("# edited by hand\n".utf8).write(to: index)
            let stale = authflow(["fixtures", "--check", directory.path])
            #expect(stale.status == 1)
            #expect(stale.err.contains("stale"))
            #expect(authflow(["fixtures", "--write", directory.path]).status == 0)
            #expect(authflow(["fixtures", "--check", directory.path]).status == 0)
            try FileManager.default.removeItem(at: index)
            #expect(authflow(["fixtures", "--check", directory.path]).status == 1)
        }
    }

    @Test("a changed expectation makes the committed index stale")
    func expectationChangeIsNoticed() throws {
        try withCopyOfFixtures { directory in
            let sidecar = directory.appendingPathComponent("subspace").appendingPathComponent(FixtureIndex.sidecarName)
            let text = try String(contentsOf: sidecar, encoding: .utf8)
            try Data(text.replacingOccurrences(of: "\"invalid credentials\"", with: "\"wrong credentials\"").utf8).write(to: sidecar)
            #expect(authflow(["fixtures", "--check", directory.path]).status == 1)
        }
    }

    @Test("a fixture file missing from its sidecar, or a listed file that does not exist, is refused by name")
    func refusesUnlistedAndMissingFiles() throws {
        try withCopyOfFixtures { directory in
            let everday = directory.appendingPathComponent("everday")
            try Data("{}".utf8).write(to: everday.appendingPathComponent("auth-extra.response.200.json"))
            let unlisted = authflow(["fixtures", directory.path])
            #expect(unlisted.status == 1)
            #expect(unlisted.err.contains("everday/auth-extra.response.200.json is not listed"))
            try FileManager.default.removeItem(at: everday.appendingPathComponent("auth-extra.response.200.json"))
            try FileManager.default.removeItem(at: everday.appendingPathComponent("auth-login.response.200.json"))
            let missing = authflow(["fixtures", directory.path])
            #expect(missing.status == 1)
            #expect(missing.err.contains("auth-login.response.200.json, which does not exist"))
        }
    }

    @Test("a backend folder without its API summary is refused by name, and the index links every summary")
    func requiresEverySummary() throws {
        let index = try FixtureIndex.generate(fixturesAt: Self.fixtures)
        for (backend, _) in Self.backends {
            #expect(index.contains("[`\(backend)/README.md`](\(backend)/README.md)"), "the index does not link \(backend)'s summary")
        }
        try withCopyOfFixtures { directory in
            try FileManager.default.removeItem(at: directory.appendingPathComponent("hero365").appendingPathComponent(FixtureIndex.summaryName))
            let missing = authflow(["fixtures", directory.path])
            #expect(missing.status == 1)
            #expect(missing.err.contains("hero365/README.md, the summary of Hero365's API document, does not exist"), "\(missing.err)")
        }
    }

    @Test("without flags the index is printed, and the usage text names the command")
    func printsAndDocuments() throws {
        let run = authflow(["fixtures", Self.fixtures.path])
        #expect(run.status == 0)
        #expect(run.out + "\n" == (try FixtureIndex.generate(fixturesAt: Self.fixtures)))
        #expect(Authflow.usage.contains("authflow fixtures [--write] [--check]"))
    }
}
