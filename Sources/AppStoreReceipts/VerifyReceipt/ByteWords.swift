/// Byte tests eight bytes at a time, for the few loops that run over every byte of a receipt or an
/// answer (the request's JSON string, the answer's strings, the receipt's dedupe key).
///
/// Why words and not `SIMD16<UInt8>`: on this toolchain (Linux, Swift 6) comparing a SIMD16 with a
/// scalar compiles to a per-element loop through the stack, far slower than these bit tricks.
/// Why not byte loops: a receipt goes through three of them per request, and they cost several
/// times what these do (docs/benchmarks.md).
///
/// Each test flags a byte by setting its high bit. The tricks are the classic "has a byte less
/// than n" ones: borrows and carries only run upwards, so a flag can be wrong only above a byte
/// that is rightly flagged, never when no byte is. Good for "is there one" and, in the lowest
/// flag, "where is the first".
public enum ByteWords {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Flags each byte below `bound` (at most 0x80).
    @inline(__always)
    static func below(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highBits
    }

    /// Flags each byte above `bound` (below 0x80), and every byte with its high bit set.
    @inline(__always)
    static func above(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        ((word &+ ones &* UInt64(0x7F - bound)) | word) & highBits
    }

    /// Flags each byte equal to `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        below(word ^ (ones &* UInt64(byte)), 1)
    }

    /// Flags each byte a JSON string cannot hold as is: a quote, a backslash, or a control
    /// character below 0x20.
    @inline(__always)
    static func jsonStops(_ word: UInt64) -> UInt64 {
        equal(word, UInt8(ascii: "\"")) | equal(word, UInt8(ascii: "\\")) | below(word, 0x20)
    }

    /// Whether any byte of `bytes` is flagged by `test`: words are tested without a branch
    /// each, and the few bytes after the last whole word one at a time.
    @inline(__always)
    static func any(_ bytes: UnsafeRawBufferPointer, _ test: (UInt64) -> UInt64) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var flags: UInt64 = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            flags |= test(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        let (tail, tailCount) = word(bytes, from: offset)
        guard tailCount > 0 else { return flags != 0 }
        // The tail's missing bytes must not be flagged: test it padded with a byte the tests accept.
        return flags | test(tail | (ones &* UInt64(UInt8(ascii: "A"))) << (8 * tailCount)) != 0
    }

    /// The bytes from `offset` to the end (at most eight) as a little-endian word, and how many
    /// there were; the missing high bytes are zero.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> (word: UInt64, count: Int) {
        var word: UInt64 = 0
        for index in offset..<bytes.count { word |= UInt64(bytes[index]) << (8 * (index - offset)) }
        return (word, bytes.count - offset)
    }

    /// Whether `bytes` holds a byte a JSON string must escape.
    static func containsJSONStop(_ bytes: UnsafeRawBufferPointer) -> Bool {
        any(bytes, jsonStops)
    }

    /// Whether every byte of `bytes` is printable ASCII other than space (0x21...0x7E): how stored
    /// base64 receipts look when they carry no whitespace or line breaks.
    static func isPrintableASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !any(bytes) { below($0, 0x21) | above($0, 0x7E) }
    }

    /// A 64-bit hash of `bytes`, eight bytes at a time. Not keyed, so not for tables an attacker can
    /// fill with collisions unless equal hashes are then compared byte for byte (as the job's
    /// dedupe cache does); several times cheaper than `Hasher` over a receipt (docs/benchmarks.md).
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash = UInt64(truncatingIfNeeded: bytes.count) &* multiplier
        guard let base = bytes.baseAddress else { return hash }
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* multiplier
            hash ^= hash >> 29
            offset += 8
        }
        hash = (hash ^ word(bytes, from: offset).word) &* multiplier
        return hash ^ (hash >> 32)
    }
}
