import Foundation
import TestSupport
import Testing

@testable import AppStoreReceipts

/// The local decoding's fast paths against the paths they stand in for: base64 four symbols at a
/// time against the one-symbol loop it replaced, and `decodeSummary` (which skips purchases)
/// against the whole decoding, on the corpus, on every receipt kind the simulator writes, and on
/// every single-byte corruption and truncation of a few of them.
@Suite struct LocalReceiptFastPathTests {
    typealias Outcome = Result<LocalReceipt, ReceiptDecodingError>

    static func outcome(_ decode: () throws(ReceiptDecodingError) -> LocalReceipt) -> Outcome {
        Result { () throws(ReceiptDecodingError) in try decode() }
    }

    /// The corpus's receipts and every receipt of the simulated world.
    static var receiptTexts: [String] {
        let corpus = Conformance.files(in: "receipts", withExtension: "b64").compactMap {
            try? String(contentsOf: $0, encoding: .utf8)
        }
        return corpus + SimulatorAnswers.receiptData
    }

    /// A few receipts of different kinds, as bytes: a DER app receipt, an Xcode BER receipt, an
    /// iOS 6 transaction receipt.
    static func sampleReceipts() throws -> [[UInt8]] {
        let texts = SimulatorAnswers.receiptData
        func first(_ matches: (LocalReceipt) -> Bool) throws -> [UInt8] {
            let text = try #require(
                texts.filter { (try? LocalReceiptDecoder.decode(base64: $0)).map(matches) ?? false }
                    .min { $0.utf8.count < $1.utf8.count })
            return Array(try #require(Data(base64Encoded: text)))
        }
        return [
            try first { $0.format == .appReceipt && !$0.isXcodeTestReceipt && $0.inApp.count >= 2 },
            try first(\.isXcodeTestReceipt),
            try first { $0.format == .transactionReceipt },
        ]
    }

    /// `bytes` with every single byte replaced in turn (by its complement and by its successor),
    /// and every truncation.
    static func corruptions(of bytes: [UInt8]) -> [[UInt8]] {
        var variants = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for position in bytes.indices {
            for replacement in [~bytes[position], bytes[position] &+ 1] {
                var variant = bytes
                variant[position] = replacement
                variants.append(variant)
            }
        }
        return variants
    }

    @Test("base64 decodes every text to the same bytes or the same error as before")
    func base64() throws {
        var texts = Self.receiptTexts.map { Array($0.utf8) }
        // Whitespace, padding and bad characters at every position of a receipt's text, and
        // every truncation: the fast path must hand each back to the general loop at the right place.
        let sample = try #require(texts.filter { $0.count > 100 }.min { $0.count < $1.count })
        for position in sample.indices {
            texts.append(Array(sample.prefix(position)))
            for replacement in " \n=!A-".utf8 {
                var variant = sample
                variant[position] = replacement
                texts.append(variant)
            }
            texts.append(Array(sample.prefix(position)) + [UInt8(ascii: " ")] + Array(sample.dropFirst(position)))
        }
        texts += ["", " ", "=", "QQ", "QQ=", "QQ==", "QQ===", "QUI", "QUI=", "QUJD", "Q", " Q U J D ", "QUJD=", "QU=D"]
            .map { Array($0.utf8) }
        for text in texts {
            let new = Result { () throws(ReceiptDecodingError) in try LocalReceiptBase64.decode(text) }
            #expect(new == LegacyLocalReceiptBase64.decode(text), "\(String(decoding: text.prefix(80), as: UTF8.self))")
        }
    }

