import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// The JSON parser under `VerifyReceiptResponse.decode`: what it accepts, exactly what it
/// builds, and that every malformed document is refused without a crash.
@Suite struct AppleJSONParserTests {
    static func parse(_ text: String) throws(AppleJSONSyntaxError) -> AppleJSONValue {
        try AppleJSONParser.parse(Array(text.utf8))
    }

    static func reason(_ bytes: [UInt8]) -> AppleJSONSyntaxError.Reason? {
        do {
            _ = try AppleJSONParser.parse(bytes)
            return nil
        } catch {
            return error.reason
        }
    }

    static func reason(_ text: String) -> AppleJSONSyntaxError.Reason? { reason(Array(text.utf8)) }

    // MARK: - What it builds

    @Test("every kind of value, members in document order")
    func structure() throws {
        let value = try Self.parse(
            #" { "s" : "x", "n" : -12.5e3, "t" : true, "f" : false, "z" : null, "a" : [ 1 , [ ] , { } ], "o" : { "k" : "v" } } "#
        )
        let expected = PlainJSON.object([
            .init(key: "s", value: .string("x")),
            .init(key: "n", value: .number("-12.5e3")),
            .init(key: "t", value: .bool(true)),
            .init(key: "f", value: .bool(false)),
            .init(key: "z", value: .null),
            .init(key: "a", value: .array([.number("1"), .array([]), .object([])])),
            .init(key: "o", value: .object([.init(key: "k", value: .string("v"))])),
        ])
        #expect(PlainJSON(value) == expected)
    }

    @Test(
        "any value may be the whole document, surrounded by whitespace",
        arguments: [
            (" \t\r\n\"x\" ", PlainJSON.string("x")), ("0", .number("0")), ("true", .bool(true)), ("null", .null),
            ("[]", .array([])), ("{}", .object([])),
        ])
    func scalarDocuments(_ text: String, _ expected: PlainJSON) throws {
        #expect(PlainJSON(try Self.parse(text)) == expected)
    }

