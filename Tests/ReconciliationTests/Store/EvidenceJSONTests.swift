import Foundation
import Postgres
import Testing

@testable import Reconciliation

/// Evidence is stored as `SortedJSONObject` writes it and read back by `JSONDecoder.sorted`: the text
/// must be what Foundation's `JSONEncoder.sorted` writes for the same members (key order, escapes,
/// numbers), and read back whole.
@Suite struct EvidenceJSONTests {
    /// Every kind of member, text that needs each escape Foundation makes (quote, backslash, slash,
    /// control characters, non-ASCII, U+2028), and keys whose order differs from their declaration's.
    static var evidence: Evidence {
        let hostile = "a/b \"q\" \\ \u{8}\u{C}\n\r\t\u{1}\u{1F} 日本 👍 \u{2028}\u{7F} </script>"
        var evidence = EvidenceStoreTests.evidence
        evidence.entitlement = hostile
        evidence.originalTransactionID = "1000000/1"
        evidence.otherUsers = ["u/2", hostile]
        var row = Evidence.EntitlementFact(entitlement: "premium/gold")
        row.expiresAt = Date(timeIntervalSince1970: 1_792_000_000.007)
        row.productID = hostile
        row.updatedAt = Date(timeIntervalSince1970: 1_791_000_000)
        evidence.entitlementRows = [row, Evidence.EntitlementFact(entitlement: "pro")]
        evidence.revertsCorrectionID = -9_007_199_254_740_993
        evidence.revertsRunID = 42
        evidence.revertsReason = .refund
        evidence.receipts[0].unverified = .transient
        evidence.purchases.append(Evidence.PurchaseFact(source: .signedRow))
        evidence.purchases[0].revocationPercentage = Percentage(thousandths: 100_000)
        return evidence
    }

    @Test(arguments: [Self.evidence, EvidenceStoreTests.evidence, Evidence(rule: "expired")])
    func theStoredTextIsWhatJSONEncoderWrites(_ evidence: Evidence) throws {
        let foundation = String(decoding: try JSONEncoder.sorted.encode(evidence), as: UTF8.self)
        #expect(evidence.storedJSON.text == foundation)
        #expect(Evidence(storedJSON: evidence.storedJSON.text) == evidence)
    }

    @Test func emptyListsAndAbsentFactsAreLeftOut() {
        #expect(Evidence(rule: "expired").storedJSON.text == #"{"rule":"expired"}"#)
    }
}
