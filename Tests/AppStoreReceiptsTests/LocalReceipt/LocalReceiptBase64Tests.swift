import Foundation
import Testing

@testable import AppStoreReceipts

@Suite struct LocalReceiptBase64Tests {
    @Test(arguments: ["", "f", "fo", "foo", "foob", "fooba", "foobar"])
    func decodesPaddedAndUnpadded(plain: String) throws {
        let padded = Data(plain.utf8).base64EncodedString()
        if plain.isEmpty { return }
        #expect(try LocalReceiptBase64.decode(padded.utf8) == Array(plain.utf8))
        let unpadded = padded.replacingOccurrences(of: "=", with: "")
        #expect(try LocalReceiptBase64.decode(unpadded.utf8) == Array(plain.utf8))
        let spaced = padded.map { "\($0) \r\n\t" }.joined()
        #expect(try LocalReceiptBase64.decode(spaced.utf8) == Array(plain.utf8))
    }

    @Test func matchesFoundationOnRandomData() throws {
        var random = SplitMix64(seed: 64)
        for count in 0..<300 {
            let bytes = random.bytes(count)
            let text = Data(bytes).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn])
            if count == 0 {
                #expect(throws: ReceiptDecodingError.emptyInput) { try LocalReceiptBase64.decode(text.utf8) }
            } else {
                #expect(try LocalReceiptBase64.decode(text.utf8) == bytes)
            }
        }
    }

    @Test func detectsDoubleEncodedReceipts() {
        #expect(LocalReceiptBase64.isNestedReceiptText(Array("MIIT6QYJKoZIhvcNAQcCoIIT2jCCE9YCAQEx".utf8)))
        #expect(LocalReceiptBase64.isNestedReceiptText(Array("\newoJInNpZ25hdHVyZSIgPSAi".utf8)))
        #expect(!LocalReceiptBase64.isNestedReceiptText(Array("MI".utf8)))
        #expect(!LocalReceiptBase64.isNestedReceiptText(Array("MIIT is not base64!".utf8)))
        #expect(!LocalReceiptBase64.isNestedReceiptText([0x30, 0x82, 0x01, 0x00]))
    }
}
