import AuthCore
import Foundation
import Testing
@testable import AuthRuntime

@Suite("SHA-256 and PKCE")
struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 6234 §8.5 (TEST1, TEST2_1, TEST4), the empty message, and lengths around the padding
    /// boundary (55, 56, 64 bytes), whose digests were computed independently.
    static let vectors: [(String, [UInt8], String)] = [
        ("empty", [], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc (RFC 6234 TEST1)", Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "448 bits (RFC 6234 TEST2_1)", Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "896 bits",
            Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
        (
            "\"01234567\" × 80 (RFC 6234 TEST4)", Array(String(repeating: "01234567", count: 80).utf8),
            "594847328451bdfa85056225462cc1d867d877fb388df0ce35f25ab5562bfbb5"
        ),
        ("\"a\" × 1000", Array(repeating: UInt8(ascii: "a"), count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
        (
            "0…255 × 3", Array((0...255).map(UInt8.init)) + Array((0...255).map(UInt8.init)) + Array((0...255).map(UInt8.init)),
            "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363"
        ),
    ]

    @Test("SHA-256 gives the published digests", arguments: vectors.indices)
    func digests(_ index: Int) {
        let (name, message, expected) = Self.vectors[index]
        #expect(Self.hex(SHA256.digest(message)) == expected, "\(name)")
    }

    @Test("SHA-256 at the padding boundaries differs per length and is 32 bytes")
    func paddingBoundaries() {
        let digests = [55, 56, 63, 64, 65].map { SHA256.digest(Array(repeating: UInt8(0x61), count: $0)) }
        #expect(Set(digests.map(Self.hex)).count == 5)
        #expect(digests.allSatisfy { $0.count == 32 })
    }

    @Test("the S256 challenge of RFC 7636 Appendix B's verifier is the one it publishes")
    func rfc7636AppendixB() {
        let verifier = CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("an attempt's verifier has 43 unreserved characters, its state and nonce 22, and attempts differ")
    func attempts() {
        var generator = SeededGenerator(seed: 7)
        let first = PKCE.attempt(using: &generator)
        let second = PKCE.attempt(using: &generator)
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        #expect(first.verifier.reveal().count == 43)
        #expect(first.state.count == 22 && first.nonce.count == 22)
        for text in [first.verifier.reveal(), first.state, first.nonce] { #expect(text.allSatisfy(unreserved.contains)) }
        #expect(first != second && first.state != first.nonce)
        #expect(PKCE.attempt() != PKCE.attempt())
    }
}

/// SplitMix64, for attempts that repeat from run to run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
