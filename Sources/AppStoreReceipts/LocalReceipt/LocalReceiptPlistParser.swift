/// A value of the OpenStep ("old-style") plist subset iOS 6 transaction receipts use.
enum LocalReceiptPlistValue: Sendable, Hashable {
    case string(String)
    case dictionary([String: LocalReceiptPlistValue])

    var string: String? {
        if case .string(let value) = self { value } else { nil }
    }
}

/// A strict parser for the plist subset of iOS 6 transaction receipts:
///
///     { "signature" = "…"; "purchase-info" = "…"; "environment" = "Sandbox"; pod = 100; }
///
/// Dictionaries of `key = value;` entries, quoted strings with the OpenStep escapes, and
/// unquoted tokens. Arrays, `<data>` and comments never occur in receipts and are refused.
/// Apple's own library finds the transaction id with a regex; a real parser cannot be fooled
/// by a `"transaction-id" = …` hidden inside another value. Recursion is bounded by `maxDepth`.
struct LocalReceiptPlistParser {
    static let maxDepth = 32

    private let bytes: [UInt8]
    private var position = 0

    /// Parses a document holding exactly one dictionary.
    static func parse(_ bytes: [UInt8]) throws(ReceiptDecodingError) -> [String: LocalReceiptPlistValue] {
        var parser = LocalReceiptPlistParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }  // a UTF-8 byte order mark
        parser.skipWhitespace()
        guard parser.peek == UInt8(ascii: "{") else { throw parser.failure("expected \"{\"") }
        let dictionary = try parser.dictionary(depth: 1)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected text after the closing \"}\"") }
        return dictionary
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    private func failure(_ problem: String) -> ReceiptDecodingError {
        .malformedTransactionReceipt(offset: position, problem: problem)
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || (0x09...0x0D).contains(byte) { position += 1 }
    }

    private mutating func expect(_ character: Character) throws(ReceiptDecodingError) {
        guard let ascii = character.asciiValue, peek == ascii else { throw failure("expected \"\(character)\"") }
        position += 1
    }

    private mutating func dictionary(depth: Int) throws(ReceiptDecodingError) -> [String: LocalReceiptPlistValue] {
        guard depth <= Self.maxDepth else { throw .nestingTooDeep(limit: Self.maxDepth) }
        try expect("{")
        var result: [String: LocalReceiptPlistValue] = [:]
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                position += 1
                return result
            }
            let keyOffset = position
            let key = try string()
            skipWhitespace()
            try expect("=")
            skipWhitespace()
            let value: LocalReceiptPlistValue
            if peek == UInt8(ascii: "{") {
                value = .dictionary(try dictionary(depth: depth + 1))
            } else {
                value = .string(try string())
            }
            skipWhitespace()
            try expect(";")
            guard result.updateValue(value, forKey: key) == nil else {
                throw .malformedTransactionReceipt(offset: keyOffset, problem: "duplicate key")
            }
        }
    }

    private mutating func string() throws(ReceiptDecodingError) -> String {
        guard let first = peek else { throw failure("unexpected end of text") }
        if first == UInt8(ascii: "\"") { return try quotedString() }
        let start = position
        while let byte = peek, Self.isUnquotedCharacter(byte) { position += 1 }
        guard position > start else {
            throw failure(
                first == UInt8(ascii: "(") || first == UInt8(ascii: "<")
                    ? "arrays and data do not occur in transaction receipts"
                    : "expected a string")
        }
        // Unquoted tokens are ASCII by construction.
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private static func isUnquotedCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"),
            UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private mutating func quotedString() throws(ReceiptDecodingError) -> String {
        let opening = position
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek else {
                throw .malformedTransactionReceipt(offset: opening, problem: "unterminated string")
            }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw .malformedTransactionReceipt(offset: opening, problem: "a string that is not UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &utf8)
            default:
                utf8.append(byte)
            }
        }
    }

    /// The OpenStep escapes: C letters, `\\`, `\"`, octal `\ooo` and `\Uxxxx`.
    private mutating func escape(into utf8: inout [UInt8]) throws(ReceiptDecodingError) {
        let escapeOffset = position - 1
        guard let letter = peek else {
            throw .malformedTransactionReceipt(offset: escapeOffset, problem: "unterminated string")
        }
        position += 1
        let simple: UInt8? =
            switch letter {
            case UInt8(ascii: "a"): 0x07
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            case UInt8(ascii: "v"): 0x0B
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "'"): letter
            default: nil
            }
        if let simple {
            utf8.append(simple)
            return
        }
        var scalarValue: UInt32 = 0
        if letter == UInt8(ascii: "U") {
            for _ in 0..<4 {
                guard let byte = peek, let digit = Self.hexDigit(byte) else {
                    throw .malformedTransactionReceipt(
                        offset: escapeOffset, problem: "a \\U escape without 4 hex digits")
                }
                position += 1
                scalarValue = scalarValue << 4 | digit
            }
        } else if (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(letter) {
            scalarValue = UInt32(letter - UInt8(ascii: "0"))
            for _ in 0..<2 {
                guard let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) else { break }
                position += 1
                scalarValue = scalarValue << 3 | UInt32(byte - UInt8(ascii: "0"))
            }
        } else {
            throw .malformedTransactionReceipt(offset: escapeOffset, problem: "an unknown escape")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw .malformedTransactionReceipt(offset: escapeOffset, problem: "an escape that is not a Unicode scalar")
        }
        UTF8.encode(scalar) { utf8.append($0) }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
