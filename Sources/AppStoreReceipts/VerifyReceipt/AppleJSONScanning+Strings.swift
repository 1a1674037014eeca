/// Strings: member names and values, scanned eight bytes at a time, escapes decoded into `decoded`
/// (the text after the input: a string's `start` past the input's end is in `decoded`).
extension AppleJSONScanning {
    /// The UTF-8 of a string `string()` returned, wherever it is.
    func withText<Result>(start: Int, count: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if start < bytes.count {
            return body(UnsafeBufferPointer(rebasing: bytes[start..<(start + count)]))
        }
        let offset = start - bytes.count
        return decoded.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[offset..<(offset + count)]))
        }
    }

    /// A string starting at the opening quote at `index`; returns where its UTF-8 is in the
    /// document's text: in the input when it has no escapes, after it when it had some.
    ///
    /// Eight bytes at a time: a word without a quote, backslash or control character is
    /// skipped whole, and in the word that has one the lowest flag of `ByteWords.jsonStops` says where.
    mutating func string() throws(AppleJSONSyntaxError) -> (start: Int, count: Int) {
        index += 1
        let start = index
        var highBits: UInt64 = 0
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            while index + 8 <= bytes.count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let stops = ByteWords.jsonStops(word)
                if stops == 0 {
                    highBits |= word
                    index += 8
                    continue
                }
                // The lowest flagged byte is the first stop (little-endian load); skip to it.
                let plainBytes = stops.trailingZeroBitCount / 8
                highBits |= word & ~(UInt64.max << (8 * plainBytes))
                index += plainBytes
                break
            }
        }
        var isASCII = highBits & 0x8080_8080_8080_8080 == 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if !isASCII, String(validating: content, as: UTF8.self) == nil {
                    throw AppleJSONSyntaxError(reason: .invalidUTF8, offset: start)
                }
                index += 1
                return (start, content.count)
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            if byte < 0x20 { throw failure(.controlCharacterInString) }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        throw failure(.unexpectedEnd)
    }

    /// The rest of a string from its first backslash at `index`; `start` is its first byte.
    /// The decoded string goes to `decoded`.
    mutating func escapedString(from start: Int) throws(AppleJSONSyntaxError) -> (start: Int, count: Int) {
        let decodedStart = decoded.count
        decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                let count = decoded.count - decodedStart
                let isValid = decoded.withUnsafeBufferPointer { decoded in
                    let content = UnsafeBufferPointer(rebasing: decoded[decodedStart...])
                    return !content.contains { $0 >= 0x80 } || String(validating: content, as: UTF8.self) != nil
                }
                guard isValid else { throw AppleJSONSyntaxError(reason: .invalidUTF8, offset: start) }
                return (bytes.count + decodedStart, count)
            case UInt8(ascii: "\\"):
                try escape()
            case 0..<0x20:
                throw failure(.controlCharacterInString)
            default:
                decoded.append(byte)
                index += 1
            }
        }
        throw failure(.unexpectedEnd)
    }

    /// One escape sequence at `index`, appended to `decoded` as UTF-8.
    mutating func escape() throws(AppleJSONSyntaxError) {
        index += 1
        guard index < bytes.count else { throw failure(.unexpectedEnd) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0C)
        case UInt8(ascii: "n"): decoded.append(0x0A)
        case UInt8(ascii: "r"): decoded.append(0x0D)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hexQuad())
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed at once by `\u` and a low surrogate.
                guard index + 1 < bytes.count else { throw failure(.unexpectedEnd) }
                guard bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure(.invalidUnicodeEscape)
                }
                index += 2
                let low = UInt32(try hexQuad())
                guard (0xDC00...0xDFFF).contains(low) else {
                    index -= 6
                    throw failure(.invalidUnicodeEscape)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                index -= 6
                throw failure(.invalidUnicodeEscape)
            }
            // Surrogates are excluded above, so this is a valid scalar.
            decoded.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
        default:
            index -= 1
            throw failure(.invalidEscape)
        }
    }

    /// Four hex digits at `index`.
    mutating func hexQuad() throws(AppleJSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw failure(.unexpectedEnd) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure(.invalidUnicodeEscape)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
