import Foundation

/// Base64url without padding (RFC 7515 §2), the encoding of every JWS segment: the one codec of the
/// package's JWS, API tokens and the simulator's paging tokens.
///
/// Table-driven over bytes: a JWS arrives as UTF-8 and is decoded segment by segment, without
/// building `String`s (splitting a JWS with `String.split` costs more than checking its signature).
package enum Base64URL {
    private static let invalid: UInt8 = 0xFF
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The bytes `segment` encodes; nil when it holds a character outside the alphabet (padding
    /// included) or a length no encoder produces (one symbol left over).
    static func decode(_ segment: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard segment.count % 4 != 1 else { return nil }
        // The table is read through a local buffer: a static read inside the loop paid a `swift_once`
        // check per character.
        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var failed = false
            var accumulator: UInt32 = 0
            var bits: UInt32 = 0
            let output = [UInt8](unsafeUninitializedCapacity: segment.count / 4 * 3 + 2) { output, written in
                var count = 0
                var index = 0
                // Whole groups of four symbols first, one test per group (a signed payload is a kilobyte
                // of them); the first group holding anything else, and the final partial group, go
                // through the symbol-at-a-time loop below, which starts at a group boundary as this ends.
                while index + 4 <= segment.count,
                    Base64Group.decode(segment, at: index, table: table, into: output, at: count)
                {
                    count += 3
                    index += 4
                }
                for character in segment[index...] {
                    let value = table[Int(character)]
                    guard value != invalid else {
                        failed = true
                        break
                    }
                    accumulator = accumulator << 6 | UInt32(value)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        output[count] = UInt8(truncatingIfNeeded: accumulator >> bits)
                        count += 1
                    }
                }
                written = count
            }
            // The leftover bits of a final partial group must be zero (a canonical encoding).
            guard !failed, accumulator & ((1 << bits) - 1) == 0 else { return nil }
            return output
        }
    }

    static func decode(_ segment: ArraySlice<UInt8>) -> [UInt8]? {
        segment.withUnsafeBufferPointer(decode)
    }

    /// The bytes of `text` read leniently, for what the simulator and the test server read back from a
    /// client (paging tokens, API tokens): the standard alphabet's `+` and `/` too, padding optional,
    /// padded to a multiple of four and read by Foundation's base64 decoder, whose slack (extra `=`,
    /// non-canonical trailing bits) those readers have always accepted.
    package static func decodeLenient(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var output = [UInt8]()
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int(accumulator >> UInt32(bits) & 0x3F)])
            }
        }
        if bits > 0 { output.append(alphabet[Int(accumulator << UInt32(6 - bits) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }
}
