import Testing

@testable import AuthVerification

/// The leak checks' memo: a value is described once, and again whenever secrets it was not
/// checked against have been learned since.
@Suite("Leak scanner")
struct LeakScannerTests {
    @Test("a verdict is reused while no new secret is learned, and the value is described again when one is")
    func rescansAfterNewSecrets() {
        let scanner = LeakScanner<String>()
        let described = Counter()
        func leak(_ key: String) -> Int? {
            scanner.leak(key) { key in
                described.count += 1
                return (["request \(key) with rt-second"], [])
            }
        }
        scanner.learn(["rt-first"])
        #expect(leak("r1") == nil)
        #expect(leak("r1") == nil)
        #expect(described.count == 1)
        scanner.learn(["rt-first"], ["rt-second"])
        #expect(leak("r1") == "rt-second".count)
        #expect(described.count == 2)
        #expect(leak("r2") == "rt-second".count)
        #expect(described.count == 3)
    }

    @Test("the world after a step is learned in full, though its secrets shared with the world before are not looked up again")
    func learnsWhatTheStepAdded() {
        let scanner = LeakScanner<Int>()
        scanner.learn(["rt-first"], ["rt-first", "rt-second"])
        #expect(scanner.leak(1) { _ in (["sent rt-second"], []) } == "rt-second".count)
        #expect(scanner.leak(2) { _ in (["sent rt-first"], []) } == "rt-first".count)
        scanner.learn(["rt-first"], ["rt-third"])
        #expect(scanner.leak(3) { _ in (["sent rt-third"], []) } == "rt-third".count)
    }

    @Test("events by key and effects by digest keep verdicts of their own, each scanned again when a secret is learned")
    func keyedVerdicts() {
        let scanner = LeakScanner<String>()
        let table = EventTable<String>()
        let described = Counter()
        let key = table.key(.intent("submit"))
        let digest = Described<String>.digest(.emit(.offline))!
        func texts() -> (texts: [String], own: [String]) {
            described.count += 1
            return (["shows rt-second"], [])
        }
        func event(_ key: EventKey, _ payload: String) -> Int? { scanner.leak(event: key, payload: { payload }, describe: { _ in texts() }) }
        scanner.learn(["rt-first"])
        #expect(event(key, "submit") == nil)
        #expect(scanner.leak(digest: digest, describe: texts) == nil)
        #expect(event(key, "submit") == nil)
        #expect(scanner.leak(digest: digest, describe: texts) == nil)
        #expect(described.count == 2)
        scanner.learn(["rt-first"], ["rt-second"])
        #expect(event(key, "submit") == "rt-second".count)
        #expect(scanner.leak(digest: digest, describe: texts) == "rt-second".count)
        #expect(described.count == 4)
        // An event's own secrets are learned when it is described.
        let typed = table.key(.intent("typed"))
        #expect(
            scanner.leak(event: typed, payload: { "typed" }, describe: { _ in (["typed pw-typed-secret"], ["pw-typed-secret"]) })
                == "pw-typed-secret".count)
    }

    @Test("an event numbered by a new environment (a new table) takes its payload's verdict: it is not described again")
    func newTableReusesThePayloadsVerdict() {
        let scanner = LeakScanner<String>()
        let described = Counter()
        func event(_ key: EventKey, _ payload: String) -> Int? {
            scanner.leak(event: key, payload: { payload }) { _ in
                described.count += 1
                return (["shows nothing"], [])
            }
        }
        scanner.learn(["rt-first"])
        #expect(event(EventTable<String>().key(.intent("submit")), "submit") == nil)
        #expect(event(EventTable<String>().key(.intent("submit")), "submit") == nil)
        #expect(described.count == 1)
        #expect(event(EventTable<String>().key(.intent("other")), "other") == nil)
        #expect(described.count == 2)
    }

    @Test("keys of two tables met in turn keep their verdicts: neither table's payloads are looked up again, each key keeps its own verdict")
    func tablesInTurn() {
        let scanner = LeakScanner<String>()
        let asked = Counter()
        func event(_ key: EventKey, _ payload: String) -> Int? {
            scanner.leak(
                event: key,
                payload: {
                    asked.count += 1
                    return payload
                }
            ) { value in (["shows \(value)"], []) }
        }
        scanner.learn(["rt-first"])
        let first = EventTable<String>(), second = EventTable<String>()
        let quiet = first.key(.intent("quiet")), loud = first.key(.intent("loud rt-first"))
        let other = second.key(.intent("other"))
        #expect(event(quiet, "quiet") == nil)
        #expect(event(loud, "loud rt-first") == "rt-first".count)
        #expect(event(other, "other") == nil)
        #expect(asked.count == 3)
        for _ in 0..<3 {
            #expect(event(quiet, "quiet") == nil)
            #expect(event(other, "other") == nil)
            #expect(event(loud, "loud rt-first") == "rt-first".count)
        }
        #expect(asked.count == 3)
    }

    @Test("secrets shorter than four characters are not learned, so short words in descriptions are no leaks")
    func shortSecretsIgnored() {
        let scanner = LeakScanner<Int>()
        scanner.learn(["abc"])
        #expect(scanner.leak(1) { _ in (["abc abc"], []) } == nil)
        #expect(scanner.leak(2) { _ in (["has code-1234"], ["code-1234"]) } == "code-1234".count)
    }
}

/// A count the describe closures can bump.
private final class Counter {
    var count = 0
}
