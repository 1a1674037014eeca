@testable import AppStoreReceipts

/// `LocalReceiptBase64.decode` as it was before its four-symbols-at-a-time fast path, kept
/// verbatim as the oracle of `LocalReceiptFastPathTests`: the bytes, errors and error offsets of
/// every input must stay the same.
enum LegacyLocalReceiptBase64 {
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

    static func decode(_ text: [UInt8]) -> Result<[UInt8], ReceiptDecodingError> {
        Result { () throws(ReceiptDecodingError) in try decodeBuffer(text) }
    }

    private static func decodeBuffer(_ text: [UInt8]) throws(ReceiptDecodingError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var symbols = 0
        var paddingCount = 0
        let offset = text.count
        for (position, character) in text.enumerated() {
            let value = table[Int(character)]
            switch value {
            case whitespace:
                continue
            case padding:
                guard symbols % 4 >= 2, symbols % 4 + paddingCount < 4 else { throw .notBase64(offset: position) }
                paddingCount += 1
            case invalid:
                throw .notBase64(offset: position)
            default:
                guard paddingCount == 0 else { throw .notBase64(offset: position) }
                accumulator = accumulator << 6 | UInt32(value)
                symbols += 1
                if symbols % 4 == 0 {
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    output.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                }
            }
        }
        if symbols == 0 && paddingCount == 0 { throw .emptyInput }
        switch symbols % 4 {
        case 0:
            guard paddingCount == 0 else { throw .notBase64(offset: offset) }
        case 1:
            throw .notBase64(offset: offset)
        case 2:
            guard paddingCount == 0 || paddingCount == 2 else { throw .notBase64(offset: offset) }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        default:
            guard paddingCount <= 1 else { throw .notBase64(offset: offset) }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        }
        return output
    }
}
