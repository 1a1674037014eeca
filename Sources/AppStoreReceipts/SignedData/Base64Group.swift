/// One whole group of base64 (or base64url) decoded in a step: the fast path of both decoders
/// (`Base64URL`, `LocalReceiptBase64`), whose alphabets differ only in their tables.
enum Base64Group {
    /// Decodes the four symbols of `text` at `position` into three bytes of `output` at `written`, when
    /// all four are in the alphabet (`table` maps a byte to its value; anything above 63 is not a plain
    /// symbol: padding, whitespace or a bad byte, which the callers read one at a time).
    /// - Returns: false, writing nothing, when a symbol is not plain.
    @inline(__always)
    static func decode(
        _ text: UnsafeBufferPointer<UInt8>, at position: Int, table: UnsafeBufferPointer<UInt8>,
        into output: UnsafeMutableBufferPointer<UInt8>, at written: Int
    ) -> Bool {
        let first = table[Int(text[position])]
        let second = table[Int(text[position + 1])]
        let third = table[Int(text[position + 2])]
        let fourth = table[Int(text[position + 3])]
        guard first | second | third | fourth < 64 else { return false }
        let group = UInt32(first) << 18 | UInt32(second) << 12 | UInt32(third) << 6 | UInt32(fourth)
        output[written] = UInt8(truncatingIfNeeded: group >> 16)
        output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
        output[written + 2] = UInt8(truncatingIfNeeded: group)
        return true
    }
}
