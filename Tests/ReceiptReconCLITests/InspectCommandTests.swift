import Foundation
import TestSupport
import Testing

/// `receipt-recon inspect` through the built binary: real receipts decode to their known values, and
/// anything else exits 65 quickly with one line, whatever the bytes.
@Suite struct InspectCommandTests {
    /// The corpus and `inspect` both spell keys in snake case.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    struct Expected: Decodable {
        let format: String
        let bundleId: String
        let environment: String
        let transactionIds: [String]
        let originalTransactionIds: [String]
        let productIds: [String]
        let applicationVersion: String
        let originalApplicationVersion: String?
        let receiptCreationDate: String?
    }

    struct Inspected: Decodable {
        struct InApp: Decodable {
            let productId: String?
            let transactionId: String?
            let originalTransactionId: String?
        }
        let format: String
        let bundleId: String?
        let environment: String?
        let applicationVersion: String?
        let originalApplicationVersion: String?
        let creationDate: String?
        let inApp: [InApp]
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func conformanceReceiptsDecodeToTheirExpectedValues() throws {
        let expected = try Self.decoder.decode(
            [String: Expected].self, from: Conformance.file("receipts/EXPECTED.json"))
        #expect(expected.count == 3)
        for (name, want) in expected {
            let path = Conformance.directory!.appendingPathComponent("receipts/\(name)").path
            let result = try ReceiptReconBinary.run(["inspect", path])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let got = try Self.decoder.decode(Inspected.self, from: Data(result.stdout.utf8))
            #expect(got.format == (want.format == "ios6-transaction-receipt" ? "transaction_receipt" : "app_receipt"))
            #expect(got.bundleId == want.bundleId)
            #expect(got.environment == want.environment)
            #expect(got.applicationVersion == want.applicationVersion)
            if let original = want.originalApplicationVersion {
                #expect(got.originalApplicationVersion == original)
            }
            if let created = want.receiptCreationDate { #expect(got.creationDate == created) }
            #expect(got.inApp.compactMap(\.transactionId).sorted() == want.transactionIds.sorted())
            #expect(got.inApp.compactMap(\.originalTransactionId).sorted() == want.originalTransactionIds.sorted())
            #expect(got.inApp.compactMap(\.productId).sorted() == want.productIds.sorted())
        }
    }

    @Test(.enabled(if: Conformance.isAvailable, "conformance corpus not found"))
    func readsStandardInputWithWhitespace() throws {
        let text = String(
            decoding: try Conformance.file("receipts/tpinappreceipt-receipt-sandbox-g5.b64"), as: UTF8.self)
        // Wrapped at 76 columns, as mail and some SDKs store it.
        var wrapped = ""
        for (index, character) in text.enumerated() {
            if index > 0, index % 76 == 0 { wrapped += "\r\n" }
            wrapped.append(character)
        }
        let result = try ReceiptReconBinary.run(["inspect", "-"], stdin: Data((" \n" + wrapped + "\n\t").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"bundle_id\": \"dev.bonzer.weeka.app\""))
    }

    static func nested(depth: Int) -> Data {
        // SEQUENCE, indefinite length, `depth` times: a BER bomb for naive recursive parsers.
        Data([UInt8](repeating: 0x30, count: depth).flatMap { [$0, 0x80] })
    }

    @Test(
        arguments: [
            ("empty", Data()),
            ("whitespace", Data("  \n\t ".utf8)),
            ("not base64", Data("this is not a receipt!".utf8)),
            ("random bytes", Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })),
            ("deeply nested DER", Data(nested(depth: 50_000).base64EncodedString().utf8)),
            (
                "huge declared length",
                Data(Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x01, 0x00]).base64EncodedString().utf8)
            ),
            (
                "eight-byte length",
                Data(
                    Data([0x30, 0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]).base64EncodedString().utf8)
            ),
            ("truncated PKCS#7", Data("MIIBcjCCAW4GCSqGSIb3DQEHAqCCAV8wggFbAgEBMQ8wDQYJYIZIAWUDBAIBBQAwggEG".utf8)),
        ] as [(String, Data)])
    func nonReceiptsExit65WithOneLine(name: String, input: Data) throws {
        let result = try ReceiptReconBinary.run(["inspect", "-"], stdin: input, timeout: 20)
        #expect(result.status == 65, "\(name): \(result.output)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
        #expect(result.stderr.contains("not a receipt"))
    }

    @Test func missingFileIsADataError() throws {
        let result = try ReceiptReconBinary.run(["inspect", "/nonexistent/receipt.b64"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("/nonexistent/receipt.b64"))
    }
}