    /// The summary is the whole decoding without purchases: equal when the whole decoding
    /// succeeds, and the same error when it fails, except for a failure inside a purchase,
    /// which only the whole decoding sees.
    /// - Parameter insidePurchase: for a corrupted receipt, whether the corruption lies inside a
    ///   purchase (nil when unknown): only then may the summary accept what the whole decoding refuses.
    static func expectSummaryMatchesWholeDecoding(
        _ text: String, insidePurchase: Bool? = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let summary = outcome { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decodeSummary(base64: text) }
        let whole = outcome { () throws(ReceiptDecodingError) in try LocalReceiptDecoder.decode(base64: text) }
        switch (whole, summary) {
        case (.success(var receipt), _):
            receipt.inApp = receipt.format == .appReceipt ? [] : receipt.inApp
            #expect(summary == .success(receipt), sourceLocation: sourceLocation)
        case (.failure(let error), .failure(let summaryError)):
            #expect(summaryError == error, sourceLocation: sourceLocation)
        case (.failure(let error), .success(let receipt)):
            #expect(receipt.format == .appReceipt, sourceLocation: sourceLocation)
            #expect(insidePurchase != false, "refused with \(error)", sourceLocation: sourceLocation)
            switch error {
            case .invalidAttribute(let type, _):
                #expect(
                    type == LocalReceiptAttributeType.inAppPurchase || (1700..<1800).contains(type),
                    sourceLocation: sourceLocation)
            case .malformedPayload, .malformedDER, .truncatedHeader, .lengthExceedsInput, .missingEndOfContents,
                .nestingTooDeep, .tooManyElements, .trailingBytes:
                break  // inside a purchase's own SET, which the summary never parses
            default:
                Issue.record(
                    "the summary accepted what the whole decoding refused with \(error)", sourceLocation: sourceLocation
                )
            }
        }
    }

    @Test("decodeSummary agrees with the whole decoding on the corpus and every simulated receipt kind")
    func summaryOnReceipts() {
        let texts = Self.receiptTexts
        #expect(texts.count > 150)
        for text in texts { Self.expectSummaryMatchesWholeDecoding(text) }
    }

    /// Where the values of the purchases (attribute 17) lie in a DER receipt's bytes; nil for
    /// other receipts (BER chunks the payload, so its offsets are not the container's).
    static func purchaseRanges(_ receipt: [UInt8]) -> [Range<Int>]? {
        // The payload is the container's largest OCTET STRING.
        guard let container = try? BERDocument(parsing: receipt[...]),
            let octets = container.nodes.indices.filter({ container.octetString(at: $0) != nil })
                .max(by: {
                    container[$0].contentEnd - container[$0].contentStart < container[$1].contentEnd
                        - container[$1].contentStart
                }),
            !container[octets].tag.isConstructed, let payload = container.octetString(at: octets),
            let document = try? BERDocument(parsing: payload)
        else { return nil }
        return document.childIndices(of: BERDocument.root).compactMap { attribute in
            guard case (let type, _, let value)? = document.threeChildren(of: attribute),
                LocalReceiptDecoder.twosComplement(document.content(of: type))
                    == Int64(LocalReceiptAttributeType.inAppPurchase)
            else { return nil }
            return document[value].contentStart..<document[value].contentEnd
        }
    }

    @Test("decodeSummary agrees with the whole decoding on every single-byte corruption and truncation")
    func summaryOnCorruptions() throws {
        var decoded = 0
        for receipt in try Self.sampleReceipts() {
            let purchases = Self.purchaseRanges(receipt)
            for variant in Self.corruptions(of: receipt) {
                let text = Data(variant).base64EncodedString()
                var insidePurchase: Bool? = false
                if variant.count == receipt.count,
                    let position = variant.indices.first(where: { variant[$0] != receipt[$0] })
                {
                    insidePurchase = purchases.map { ranges in ranges.contains { $0.contains(position) } }
                }
                Self.expectSummaryMatchesWholeDecoding(text, insidePurchase: insidePurchase)
                if (try? LocalReceiptDecoder.decodeSummary(base64: text)) != nil { decoded += 1 }
            }
        }
        // Many corruptions land in values (a letter of the bundle id, a digit of a date) and decode.
        #expect(decoded > 1_000)
    }
}
