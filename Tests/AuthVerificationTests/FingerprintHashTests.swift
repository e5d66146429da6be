import Testing

@testable import AuthVerification

/// Fingerprints, event keys and leak keys hash through the standard `Hasher` (no underscored
/// hook): what matters to the explorer is that equal keys meet and distinct ones stay apart.
@Suite("Fingerprints and event keys as hash-table keys")
struct FingerprintHashTests {
    /// Distinct fingerprints, as surveys make them.
    static let fingerprints: [Fingerprint] = (0..<8_192).map { n in
        var fingerprint = Fingerprint()
        fingerprint.mix(UInt64(n))
        return fingerprint.finished()
    }

    @Test("equal fingerprints hash alike, and a table of distinct ones holds each once")
    func agreesWithEquality() {
        // Each rebuilt from scratch, as a second survey of the same world would: equal, and
        // hashed alike.
        for (n, fingerprint) in Self.fingerprints.prefix(64).enumerated() {
            var again = Fingerprint()
            again.mix(UInt64(n))
            let rebuilt = again.finished()
            #expect(rebuilt == fingerprint)
            #expect(rebuilt.hashValue == fingerprint.hashValue)
        }
        #expect(Set(Self.fingerprints).count == Self.fingerprints.count)
        let index = Dictionary(uniqueKeysWithValues: Self.fingerprints.enumerated().map { ($1, $0) })
        #expect(Self.fingerprints.enumerated().allSatisfy { index[$1] == $0 })
    }

    @Test("event keys numbered 0, 1, 2… in two tables are distinct keys")
    func eventKeys() {
        let keys = (0..<8_192).map { EventKey(bits: 1 << 32 | UInt64($0)) } + (0..<8_192).map { EventKey(bits: 2 << 32 | UInt64($0)) }
        #expect(Set(keys).count == keys.count)
    }

    @Test("a state's leak key and its surroundings' key with one fingerprint are told apart")
    func leakKeys() {
        let fingerprint = Self.fingerprints[0]
        #expect(StateLeakKey.state(fingerprint) != StateLeakKey.surroundings(fingerprint))
        let keys = Self.fingerprints.map(StateLeakKey.state) + Self.fingerprints.map(StateLeakKey.surroundings)
        #expect(Set(keys).count == keys.count)
    }
}