    @Test(
        "escapes",
        arguments: [
            (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
            (#""\u00e9\u00E9\u0041""#, "ééA"),
            (#""a\u0000b""#, "a\u{0}b"),
            (#""\ud83d\ude00""#, "😀"),
            (#""\uD834\uDD1E clef""#, "𝄞 clef"),
            (#""\uffff\u0800\u07ff\u0080\u007f""#, "\u{FFFF}\u{0800}\u{07FF}\u{0080}\u{7F}"),
            (#""raw é, escaped \u00e9, raw 😀""#, "raw é, escaped é, raw 😀"),
            (
                #""long prefix before the first escape: 0123456789 0123456789\n""#,
                "long prefix before the first escape: 0123456789 0123456789\n"
            ),
        ])
    func escapes(_ json: String, _ expected: String) throws {
        #expect(try Self.parse(json) == .string(expected))
    }

    @Test("keys are unescaped like any string")
    func escapedKeys() throws {
        let value = try Self.parse(#"{"stat\u0075s":21007,"\u00e9":1}"#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object["status"] == .number("21007"))
        #expect(object["é"] == .number("1"))
    }

    @Test("raw UTF-8 of every length is kept")
    func rawUTF8() throws {
        let text = "A é € 😀 中文"
        #expect(try Self.parse("\"\(text)\"") == .string(text))
    }

    @Test(
        "numbers keep their exact text, beyond Int64 and Double too",
        arguments: [
            "0", "-0", "7", "-7", "1592575024000", "0.5", "-1.5e-3", "1E+2", "1e400", "2.5E-7",
            "9223372036854775808", "123456789012345678901234567890123456789012",
        ])
    func numbers(_ literal: String) throws {
        #expect(try Self.parse(literal) == .number(literal))
        #expect(PlainJSON(try Self.parse("[\(literal)]")) == .array([.number(literal)]))
    }

    @Test(
        "numbers outside RFC 8259's grammar are refused",
        arguments: [
            "01", "-01", "00", "-", "1.", "1.e3", ".1", "+1", "1e", "1e+", "1E-", "0x1", "1_000", "NaN", "Infinity",
            "-Infinity", "--1", "1.5.", "1ee3", "[1.]", "[-]", #"{"a":01}"#,
        ])
    func invalidNumbers(_ text: String) {
        #expect(Self.reason(text) != nil)
    }

    @Test("duplicate keys are all kept; lookups read the first, as JSONDecoder did")
    func duplicateKeys() throws {
        guard case .object(let object) = try Self.parse(#"{"a":1,"b":2,"a":3,"a":4}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(object.members.map(\.key) == ["a", "b", "a", "a"])
        #expect(object["a"] == .number("1"))
        #expect(object.contains("a"))
        #expect(!object.contains("c"))
    }

    @Test("lookups find every member of a large object, and nothing else")
    func largeObject() throws {
        let keys = (0..<1_000).map { "key_\($0)" } + ["", "k", "\u{e9}t\u{e9}", "a\u{0}b"]
        let body =
            "{"
            + keys.enumerated().map {
                "\"\($0.element.unicodeScalars.map { $0 == "\u{0}" ? "\\u0000" : String($0) }.joined())\":\($0.offset)"
            }
            .joined(separator: ",") + "}"
        guard case .object(let object) = try Self.parse(body) else {
            Issue.record("not an object")
            return
        }
        for (offset, key) in keys.enumerated() {
            #expect(object[key] == .number(String(offset)), "\(key)")
        }
        for absent in ["key_1000", "key_", "key_-1", "KEY_1", "a", "a\u{0}", "\u{0}"] {
            #expect(object[absent] == nil, "\(absent)")
        }
        #expect(object.members.count == keys.count)
    }

    @Test("keys with the same length, start and end are told apart")
    func fingerprintCollisions() throws {
        // The fingerprint sees the length and the first and last eight bytes only.
        guard
            case .object(let object) = try Self.parse(
                #"{"original_A_date_ms":1,"original_B_date_ms":2,"original_A_date_ms":3,"original_C_date_ms":4}"#)
        else {
            Issue.record("not an object")
            return
        }
        #expect(object["original_A_date_ms"] == .number("1"))
        #expect(object["original_B_date_ms"] == .number("2"))
        #expect(object["original_C_date_ms"] == .number("4"))
        #expect(object["original_D_date_ms"] == nil)
    }

    @Test("an escaped key is found by its meaning, and an escaped string reads decoded")
    func escapedKeyLookup() throws {
        guard case .object(let object) = try Self.parse(#"{"transaction\u005fid":"1\u0030","product_id":"p\/q"}"#)
        else {
            Issue.record("not an object")
            return
        }
        #expect(object["transaction_id"] == .string("10"))
        #expect(object["product_id"] == .string("p/q"))
        #expect(object.members.map(\.key) == ["transaction_id", "product_id"])
    }

    /// A body whose byte order mark was stripped is a `Data` slice whose indices start at 3: every
    /// offset on the tape must count from its first byte, not from index 0.
    @Test("a Data slice parses, its strings, digits, booleans and escapes read from its own first byte")
    func dataSlice() throws {
        let whole = Data(
            [0xEF, 0xBB, 0xBF] + Array(#"{"status":21007,"ok":true,"id":"1000","name":"p\/q","count":"42"}"#.utf8))
        let slice = whole.dropFirst(3)
        #expect(slice.startIndex == 3)
        guard case .object(let object) = try AppleJSONParser.parse(slice) else {
            Issue.record("not an object")
            return
        }
        #expect(object["status"] == .number("21007"))
        #expect(object["id"] == .string("1000"))
        #expect(object["name"] == .string("p/q"))
        #expect(object.members.map(\.key) == ["status", "ok", "id", "name", "count"])
        let count = try #require(object.valueIndex(of: "count"))
        #expect(object.document.withField(at: count) { $0.plainDigits } == 42)
        let ok = try #require(object.valueIndex(of: "ok"))
        #expect(object.document.withField(at: ok) { $0.plainBool } == true)
    }

    // MARK: - What it refuses

    struct Malformed: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var reason: AppleJSONSyntaxError.Reason
        var testDescription: String { name }

        init(_ name: String, _ text: String, _ reason: AppleJSONSyntaxError.Reason) {
            self.init(name, Array(text.utf8), reason)
        }

        init(_ name: String, _ bytes: [UInt8], _ reason: AppleJSONSyntaxError.Reason) {
            self.name = name
            self.bytes = bytes
            self.reason = reason
        }
    }

    static let malformed: [Malformed] = [
        Malformed("empty", "", .unexpectedEnd),
        Malformed("whitespace only", " \n", .unexpectedEnd),
        Malformed("unterminated string", #"{"a":"bc"#, .unexpectedEnd),
        Malformed("unterminated object", #"{"a":1"#, .unexpectedEnd),
        Malformed("unterminated array", "[1,2", .unexpectedEnd),
        Malformed("key without value", #"{"a":"#, .unexpectedEnd),
        Malformed("cut in a literal", "[tru", .unexpectedEnd),
        Malformed("cut in an escape", #"["\u00"#, .unexpectedEnd),
        Malformed("cut between surrogates", #"["\ud83d"#, .unexpectedEnd),
        Malformed("trailing comma in object", #"{"a":1,}"#, .unexpectedByte),
        Malformed("trailing comma in array", "[1,]", .unexpectedByte),
        Malformed("leading comma", "[,1]", .unexpectedByte),
        Malformed("missing colon", #"{"a" 1}"#, .unexpectedByte),
        Malformed("missing comma", #"{"a":1 "b":2}"#, .unexpectedByte),
        Malformed("single quotes", "{'a':1}", .unexpectedByte),
        Malformed("unquoted key", "{a:1}", .unexpectedByte),
        Malformed("number key", "{1:1}", .unexpectedByte),
        Malformed("block comment", "{\"a\":1 /* c */}", .unexpectedByte),
        Malformed("line comment", "{\"a\":1 // c\n}", .unexpectedByte),
        Malformed("mismatched bracket", #"{"a":[1}"#, .unexpectedByte),
        Malformed("capitalised literal", "[TRUE]", .unexpectedByte),
        Malformed("misspelt literal", "[nul]", .unexpectedByte),
        Malformed("longer literal", "[nulll]", .unexpectedByte),
        Malformed("trailing garbage", #"{"status":0}}"#, .trailingData),
        Malformed("two documents", #"{"a":1}{"a":2}"#, .trailingData),
        Malformed("NUL after the document", Array("{}".utf8) + [0], .trailingData),
        Malformed("vertical tab is not whitespace", "{}\u{0B}", .trailingData),
        Malformed("form feed is not whitespace", "\u{0C}{}", .unexpectedByte),
        Malformed("no-break space is not whitespace", "{}\u{A0}", .trailingData),
        Malformed("byte order mark (the caller strips it)", [0xEF, 0xBB, 0xBF] + Array("{}".utf8), .unexpectedByte),
        Malformed("raw tab in a string", "[\"a\tb\"]", .controlCharacterInString),
        Malformed("raw newline in a string", "[\"a\nb\"]", .controlCharacterInString),
        Malformed("raw NUL in a string", [0x5B, 0x22, 0x00, 0x22, 0x5D], .controlCharacterInString),
        Malformed("raw control character after an escape", "[\"\\n\u{1F}\"]", .controlCharacterInString),
        Malformed("unknown escape", #"["\x"]"#, .invalidEscape),
        Malformed("escaped single quote", #"["\'"]"#, .invalidEscape),
        Malformed("short \\u", #"["\u12"]"#, .invalidUnicodeEscape),
        Malformed("non-hex \\u", #"["\u12G4"]"#, .invalidUnicodeEscape),
        Malformed("lone high surrogate", #"["\ud800"]"#, .invalidUnicodeEscape),
        Malformed("lone low surrogate", #"["\udc00"]"#, .invalidUnicodeEscape),
        Malformed("high surrogate then a letter", #"["\ud800\u0041"]"#, .invalidUnicodeEscape),
        Malformed("high surrogate twice", #"["\ud800\ud800"]"#, .invalidUnicodeEscape),
        Malformed("invalid UTF-8 byte", [0x5B, 0x22, 0xFF, 0x22, 0x5D], .invalidUTF8),
        Malformed("overlong UTF-8", [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], .invalidUTF8),
        Malformed("UTF-8 encoded surrogate", [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], .invalidUTF8),
        Malformed("truncated UTF-8 sequence", [0x5B, 0x22, 0xE2, 0x82, 0x22, 0x5D], .invalidUTF8),
        Malformed("invalid UTF-8 beside an escape", [0x5B, 0x22, 0x5C, 0x6E, 0xFF, 0x22, 0x5D], .invalidUTF8),
        Malformed("UTF-16", Array("{\"a\":1}".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), .unexpectedByte),
    ]

    @Test("malformed documents are refused with their reason", arguments: malformed)
    func refused(_ row: Malformed) {
        #expect(Self.reason(row.bytes) == row.reason)
    }

    @Test("the error names the offending byte")
    func errorOffset() {
        #expect(throws: AppleJSONSyntaxError(reason: .unexpectedByte, offset: 7)) {
            try Self.parse(#"{"a":1,}"#).self
        }
        #expect(throws: AppleJSONSyntaxError(reason: .invalidUnicodeEscape, offset: 2)) {
            try Self.parse(#"["\udc00"]"#).self
        }
        #expect(
            AppleJSONSyntaxError(reason: .trailingData, offset: 12).description
                == "invalid JSON at byte 12: trailingData")
    }

    // MARK: - Nesting

    @Test("nesting up to the limit parses; one more level is refused")
    func depthLimit() throws {
        let limit = AppleJSONParser.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try Self.parse(deepest) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: AppleJSONSyntaxError(reason: .tooDeep, offset: limit)) { try Self.parse(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(Self.reason(objects) == .tooDeep)
    }

    /// The error's offset is the first bracket past the limit: the parser stopped there, without
    /// reading (or recursing into) the rest of the body.
    @Test("a hostile body of 100k brackets fails at the limit, without recursing further")
    func hostileNesting() {
        let limit = AppleJSONParser.maximumDepth
        #expect(throws: AppleJSONSyntaxError(reason: .tooDeep, offset: limit)) {
            try AppleJSONParser.parse([UInt8](repeating: UInt8(ascii: "["), count: 100_000))
        }
        // `{"a":[` opens two levels in six bytes: the level past the limit is the `{` of repetition limit / 2.
        #expect(throws: AppleJSONSyntaxError(reason: .tooDeep, offset: 6 * (limit / 2))) {
            try AppleJSONParser.parse(Array(String(repeating: #"{"a":["#, count: 50_000).utf8))
        }
        let decoded = decodingResult(
            Data(#"{"status":0,"x":"#.utf8) + Data(repeating: UInt8(ascii: "["), count: 100_000))
        #expect(decoded == .failure(.malformedJSON(byteCount: 100_016)))
    }

    // MARK: - Truncation and corruption of real answers

    /// Real answers to cut: the conformance corpus when present, and answers the simulator writes.
    static func realAnswers() -> [(name: String, bytes: [UInt8])] {
        var answers = SimulatorAnswers.sample(count: 6).enumerated().map {
            ("simulator answer \($0.offset)", $0.element)
        }
        for url in Conformance.files(in: "responses/alexalok", withExtension: "json")
            + Conformance.files(in: "responses/venice", withExtension: "json")
        {
            if let data = try? Data(contentsOf: url) {
                // The parser does not skip a byte order mark; decode strips it first.
                answers.append((url.lastPathComponent, Array(VerifyReceiptDecodingError.stripByteOrderMark(data))))
            }
        }
        return answers
    }

    @Test("every proper prefix of a real answer is refused as cut off, and decode fails cleanly")
    func everyPrefix() throws {
        var prefixes = 0
        for (name, bytes) in Self.realAnswers() {
            #expect(throws: Never.self, "\(name) parses whole") { try AppleJSONParser.parse(bytes) }
            // Files may end in a newline: a prefix that still holds the closing brace is whole.
            let closingBrace = try #require(bytes.lastIndex(of: UInt8(ascii: "}")))
            for length in 0...closingBrace {
                let prefix = Array(bytes[..<length])
                let reason = Self.reason(prefix)
                if reason != .unexpectedEnd {
                    Issue.record("\(name) cut at \(length): \(String(describing: reason))")
                }
                let decoded = decodingResult(Data(prefix))
                let start = bytes.firstIndex(of: UInt8(ascii: "{"))!
                let expected: VerifyReceiptDecodingError =
                    length > start ? .malformedJSON(byteCount: length) : .emptyBody
                if decoded != .failure(expected) {
                    Issue.record("\(name) cut at \(length) decodes to \(decoded)")
                }
                prefixes += 1
            }
        }
        #expect(prefixes > 10_000)
    }

    @Test("single-byte corruptions of an answer never crash, and what still decodes matches the old decoder")
    func byteCorruptions() throws {
        let answer = SimulatorAnswers.typical(size: 1_500)
        let replacements: [UInt8] = [0x00, 0x09, 0x22, 0x2C, 0x30, 0x5B, 0x5C, 0x5D, 0x7B, 0x7D, 0x80, 0xFF]
        var decoded = 0
        var refused = 0
        for offset in answer.indices {
            for replacement in replacements where answer[offset] != replacement {
                var corrupt = answer
                corrupt[offset] = replacement
                switch decodingResult(Data(corrupt)) {
                case .success(let response):
                    // The new decoder is stricter, never more lenient: whatever it accepts, the
                    // JSONDecoder-based one accepted and read the same way.
                    if legacyDecodingResult(Data(corrupt)) != .success(response) {
                        Issue.record("byte \(offset) -> \(replacement): differs from the old decoder")
                    }
                    decoded += 1
                case .failure:
                    refused += 1
                }
            }
        }
        #expect(decoded > 1_000)
        #expect(refused > 1_000)
    }
}
