import AppStoreReceipts
import Foundation
import Testing

@Suite struct VerifyReceiptRequestTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let receipt = "MIIV8AYJKoZIhvcNAQcCoIIV4TCCFd0CAQExCzAJBgUrDgMCGgUA"

    func jsonObject(_ request: VerifyReceiptRequest) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: request.jsonBody())
        return try #require(object as? [String: Any])
    }

    @Test("the body carries Apple's hyphenated keys")
    func body() throws {
        let request = VerifyReceiptRequest(receiptData: Self.receipt, password: Self.secret)
        let object = try jsonObject(request)
        #expect(object["receipt-data"] as? String == Self.receipt)
        #expect(object["password"] as? String == Self.secret)
        #expect(object["exclude-old-transactions"] as? Bool == true)
        #expect(object.count == 3)
    }

    @Test("without a shared secret, password is omitted rather than sent empty or null")
    func passwordOmitted() throws {
        let request = VerifyReceiptRequest(receiptData: Self.receipt, excludeOldTransactions: false)
        let object = try jsonObject(request)
        #expect(object["password"] == nil)
        #expect(object["exclude-old-transactions"] as? Bool == false)
        #expect(String(decoding: try request.jsonBody(), as: UTF8.self).contains("password") == false)
    }

    @Test("identical requests are identical bytes, slashes unescaped")
    func deterministicBody() throws {
        let request = VerifyReceiptRequest(receiptData: "ab/c+d==", password: "s")
        #expect(
            String(decoding: try request.jsonBody(), as: UTF8.self)
                == #"{"exclude-old-transactions":true,"password":"s","receipt-data":"ab/c+d=="}"#)
    }

    @Test(
        "the hand-written body is what JSONEncoder writes, for any text a secret or a bad row might hold",
        arguments: [
            "plain", #"quote " and backslash \ "#, "control \u{01}\u{1F}\u{08}\u{0C}", "tab\tslash/", "unicode é 日本 👍",
            "",
        ])
    func bodyMatchesJSONEncoder(text: String) throws {
        for request in [
            VerifyReceiptRequest(receiptData: Self.receipt, password: text),
            VerifyReceiptRequest(receiptData: text, password: nil, excludeOldTransactions: false),
        ] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(try request.jsonBody() == encoder.encode(request))
        }
    }

    @Test("whitespace and line breaks in stored base64 are removed before sending")
    func whitespaceStripped() {
        let request = VerifyReceiptRequest(receiptData: "MIIV8AYJ\r\nKoZIhvcN AQcC\n\toIIV4T  ")
        #expect(request.receiptData == "MIIV8AYJKoZIhvcNAQcCoIIV4T")
        #expect(VerifyReceiptRequest(receiptData: "MIIV\u{00A0}8AYJ\u{2028}").receiptData == "MIIV8AYJ")
    }

    @Test("nothing that prints a request shows the secret or the receipt")
    func redacted() {
        let request = VerifyReceiptRequest(receiptData: Self.receipt, password: Self.secret)
        var dumped = ""
        dump(request, to: &dumped)
        for text in [request.description, request.debugDescription, "\(request)", String(reflecting: request), dumped] {
            #expect(!text.contains(Self.secret), "secret in: \(text)")
            #expect(!text.contains("MIIV8AYJ"), "receipt in: \(text)")
            #expect(text.contains("redacted"))
        }
        #expect(request.description.contains("exclude-old-transactions: true"))
        #expect(VerifyReceiptRequest(receiptData: "x").description.contains("password: none"))
    }
}
