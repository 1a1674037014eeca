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
        decode(segment, canonical: true)
    }

    static func decode(_ segment: ArraySlice<UInt8>) -> [UInt8]? {
        segment.withUnsafeBufferPointer(decode)
    }

    /// The bytes of `text` read leniently, as Foundation's base64 decoder reads it once padded to a
    /// multiple of four: padding optional (at most two `=`), `+` and `/` taken for `-` and `_`, and the
    /// leftover bits of a final partial group ignored. For what the simulator and the test server read
    /// back from a client (paging tokens, API tokens), where that slack has always been accepted.
    package static func decodeLenient(_ text: String) -> [UInt8]? {
        var symbols = Array(text.utf8)
        let paddedCount = (symbols.count + 3) / 4 * 4
        while symbols.last == UInt8(ascii: "=") { symbols.removeLast() }
        guard paddedCount - symbols.count <= 2 else { return nil }
        for index in symbols.indices {
            if symbols[index] == UInt8(ascii: "+") { symbols[index] = UInt8(ascii: "-") }
            if symbols[index] == UInt8(ascii: "/") { symbols[index] = UInt8(ascii: "_") }
        }
        return symbols.withUnsafeBufferPointer { decode($0, canonical: false) }
    }

    /// `canonical`: the leftover bits of a final partial group must be zero.
    private static func decode(_ segment: UnsafeBufferPointer<UInt8>, canonical: Bool) -> [UInt8]? {
        guard segment.count % 4 != 1 else { return nil }
        // The table is read through a local buffer: a static read inside the loop paid a `swift_once`
        // check per character.
        return table.withUnsafeBufferPointer { table -> [UInt8]? in
            var failed = false
            var accumulator: UInt32 = 0
            var bits: UInt32 = 0
            let output = [UInt8](unsafeUninitializedCapacity: segment.count / 4 * 3 + 2) { output, written in
                var count = 0
                for character in segment {
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
            guard !failed, !canonical || accumulator & ((1 << bits) - 1) == 0 else { return nil }
            return output
        }
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
