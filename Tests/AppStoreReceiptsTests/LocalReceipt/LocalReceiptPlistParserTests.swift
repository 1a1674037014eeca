import Testing

@testable import AppStoreReceipts

@Suite struct LocalReceiptPlistParserTests {
    func parse(_ text: String) throws(ReceiptDecodingError) -> [String: LocalReceiptPlistValue] {
        try LocalReceiptPlistParser.parse(Array(text.utf8))
    }

    @Test func parsesTheTransactionReceiptShape() throws {
        let result = try parse(
            """
            {
            \t"signature" = "AmRv+/x==";
            \t"purchase-info" = "ewoJ";
            \tpod = 100;
            \tnested = { "a" = "b"; c = d; };
            \t"empty" = "";
            }
            """)
        #expect(
            result == [
                "signature": .string("AmRv+/x=="),
                "purchase-info": .string("ewoJ"),
                "pod": .string("100"),
                "nested": .dictionary(["a": .string("b"), "c": .string("d")]),
                "empty": .string(""),
            ])
    }

    @Test func emptyDictionaryAndByteOrderMark() throws {
        #expect(try parse("{}").isEmpty)
        #expect(try LocalReceiptPlistParser.parse([0xEF, 0xBB, 0xBF] + Array("  { }\n".utf8)).isEmpty)
    }

    @Test(arguments: [
        (#""a\"b""#, "a\"b"), (#""a\\b""#, "a\\b"), (#""\n\t\r""#, "\n\t\r"),
        (#""\a\b\f\v""#, "\u{07}\u{08}\u{0C}\u{0B}"),
        (#""\101\60""#, "A0"), (#""\U00e9\U20AC""#, "é€"), (#""\'""#, "'"), ("\"é raw\"", "é raw"),
        ("\"multi\nline\"", "multi\nline"), ("com.example-app_1:2/3+$", "com.example-app_1:2/3+$"),
    ])
    func strings(literal: String, value: String) throws {
        #expect(try parse("{ k = \(literal); }")["k"] == .string(value))
    }

    @Test func rejectsInvalidUTF8InStrings() {
        let bytes = Array("{ k = \"".utf8) + [0xFF] + Array("\"; }".utf8)
        #expect(
            throws: ReceiptDecodingError.malformedTransactionReceipt(offset: 6, problem: "a string that is not UTF-8")
        ) {
            try LocalReceiptPlistParser.parse(bytes)
        }
    }

    @Test(arguments: ["", "k = v;", "( a )", "{ k = v; } }", "{ = v; }", "{ k = ; }", "{ k = v }", "{ \"k\" = \"v\"; "])
    func rejectsMalformedDocuments(text: String) {
        #expect(throws: ReceiptDecodingError.self) { try parse(text) }
    }
}
