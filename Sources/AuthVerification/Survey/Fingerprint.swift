/// A 128-bit fingerprint of a canonical world, built word by word as the survey walks it.
///
/// The explorer stores fingerprints instead of whole keys, as TLC does: two different canonical
/// worlds share a fingerprint with probability about n²/2¹²⁹ for n states (below 10⁻²⁵ for
/// 10⁷ states), and a fingerprint is 16 bytes whatever the world's size.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline var a: UInt64 = 0x243F_6A88_85A3_08D3
    @usableFromInline var b: UInt64 = 0x1319_8A2E_0370_7344

    /// The fingerprint of nothing.
    @inlinable public init() {}

    /// Mixes one word into both lanes (different rotations and multipliers, so the lanes are
    /// independent hashes).
    @inlinable mutating func mix(_ word: UInt64) {
        a = (a ^ word).rotatedLeft(by: 29) &* 0x9E37_79B9_7F4A_7C15
        b = (b &+ word).rotatedLeft(by: 37) &* 0xC2B2_AE3D_27D4_EB4F
        b ^= b >> 31
    }

    /// Mixes a byte string: its length, then its bytes eight at a time (the last word padded
    /// with zeros; the length keeps `"a"` and `"a\0"` apart).
    @inlinable mutating func mix(bytes: UnsafeRawBufferPointer) {
        mix(0x5458_5400_0000_0000 | UInt64(bytes.count))
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < bytes.count {
            var last: UInt64 = 0
            for (shift, byte) in bytes[offset...].enumerated() { last |= UInt64(byte) << (UInt64(shift) * 8) }
            mix(last)
        }
    }

    /// The finished fingerprint (each lane through the SplitMix64 finalizer).
    @inlinable func finished() -> Fingerprint {
        var result = self
        result.a = Self.finalize(a ^ (b >> 17))
        result.b = Self.finalize(b ^ (a << 13))
        return result
    }

    @inlinable static func finalize(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Hexadecimal.
    @inlinable public var description: String {
        String(a, radix: 16).leftPadded(to: 16) + String(b, radix: 16).leftPadded(to: 16)
    }
}

extension UInt64 {
    /// The word rotated left by `bits`, 1…63. Masking shifts, which LLVM turns into one rotate:
    /// the checked `<<` and `>>` kept this a call of about 19 instructions at every mix.
    @inlinable func rotatedLeft(by bits: UInt64) -> UInt64 { (self &<< bits) | (self &>> (64 &- bits)) }
}

extension String {
    /// Pads with leading zeros to `width`.
    @inlinable func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
