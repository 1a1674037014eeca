import Testing

@testable import AppStoreReceipts

@Suite struct BERDocumentTests {
    @Test func walksChildrenOfDefiniteAndIndefiniteElements() throws {
        // SEQUENCE(indef) { INTEGER 5, SEQUENCE { NULL, NULL }, OCTET STRING(constructed, indef) { "ab", "c" } }
        let bytes: [UInt8] = [
            0x30, 0x80,
            0x02, 0x01, 0x05,
            0x30, 0x04, 0x05, 0x00, 0x05, 0x00,
            0x24, 0x80, 0x04, 0x02, 0x61, 0x62, 0x04, 0x01, 0x63, 0x00, 0x00,
            0x00, 0x00,
        ]
        let document = try BERDocument(parsing: bytes[...])
        let children = Array(document.childIndices(of: BERDocument.root))
        #expect(children.count == 3)
        #expect(document[children[0]].tag == .integer)
        #expect(Array(document.content(of: children[0])) == [0x05])
        #expect(Array(document.childIndices(of: children[1])).count == 2)
        #expect(document.octetString(at: children[2]).map(Array.init) == Array("abc".utf8))
        #expect(document[BERDocument.root].contentEnd == bytes.count - 2)
        #expect(document.nodes.count == 8)
    }

    @Test func constructedOctetStringsMustHoldOnlyOctetStrings() throws {
        let bytes: [UInt8] = [0x24, 0x05, 0x04, 0x01, 0x61, 0x05, 0x00]
        let document = try BERDocument(parsing: bytes[...])
        #expect(document.octetString(at: BERDocument.root) == nil)
    }

    @Test func parsesWithinASliceReportingRelativeOffsets() {
        let bytes: [UInt8] = [0xAA, 0xAA, 0x30, 0x84, 0x00, 0x00, 0x01, 0x00, 0xAA]
        #expect(throws: ReceiptDecodingError.lengthExceedsInput(offset: 0, declaredLength: 256, remaining: 1)) {
            try BERDocument(parsing: bytes[2...])
        }
    }

    @Test func highTagNumbers() throws {
        let tag = BERTag(tagClass: .contextSpecific, isConstructed: false, number: 1_000_000)
        let bytes = BERWriter.element(tag, [0x01])
        let document = try BERDocument(parsing: bytes[...])
        #expect(document[BERDocument.root].tag == tag)
    }

    @Test(
        arguments: [
            (0 as Int64, [0x00] as [UInt8]), (127, [0x7F]), (128, [0x00, 0x80]), (-1, [0xFF]), (-128, [0x80]),
            (-129, [0xFF, 0x7F]), (.max, [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            (.min, [0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
        ] as [(Int64, [UInt8])])
    func integersUseTheShortestTwosComplement(value: Int64, octets: [UInt8]) {
        let encoded = BERWriter.integer(value)
        #expect(encoded == [0x02, UInt8(octets.count)] + octets)
        #expect(LocalReceiptDecoder.twosComplement(octets[...]) == value)
    }

    @Test(arguments: [
        (0, [0x00] as [UInt8]), (127, [0x7F]), (128, [0x81, 0x80]), (256, [0x82, 0x01, 0x00]),
        (70_000, [0x83, 0x01, 0x11, 0x70]),
    ])
    func lengthsUseTheShortestForm(count: Int, octets: [UInt8]) {
        #expect(BERWriter.length(count) == octets)
    }
}
