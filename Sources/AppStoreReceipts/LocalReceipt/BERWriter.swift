/// Minimal DER/BER element builders for `LocalReceiptEncoder`.
enum BERWriter {
    /// A definite-length element with the shortest length encoding (DER).
    static func element(_ tag: BERTag, _ content: [UInt8]) -> [UInt8] {
        var output = tag.encoded
        let length = length(content.count)
        output.reserveCapacity(output.count + length.count + content.count)
        output += length
        output += content
        return output
    }

    /// A constructed element of definite length.
    static func element(_ tag: BERTag, children: [[UInt8]]) -> [UInt8] {
        element(tag, concatenated(children))
    }

    /// A constructed element of indefinite length, closed by end-of-contents (BER only).
    static func indefinite(_ tag: BERTag, children: [[UInt8]]) -> [UInt8] {
        tag.encoded + [0x80] + concatenated(children) + [0x00, 0x00]
    }

    /// `Array(children.joined())` without the element-by-element copy of a flattened sequence.
    private static func concatenated(_ children: [[UInt8]]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(children.reduce(0) { $0 + $1.count })
        for child in children { output += child }
        return output
    }

    /// DER `SET OF`: elements sorted by their encodings (X.690 §11.6), as Apple's payload is.
    static func setOf(_ elements: [[UInt8]]) -> [UInt8] {
        element(.set, children: elements.sorted { $0.lexicographicallyPrecedes($1) })
    }

    static func integer(_ value: Int64) -> [UInt8] {
        // Shortest two's complement: drop leading octets that only repeat the sign.
        var octets = withUnsafeBytes(of: value.bigEndian, Array.init)
        while octets.count > 1,
            (octets[0] == 0x00 && octets[1] & 0x80 == 0) || (octets[0] == 0xFF && octets[1] & 0x80 != 0)
        {
            octets.removeFirst()
        }
        return element(.integer, octets)
    }

    static func utf8String(_ text: String) -> [UInt8] { element(.utf8String, Array(text.utf8)) }

    static func ia5String(_ text: String) -> [UInt8] { element(.ia5String, Array(text.utf8)) }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        element(.universal(BERTag.octetStringNumber), bytes)
    }

    static func objectIdentifier(_ contentOctets: [UInt8]) -> [UInt8] {
        element(.objectIdentifier, contentOctets)
    }

    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var octets: [UInt8] = []
        var rest = count
        while rest > 0 {
            octets.insert(UInt8(truncatingIfNeeded: rest), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}
