/// The lexical half of strict RFC 8259 over UTF-8 bytes: whitespace, literals, numbers, strings
/// (`AppleJSONScanning+Strings.swift`) and the separators between members.
///
/// Two readers share it: `AppleJSONParser`, which builds a document any model can read, and
/// `VerifyReceiptAnswerReader`, which reads a verifyReceipt answer's fields in one pass. Sharing the
/// lexing is what makes the two refuse exactly the same texts.
protocol AppleJSONScanning {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    /// The next byte to read.
    var index: Int { get set }
    /// Strings that had escapes, decoded; a string whose `start` is past the input's end is here.
    var decoded: [UInt8] { get set }
}

extension AppleJSONScanning {
    /// After a member or element: true at the closing bracket (consumed), false after a comma.
    mutating func endOfMember(closing: UInt8) throws(AppleJSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        let byte = bytes[index]
        guard byte == UInt8(ascii: ",") || byte == closing else { throw failure(.unexpectedByte) }
        index += 1
        return byte == closing
    }

    mutating func literal(_ word: StaticString) throws(AppleJSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: count)
        for offset in 0..<count {
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            guard bytes[index] == expected[offset] else { throw failure(.unexpectedByte) }
            index += 1
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func number() throws(AppleJSONSyntaxError) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
        // A digit here follows a leading zero (`01`); other bytes are the caller's to judge.
        if index < bytes.count, Self.isDigit(bytes[index]) { throw failure(.invalidNumber) }
    }

    /// One or more digits.
    mutating func digits() throws(AppleJSONSyntaxError) {
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        guard Self.isDigit(bytes[index]) else { throw failure(.invalidNumber) }
        repeat { index += 1 } while index < bytes.count && Self.isDigit(bytes[index])
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    func failure(_ reason: AppleJSONSyntaxError.Reason) -> AppleJSONSyntaxError {
        AppleJSONSyntaxError(reason: reason, offset: index)
    }
}
