import Testing

@testable import AuthVerification

@Suite("Fingerprints and event keys as hash-table keys")
struct FingerprintHashTests {
    /// Distinct fingerprints, as surveys make them.
    static let fingerprints: [Fingerprint] = (0..<8_192).map { n in
        var fingerprint = Fingerprint()
        fingerprint.mix(UInt64(n))
        return fingerprint.finished()
    }

    @Test("equal fingerprints hash alike under every seed, and a table of distinct ones holds each once")
    func agreesWithEquality() {
        // Each rebuilt from scratch, as a second survey of the same world would: equal, and
        // hashed alike.
        for (n, fingerprint) in Self.fingerprints.prefix(64).enumerated() {
            var again = Fingerprint()
            again.mix(UInt64(n))
            let rebuilt = again.finished()
            #expect(rebuilt == fingerprint)
            for seed in [0, 1, -1, 0x5EED] { #expect(rebuilt._rawHashValue(seed: seed) == fingerprint._rawHashValue(seed: seed)) }
        }
        #expect(Set(Self.fingerprints).count == Self.fingerprints.count)
        let index = Dictionary(uniqueKeysWithValues: Self.fingerprints.enumerated().map { ($1, $0) })
        #expect(Self.fingerprints.enumerated().allSatisfy { index[$1] == $0 })
    }

    @Test("the hash spreads fingerprints over a table's buckets (low bits), differently for each seed")
    func spreads() {
        for seed in [0, 0x5EED] {
            var buckets = [Int](repeating: 0, count: 1_024)
            for fingerprint in Self.fingerprints { buckets[fingerprint._rawHashValue(seed: seed) & 1_023] += 1 }
            // 8 per bucket on average: a uniform hash puts at most about 20 in one.
            #expect(buckets.max()! <= 24, "seed \(seed): \(buckets.max()!) in one bucket")
        }
        let moved = Self.fingerprints.prefix(256).filter { $0._rawHashValue(seed: 0) & 1_023 != $0._rawHashValue(seed: 0x5EED) & 1_023 }
        #expect(moved.count > 200, "another seed must move most fingerprints to other buckets")
    }

    @Test("event keys numbered 0, 1, 2… in one table spread over a table's buckets, and tables apart")
    func eventKeysSpread() {
        for serial: UInt64 in [1, 2] {
            var buckets = [Int](repeating: 0, count: 1_024)
            for index: UInt64 in 0..<8_192 { buckets[EventKey(bits: serial << 32 | index)._rawHashValue(seed: 0) & 1_023] += 1 }
            #expect(buckets.max()! <= 24, "table \(serial): \(buckets.max()!) in one bucket")
        }
        let keys = (0..<8_192).map { EventKey(bits: 1 << 32 | UInt64($0)) } + (0..<8_192).map { EventKey(bits: 2 << 32 | UInt64($0)) }
        #expect(Set(keys).count == keys.count)
    }

    @Test("a state's leak key and its surroundings' key with one fingerprint are told apart, and hash apart")
    func leakKeys() {
        let fingerprint = Self.fingerprints[0]
        #expect(StateLeakKey.state(fingerprint) != StateLeakKey.surroundings(fingerprint))
        #expect(StateLeakKey.state(fingerprint)._rawHashValue(seed: 3) != StateLeakKey.surroundings(fingerprint)._rawHashValue(seed: 3))
        let keys = Self.fingerprints.map(StateLeakKey.state) + Self.fingerprints.map(StateLeakKey.surroundings)
        #expect(Set(keys).count == keys.count)
    }
}
