import Foundation
import Testing

@testable import AppStoreReceipts

/// `inspect` and the 21002 fallback feed the decoder whatever is in the database: it must name
/// the problem, and never trap, hang or balloon (CONTRACT §3).
@Suite struct LocalReceiptHostileInputTests {
    typealias Failure = ReceiptDecodingError

    static let sampleDER = LocalReceiptEncoder.appReceipt(LocalReceiptSamples.appReceipt)
    static let sampleBER = LocalReceiptEncoder.appReceipt(
        LocalReceiptSamples.appReceipt, encoding: .indefiniteLengthBER(chunkSize: 64)
    )

    /// The error `body` throws; records an issue when it succeeds.
    func failure(_ body: () throws(Failure) -> LocalReceipt) -> Failure? {
        do {
            _ = try body()
            Issue.record("decoded without error")
            return nil
        } catch {
            #expect(!error.description.isEmpty && !error.description.contains("\n"), "one line: \(error)")
            return error
        }
    }

    // MARK: Text

    @Test(arguments: ["", " ", "\n\t \r\n  "])
    func emptyOrWhitespaceOnly(text: String) {
        #expect(throws: Failure.emptyInput) { try LocalReceiptDecoder.decode(base64: text) }
    }

    @Test func emptyBytes() {
        #expect(throws: Failure.emptyInput) { try LocalReceiptDecoder.decode(bytes: []) }
        #expect(throws: Failure.emptyInput) { try LocalReceiptDecoder.decode(der: []) }
    }

    @Test(arguments: [
        ("hello world!", 11),  // '!' is outside the alphabet
        ("MIIB-abc", 4),  // base64url is not accepted
        ("MIIB_abc", 4),
        ("QUJD\u{00E9}", 4),  // first byte of a non-ASCII character
        ("QQ=A", 3),  // data after padding
        ("QUJD=", 4),  // padding after a complete group
        ("Q===", 1),  // padding after one symbol
        ("QUJDR", 5),  // a dangling sixth bit-group
        ("QQ=", 3),  // half the padding
        ("[REDACTED]", 0),  // seen in the wild as latest_receipt
    ])
    func notBase64(text: String, offset: Int) {
        #expect(throws: Failure.notBase64(offset: offset)) { try LocalReceiptDecoder.decode(base64: text) }
    }

    @Test func provablyNotAReceipt() {
        #expect(Failure.emptyInput.isEmptyOrNotBase64)
        #expect(Failure.notBase64(offset: 3).isEmptyOrNotBase64)
        #expect(!Failure.unrecognizedFormat.isEmptyOrNotBase64)
        #expect(!Failure.notSignedData.isEmptyOrNotBase64)
    }

    @Test func doubleEncodedTextThatIsNotBase64InsideIsUnrecognized() {
        // Valid base64 of "MIIB=AAA": looks double-encoded, but the inner padding is misplaced.
        let text = Data("MIIB=AAA".utf8).base64EncodedString()
        #expect(throws: Failure.unrecognizedFormat) { try LocalReceiptDecoder.decode(base64: text) }
    }

    @Test(arguments: ["aGVsbG8gd29ybGQ=", "PD94bWwgdmVyc2lvbj0iMS4wIj8+", "AAAA"])
    func base64OfSomethingElse(text: String) {
        #expect(throws: Failure.unrecognizedFormat) { try LocalReceiptDecoder.decode(base64: text) }
    }

