import Foundation

/// SHA-256 (FIPS 180-4), for the OpenID Connect provider's PKCE check (RFC 7636 §4.6) and its
/// HS256 ID tokens. Foundation on Linux offers no hash, and the reference backend shares no code
/// with the client it tests, so this is its own: written for reading, not speed, with its round
/// constants derived as the standard defines them rather than copied.
enum SHA256 {
    /// The 32-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var state = initialState
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var schedule = [UInt32](repeating: 0, count: 64)
        for block in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = block + index * 4
                schedule[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16
                    | UInt32(padded[offset + 2]) << 8 | UInt32(padded[offset + 3])
            }
            for index in 16..<64 {
                let early = schedule[index - 15]
                let late = schedule[index - 2]
                let sigma0 = rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early >> 3)
                let sigma1 = rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var working = state
            for index in 0..<64 {
                let (a, b, c, d, e, f, g, h) = (
                    working[0], working[1], working[2], working[3], working[4], working[5], working[6], working[7]
                )
                let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                let choose = (e & f) ^ (~e & g)
                let first = h &+ sum1 &+ choose &+ roundConstants[index] &+ schedule[index]
                let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let second = sum0 &+ majority
                working = [first &+ second, a, b, c, d &+ first, e, f, g]
            }
            for index in 0..<8 { state[index] = state[index] &+ working[index] }
        }
        return state.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: the HS256 signature of a JWT (RFC 7518 §3.2).
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? digest(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = digest(block.map { $0 ^ 0x36 } + message)
        return digest(block.map { $0 ^ 0x5c } + inner)
    }

    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// The first `count` primes.
    private static func primes(_ count: Int) -> [Int] {
        var found: [Int] = []
        var candidate = 2
        while found.count < count {
            if found.allSatisfy({ candidate % $0 != 0 }) { found.append(candidate) }
            candidate += 1
        }
        return found
    }

    /// The first 32 bits of the fractional part of `value`.
    private static func fraction(_ value: Double) -> UInt32 {
        UInt32((value - value.rounded(.down)) * 4_294_967_296)
    }

    /// FIPS 180-4 §5.3.3: the fractional parts of the square roots of the first 8 primes.
    private static let initialState = primes(8).map { fraction(Double($0).squareRoot()) }

    /// FIPS 180-4 §4.2.2: the fractional parts of the cube roots of the first 64 primes.
    private static let roundConstants = primes(64).map { fraction(cbrt(Double($0))) }
}
