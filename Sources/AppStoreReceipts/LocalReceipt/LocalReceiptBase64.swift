import Foundation

/// Standard base64 (RFC 4648 §4) with every ASCII whitespace character ignored.
///
/// Hand-written rather than `Data(base64Encoded:options: .ignoreUnknownCharacters)`, which would
/// skip *any* unknown character and so accept text that is provably not base64; and written to
/// say where the first bad character is. Padding is optional (receipts pasted by hand lose it),
/// but once padding starts only padding and whitespace may follow.
enum LocalReceiptBase64 {
    /// 0...63 for alphabet characters, `whitespace`, `padding`, or `invalid`.
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        for character in [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D] { table[character] = whitespace }
        table[Int(UInt8(ascii: "="))] = padding
        return table
    }()
    private static let whitespace: UInt8 = 0xFD
    private static let padding: UInt8 = 0xFE
    private static let invalid: UInt8 = 0xFF

    /// Decodes `text`; `.emptyInput` when it holds nothing but whitespace.
    static func decode(_ text: some Collection<UInt8>) throws(ReceiptDecodingError) -> [UInt8] {
        // One tight loop over contiguous bytes (a native String's UTF-8, an Array, Data);
        // anything else is copied once first.
        let result = text.withContiguousStorageIfAvailable(decode) ?? Array(text).withUnsafeBufferPointer(decode)
        return try result.get()
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], ReceiptDecodingError> {
        var failure: ReceiptDecodingError?
        // At most three bytes per four symbols, plus the two of a final partial group.
        let output = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { output, written in
            switch Result(catching: { () throws(ReceiptDecodingError) in try decodeBuffer(text, into: output) }) {
            case .success(let count):
                written = count
            case .failure(let error):
                failure = error
                written = 0
            }
        }
        return failure.map(Result.failure) ?? .success(output)
    }

    /// Decodes `text` into `output`, which has room for every byte; returns how many it wrote.
    private static func decodeBuffer(
        _ text: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) throws(ReceiptDecodingError) -> Int {
        var written = 0
        var accumulator: UInt32 = 0
        var symbols = 0
        var paddingCount = 0
        let offset = text.count  // where a dangling group is reported
        return try table.withUnsafeBufferPointer { table throws(ReceiptDecodingError) -> Int in
            var position = 0
            while position < text.count {
                // Fast path, nearly every group of a receipt: four alphabet characters at a group
                // boundary. Anything else (whitespace, padding, a bad character) takes the general
                // step below, one character at a time, so errors and their offsets are unchanged.
                if symbols & 3 == 0, paddingCount == 0 {
                    // Two groups a step while both are plain: one test and one branch for eight
                    // characters (the receipt's four kilobytes are almost all such steps).
                    while position + 8 <= text.count {
                        let a = table[Int(text[position])]
                        let b = table[Int(text[position + 1])]
                        let c = table[Int(text[position + 2])]
                        let d = table[Int(text[position + 3])]
                        let e = table[Int(text[position + 4])]
                        let f = table[Int(text[position + 5])]
                        let g = table[Int(text[position + 6])]
                        let h = table[Int(text[position + 7])]
                        guard a | b | c | d | e | f | g | h < 64 else { break }
                        let high = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        let low = UInt32(e) << 18 | UInt32(f) << 12 | UInt32(g) << 6 | UInt32(h)
                        output[written] = UInt8(truncatingIfNeeded: high >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: high >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: high)
                        output[written + 3] = UInt8(truncatingIfNeeded: low >> 16)
                        output[written + 4] = UInt8(truncatingIfNeeded: low >> 8)
                        output[written + 5] = UInt8(truncatingIfNeeded: low)
                        written += 6
                        symbols += 8
                        position += 8
                    }
                    if position == text.count { break }
                }
                if symbols & 3 == 0, paddingCount == 0, position + 4 <= text.count {
                    if Base64Group.decode(text, at: position, table: table, into: output, at: written) {
                        written += 3
                        symbols += 4
                        position += 4
                        continue
                    }
                }
                let value = table[Int(text[position])]
                switch value {
                case whitespace:
                    break
                case padding:
                    // Padding may only complete a group of 2 or 3 symbols, at most twice.
                    guard symbols % 4 >= 2, symbols % 4 + paddingCount < 4 else { throw .notBase64(offset: position) }
                    paddingCount += 1
                case invalid:
                    throw .notBase64(offset: position)
                default:
                    guard paddingCount == 0 else { throw .notBase64(offset: position) }
                    accumulator = accumulator << 6 | UInt32(value)
                    symbols += 1
                    if symbols % 4 == 0 {
                        output[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                        output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                        output[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                        written += 3
                        accumulator = 0
                    }
                }
                position += 1
            }
            if symbols == 0 && paddingCount == 0 { throw .emptyInput }
            switch symbols % 4 {
            case 0:
                guard paddingCount == 0 else { throw .notBase64(offset: offset) }
            case 1:
                throw .notBase64(offset: offset)  // a lone symbol carries only 6 bits
            case 2:
                guard paddingCount == 0 || paddingCount == 2 else { throw .notBase64(offset: offset) }
                output[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                written += 1
            default:
                guard paddingCount <= 1 else { throw .notBase64(offset: offset) }
                output[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                output[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                written += 2
            }
            return written
        }
    }

    /// True when `bytes` is base64 text of a PKCS#7 container (`MI…`) or of an iOS 6 receipt
    /// (`ew…`, the encoding of `{`): the sign of a receipt that was base64-encoded twice.
    static func isNestedReceiptText(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.firstIndex(where: { table[Int($0)] != whitespace }),
            bytes.count - first >= 4
        else { return false }
        let prefix = (bytes[first], bytes[first + 1])
        guard prefix == (UInt8(ascii: "M"), UInt8(ascii: "I")) || prefix == (UInt8(ascii: "e"), UInt8(ascii: "w"))
        else { return false }
        return bytes.allSatisfy { table[Int($0)] != invalid }
    }

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