    @Test func tooLargeIsRefusedBeforeDecoding() {
        let text = String(repeating: "A", count: LocalReceiptDecoder.maxBase64Length + 4)
        #expect(throws: Failure.tooLarge(byteCount: text.utf8.count, limit: LocalReceiptDecoder.maxBase64Length)) {
            try LocalReceiptDecoder.decode(base64: text)
        }
        let bytes = [UInt8](repeating: 0x30, count: LocalReceiptDecoder.maxByteCount + 1)
        #expect(throws: Failure.tooLarge(byteCount: bytes.count, limit: LocalReceiptDecoder.maxByteCount)) {
            try LocalReceiptDecoder.decode(der: bytes)
        }
    }

    // MARK: Random and mutated bytes

    @Test func randomBytesNotStartingLikeAReceiptAreUnrecognized() {
        var random = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<3000 {
            var bytes = random.bytes(Int.random(in: 1...300, using: &random))
            // Not a SEQUENCE, not text that could open a plist (whitespace, BOM, "{").
            while [0x30, 0xEF, 0x20, UInt8(ascii: "{")].contains(bytes[0]) || (0x09...0x0D).contains(bytes[0]) {
                bytes[0] = UInt8.random(in: 0...255, using: &random)
            }
            #expect(throws: Failure.unrecognizedFormat) { try LocalReceiptDecoder.decode(bytes: bytes) }
        }
    }

    @Test func randomBytesAfterASequenceTagFailAsDER() {
        var random = SplitMix64(seed: 0x5EED_0002)
        for _ in 0..<3000 {
            let bytes = [0x30] + random.bytes(Int.random(in: 0...300, using: &random))
            let error = failure { () throws(Failure) in try LocalReceiptDecoder.decode(der: bytes) }
            switch error {
            case .emptyInput?, .unrecognizedFormat?, .notBase64?, .tooLarge?:
                Issue.record("unexpected \(String(describing: error))")
            default:
                break
            }
        }
    }

    @Test func randomBase64TextNeverDecodes() {
        var random = SplitMix64(seed: 0x5EED_0003)
        for _ in 0..<2000 {
            let text = Data(random.bytes(Int.random(in: 1...300, using: &random))).base64EncodedString()
            _ = failure { () throws(Failure) in try LocalReceiptDecoder.decode(base64: text) }
        }
    }

    /// Bit flips, insertions, deletions and length corruption of a valid receipt: whatever
    /// comes out, the decoder returns (a value or an error) instead of trapping.
    @Test(arguments: [false, true])
    func mutatedReceiptsNeverTrap(indefiniteLength: Bool) {
        var random = SplitMix64(seed: indefiniteLength ? 0x5EED_0005 : 0x5EED_0004)
        let original = indefiniteLength ? Self.sampleBER : Self.sampleDER
        var decoded = 0
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                case 2: if bytes.count > 1 { bytes.remove(at: index) }
                default: bytes[index] = [0x80, 0x84, 0xFF, 0x00][Int.random(in: 0..<4, using: &random)]
                }
            }
            if (try? LocalReceiptDecoder.decode(der: bytes)) != nil { decoded += 1 }
        }
        // Flips inside string values still decode; most structural damage must not.
        #expect(decoded < 3000)
    }

    // MARK: Truncation

    @Test func everyPrefixOfADERReceiptIsTruncated() throws {
        let full = Self.sampleDER
        #expect(full[1] == 0x82, "the sample is large enough for a two-octet length")
        for length in 1..<full.count {
            let prefix = Array(full[..<length])
            let expected: Failure =
                length < 4
                ? .truncatedHeader(offset: 0)
                : .lengthExceedsInput(offset: 0, declaredLength: UInt64(full.count - 4), remaining: length - 4)
            #expect(throws: expected) { try LocalReceiptDecoder.decode(der: prefix) }
        }
    }

    @Test func everyPrefixOfABERReceiptIsTruncated() {
        let full = Self.sampleBER
        for length in 1..<full.count {
            let prefix = Array(full[..<length])
            let error = failure { () throws(Failure) in try LocalReceiptDecoder.decode(der: prefix) }
            switch error {
            case .missingEndOfContents?, .truncatedHeader?, .lengthExceedsInput?:
                break
            default:
                Issue.record("prefix \(length): \(String(describing: error))")
            }
        }
    }

    @Test func everyPrefixOfBase64IsTruncatedOrNotBase64() {
        let text = Array(LocalReceiptEncoder.base64(LocalReceiptSamples.appReceipt).utf8)
        for length in 0..<text.count {
            let prefix = text[..<length]
            let error = failure { () throws(Failure) in try LocalReceiptDecoder.decode(base64Text: prefix) }
            switch error {
            case .emptyInput?: #expect(length == 0)
            case .notBase64(let offset)?: #expect(length % 4 == 1 && offset == length)
            case .truncatedHeader?, .lengthExceedsInput?: break
            default: Issue.record("prefix \(length): \(String(describing: error))")
            }
        }
    }

    @Test func indefiniteLengthWithoutEndOfContents() {
        #expect(throws: Failure.missingEndOfContents(offset: 0)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x80, 0x06, 0x01, 0x00])
        }
        // The inner element is closed; the outer one is not.
        #expect(throws: Failure.missingEndOfContents(offset: 0)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x80, 0x30, 0x80, 0x05, 0x00, 0x00, 0x00])
        }
        // Inside a definite-length element, the bound is that element's end.
        #expect(throws: Failure.missingEndOfContents(offset: 2)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x04, 0x30, 0x80, 0x05, 0x00, 0x00, 0x00])
        }
    }

    // MARK: Nesting and sizes

    @Test func tenThousandNestedIndefiniteSequences() {
        let bytes = Array([[UInt8]](repeating: [0x30, 0x80], count: 10_000).joined())
        #expect(throws: Failure.nestingTooDeep(limit: 32)) { try LocalReceiptDecoder.decode(der: bytes) }
    }

    @Test func tenThousandNestedDefiniteSequences() {
        // Build inside out: each level is a header around the previous bytes.
        var lengths: [Int] = []
        var size = 2  // the innermost NULL
        for _ in 0..<10_000 {
            lengths.append(size)
            size += 1 + BERWriter.length(size).count
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for length in lengths.reversed() {
            bytes += [0x30] + BERWriter.length(length)
        }
        bytes += [0x05, 0x00]
        #expect(bytes.count == size)
        #expect(throws: Failure.nestingTooDeep(limit: 32)) { try LocalReceiptDecoder.decode(der: bytes) }
    }

    @Test func deeplyNestedChunkedOctetString() throws {
        // An Xcode-style container whose chunked OCTET STRING is a tower 1,000 levels high.
        let container = LocalReceiptEncoder.container(payload: [], encoding: .indefiniteLengthBER(chunkSize: 1))
        let octets: [UInt8] = [0x24, 0x80, 0x00, 0x00]
        let index = try #require(container.indices.first { container[$0...].starts(with: octets) })
        let tower =
            Array([[UInt8]](repeating: [0x24, 0x80], count: 1000).joined())
            + Array([[UInt8]](repeating: [0x00, 0x00], count: 1000).joined())
        let bytes = Array(container[..<index]) + tower + Array(container[(index + 4)...])
        #expect(throws: Failure.nestingTooDeep(limit: 32)) { try LocalReceiptDecoder.decode(der: bytes) }
    }

    @Test func deeplyNestedPayload() {
        let nested =
            Array([[UInt8]](repeating: [0x31, 0x80], count: 100).joined())
            + Array([[UInt8]](repeating: [0x00, 0x00], count: 100).joined())
        let bytes = LocalReceiptEncoder.container(payload: nested, encoding: .der)
        #expect(throws: Failure.nestingTooDeep(limit: 32)) { try LocalReceiptDecoder.decode(der: bytes) }
    }

    /// Each error names the header's offset and the input left after it: the decoder refused the
    /// length before reading (or allocating) anything it declares.
    @Test func hugeDeclaredLengthsFailFast() {
        #expect(throws: Failure.lengthExceedsInput(offset: 0, declaredLength: 0xFFFF_FFFF, remaining: 0)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF])
        }
        #expect(throws: Failure.lengthExceedsInput(offset: 0, declaredLength: .max, remaining: 2)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x88] + [UInt8](repeating: 0xFF, count: 8) + [0x05, 0x00])
        }
        // Deep inside an otherwise valid container.
        let inner: [UInt8] = [0x0C, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]
        #expect(throws: Failure.lengthExceedsInput(offset: 4, declaredLength: 0x7FFF_FFFF, remaining: 0)) {
            try LocalReceiptDecoder.decode(der: [0x30, 0x08, 0x30, 0x06] + inner)
        }
    }

    @Test func tooManyElements() {
        let nulls = Array([[UInt8]](repeating: [0x05, 0x00], count: BERDocument.maxElements + 1).joined())
        let bytes = BERWriter.element(.sequence, nulls)
        #expect(throws: Failure.tooManyElements(limit: BERDocument.maxElements)) {
            try LocalReceiptDecoder.decode(der: bytes)
        }
    }

    // MARK: Encoding rules

    @Test(
        arguments: [
            (
                [0x30, 0x89] + [UInt8](repeating: 0, count: 9),
                Failure.malformedDER(offset: 0, problem: .lengthFieldTooLong)
            ),
            ([0x30, 0xFF], .malformedDER(offset: 0, problem: .reservedLengthOctet)),
            (
                [0x30, 0x80, 0x04, 0x80, 0x00, 0x00, 0x00, 0x00],
                .malformedDER(offset: 2, problem: .indefiniteLengthPrimitive)
            ),
            ([0x30, 0x02, 0x00, 0x00], .malformedDER(offset: 2, problem: .strayEndOfContents)),
            ([0x30, 0x03, 0x00, 0x01, 0x00], .malformedDER(offset: 2, problem: .malformedEndOfContents)),
            (
                [0x30, 0x07, 0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00],
                .malformedDER(offset: 2, problem: .tagNumberTooLarge)
            ),
            ([0x30, 0x02, 0x1F, 0x81], .truncatedHeader(offset: 2)),
            ([0x30, 0x82, 0x01], .truncatedHeader(offset: 0)),
            ([0x30, 0x00, 0x00], .trailingBytes(offset: 2)),
        ] as [([UInt8], Failure)])
    func brokenEncodingRules(bytes: [UInt8], expected: Failure) {
        #expect(throws: expected) { try LocalReceiptDecoder.decode(der: bytes) }
    }

    @Test func trailingBytesAfterAValidReceipt() {
        #expect(throws: Failure.trailingBytes(offset: Self.sampleDER.count)) {
            try LocalReceiptDecoder.decode(der: Self.sampleDER + [0x00])
        }
    }

    // MARK: Container and payload shape

    static func signedData(encapsulated: [UInt8]) -> [UInt8] {
        let signedData = BERWriter.element(
            .sequence,
            children: [
                BERWriter.integer(1), BERWriter.element(.set, []), encapsulated, BERWriter.element(.set, []),
            ])
        return BERWriter.element(
            .sequence,
            children: [
                BERWriter.objectIdentifier(LocalReceiptDecoder.signedDataOID),
                BERWriter.element(.contextSpecific(0), children: [signedData]),
            ])
    }

    @Test func containerShapes() {
        let wrongType = BERWriter.element(
            .sequence,
            children: [
                BERWriter.objectIdentifier(LocalReceiptDecoder.dataOID),
                BERWriter.element(.contextSpecific(0), children: [BERWriter.element(.sequence, [])]),
            ])
        #expect(throws: Failure.notSignedData) { try LocalReceiptDecoder.decode(der: wrongType) }
        #expect(throws: Failure.notSignedData) { try LocalReceiptDecoder.decode(der: [0x30, 0x00]) }

        let envelopedData = Self.signedData(
            encapsulated: BERWriter.element(
                .sequence,
                children: [
                    BERWriter.objectIdentifier([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x03])
                ]))
        #expect(throws: Failure.malformedSignedData(problem: "the encapsulated content is not PKCS#7 data")) {
            try LocalReceiptDecoder.decode(der: envelopedData)
        }
        let detached = Self.signedData(
            encapsulated: BERWriter.element(
                .sequence,
                children: [
                    BERWriter.objectIdentifier(LocalReceiptDecoder.dataOID)
                ]))
        #expect(throws: Failure.malformedSignedData(problem: "no encapsulated content (a detached signature)")) {
            try LocalReceiptDecoder.decode(der: detached)
        }
        let notOctets = Self.signedData(
            encapsulated: BERWriter.element(
                .sequence,
                children: [
                    BERWriter.objectIdentifier(LocalReceiptDecoder.dataOID),
                    BERWriter.element(.contextSpecific(0), children: [BERWriter.utf8String("receipt")]),
                ]))
        #expect(throws: Failure.malformedSignedData(problem: "the encapsulated content is not an OCTET STRING")) {
            try LocalReceiptDecoder.decode(der: notOctets)
        }
    }

    @Test func payloadShapes() throws {
        func decode(payload: [UInt8]) throws(Failure) -> LocalReceipt {
            try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.container(payload: payload, encoding: .der))
        }
        #expect(throws: Failure.malformedPayload(problem: "the payload is empty")) { try decode(payload: []) }
        #expect(throws: Failure.malformedPayload(problem: "not a SET of receipt attributes")) {
            try decode(payload: BERWriter.element(.sequence, []))
        }
        #expect(throws: Failure.malformedPayload(problem: "an attribute is not a SEQUENCE { type, version, value }")) {
            try decode(payload: BERWriter.setOf([BERWriter.element(.sequence, children: [BERWriter.integer(2)])]))
        }
        // An empty SET is a receipt with nothing in it (as made before any purchase).
        #expect(try decode(payload: BERWriter.setOf([])).inApp.isEmpty)
    }

    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        BERWriter.element(
            .sequence,
            children: [
                BERWriter.integer(Int64(type)), BERWriter.integer(1), BERWriter.octetString(value),
            ])
    }

    @Test(
        arguments: [
            (1703, BERWriter.integer(7), "a UTF-8 string"),
            (1702, [0x0C, 0x02, 0xC3, 0x28], "a UTF-8 string"),
            (1702, BERWriter.element(.null, []), "a UTF-8 string"),
            (1702, BERWriter.utf8String("ab") + [0x00], "a UTF-8 string"),
            (1704, BERWriter.ia5String("2024-13-01T00:00:00Z"), "an RFC 3339 date string"),
            (1704, BERWriter.ia5String("2024-02-30T00:00:00Z"), "an RFC 3339 date string"),
            (1708, BERWriter.integer(1_700_000_000), "an RFC 3339 date string"),
            (1701, BERWriter.element(.integer, [UInt8](repeating: 1, count: 9)), "an INTEGER of at most 64 bits"),
            (1701, BERWriter.element(.integer, []), "an INTEGER of at most 64 bits"),
            (1719, BERWriter.utf8String("true"), "an INTEGER of at most 64 bits"),
        ] as [(Int, [UInt8], String)])
    func invalidInAppAttributeValues(type: Int, value: [UInt8], expected: String) {
        let inApp = BERWriter.setOf([Self.attribute(type, value)])
        let payload = BERWriter.setOf([Self.attribute(17, inApp)])
        #expect(throws: Failure.invalidAttribute(type: type, expected: expected)) {
            try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.container(payload: payload, encoding: .der))
        }
    }

    @Test func invalidTopLevelAttributeValues() {
        let notASet = BERWriter.setOf([Self.attribute(17, BERWriter.utf8String("purchase"))])
        #expect(throws: Failure.invalidAttribute(type: 17, expected: "a SET of in-app attributes")) {
            try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.container(payload: notASet, encoding: .der))
        }
        let badBundle = BERWriter.setOf([Self.attribute(2, [0x0C, 0x01, 0xFF])])
        #expect(throws: Failure.invalidAttribute(type: 2, expected: "a UTF-8 string")) {
            try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.container(payload: badBundle, encoding: .der))
        }
    }

    @Test func unknownAndOversizedAttributeTypesAreIgnored() throws {
        let payload = BERWriter.setOf([
            Self.attribute(2, BERWriter.utf8String("com.example.app")),
            Self.attribute(25, [0xDE, 0xAD]),  // unknown, not even DER
            BERWriter.element(
                .sequence,
                children: [
                    BERWriter.element(.integer, [0x01, 0, 0, 0, 0, 0, 0, 0, 2]), BERWriter.integer(1),
                    BERWriter.octetString([]),
                ]),
        ])
        let receipt = try LocalReceiptDecoder.decode(
            der: LocalReceiptEncoder.container(payload: payload, encoding: .der))
        #expect(receipt.bundleID == "com.example.app")
    }

    @Test func errorsNeverEchoReceiptContent() {
        let inApp = BERWriter.setOf([
            Self.attribute(1702, BERWriter.utf8String("SECRET-PRODUCT")),
            Self.attribute(1704, BERWriter.ia5String("SECRET-DATE")),
        ])
        let payload = BERWriter.setOf([
            Self.attribute(2, BERWriter.utf8String("SECRET-BUNDLE")), Self.attribute(17, inApp),
        ])
        let error = failure { () throws(Failure) in
            try LocalReceiptDecoder.decode(der: LocalReceiptEncoder.container(payload: payload, encoding: .der))
        }
        #expect(error == .invalidAttribute(type: 1704, expected: "an RFC 3339 date string"))
        #expect(error?.description == "receipt attribute 1704 (purchase date) is not an RFC 3339 date string")
        #expect(error?.description.contains("SECRET") == false)
    }

    // MARK: iOS 6 transaction receipts

    static func transactionReceipt(_ text: String) throws(Failure) -> LocalReceipt {
        try LocalReceiptDecoder.decode(base64: Data(text.utf8).base64EncodedString())
    }

    static func purchaseInfo(_ text: String) -> String {
        "{ \"purchase-info\" = \"\(Data(text.utf8).base64EncodedString())\"; }"
    }

    @Test(
        arguments: [
            ("{", Failure.malformedTransactionReceipt(offset: 1, problem: "unexpected end of text")),
            ("{ \"a", .malformedTransactionReceipt(offset: 2, problem: "unterminated string")),
            ("{ \"a\" \"b\"; }", .malformedTransactionReceipt(offset: 6, problem: "expected \"=\"")),
            ("{ \"a\" = \"b\" }", .malformedTransactionReceipt(offset: 12, problem: "expected \";\"")),
            (
                "{ \"a\" = (1, 2); }",
                .malformedTransactionReceipt(
                    offset: 8, problem: "arrays and data do not occur in transaction receipts")
            ),
            (
                "{ \"a\" = <0fbd>; }",
                .malformedTransactionReceipt(
                    offset: 8, problem: "arrays and data do not occur in transaction receipts")
            ),
            ("{ \"a\" = \"\\q\"; }", .malformedTransactionReceipt(offset: 9, problem: "an unknown escape")),
            (
                "{ \"a\" = \"\\U12\"; }",
                .malformedTransactionReceipt(offset: 9, problem: "a \\U escape without 4 hex digits")
            ),
            (
                "{ \"a\" = \"\\UD800\"; }",
                .malformedTransactionReceipt(
                    offset: 9, problem: "an escape that is not a Unicode scalar")
            ),
            ("{ a = 1; a = 2; }", .malformedTransactionReceipt(offset: 9, problem: "duplicate key")),
            (
                "{ a = 1; } x",
                .malformedTransactionReceipt(offset: 11, problem: "unexpected text after the closing \"}\"")
            ),
            ("{ a = 1; }", .missingTransactionReceiptField("purchase-info")),
            (
                "{ \"purchase-info\" = \"!!\"; }",
                .invalidTransactionReceiptField("purchase-info", expected: "base64 text")
            ),
            (
                "{ \"purchase-info\" = { a = b; }; }",
                .invalidTransactionReceiptField("purchase-info", expected: "base64 text")
            ),
            (
                purchaseInfo("{ \"a\" = "),
                .malformedTransactionReceipt(
                    offset: 8, problem: "unexpected end of text (inside purchase-info)")
            ),
            (purchaseInfo("{ quantity = many; }"), .invalidTransactionReceiptField("quantity", expected: "an integer")),
            (
                purchaseInfo("{ \"purchase-date-ms\" = \"5x\"; }"),
                .invalidTransactionReceiptField("purchase-date-ms", expected: "a date")
            ),
            (
                purchaseInfo("{ \"expires-date\" = \"99999999999999999999\"; }"),
                .invalidTransactionReceiptField("expires-date", expected: "a date")
            ),
            (
                purchaseInfo("{ \"is-trial-period\" = \"maybe\"; }"),
                .invalidTransactionReceiptField("is-trial-period", expected: "true or false")
            ),
            (
                purchaseInfo("{ bid = { nested = dictionary; }; }"),
                .invalidTransactionReceiptField("bid", expected: "a string")
            ),
        ] as [(String, Failure)])
    func malformedTransactionReceipts(text: String, expected: Failure) {
        #expect(throws: expected) { try Self.transactionReceipt(text) }
    }

    @Test func deeplyNestedTransactionReceipt() {
        let text = String(repeating: "{a=", count: 10_000)
        #expect(throws: Failure.nestingTooDeep(limit: 32)) { try Self.transactionReceipt(text) }
    }
}
