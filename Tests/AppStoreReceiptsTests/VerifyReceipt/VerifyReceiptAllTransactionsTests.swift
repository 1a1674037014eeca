import AppStoreReceipts
import Foundation
import Testing

@Suite struct VerifyReceiptAllTransactionsTests {
    @Test("a transaction reported in several places appears once, with everything Apple said about it")
    func mergesDuplicates() throws {
        let response = try verifyReceiptResponse(
            #"""
            {"status":0,
             "receipt":{"bundle_id":"com.example","in_app":[
               {"transaction_id":"2","product_id":"pro","expires_date_ms":"1000","in_app_ownership_type":"PURCHASED"},
               {"transaction_id":"1","product_id":"coins"}]},
             "latest_receipt_info":[
               {"transaction_id":"3","product_id":"pro","expires_date_ms":"3000"},
               {"transaction_id":"2","product_id":"pro","expires_date_ms":"2000","subscription_group_identifier":"g"}]}
            """#)
        let all = response.allTransactions
        #expect(all.map(\.transactionID) == ["3", "2", "1"])
        let merged = try #require(all.first { $0.transactionID == "2" })
        // latest_receipt_info wins where both speak; in_app fills what it left out.
        #expect(merged.expiresDate == appleDate(milliseconds: 2_000))
        #expect(merged.subscriptionGroupIdentifier == "g")
        #expect(merged.inAppOwnershipType == "PURCHASED")
    }

    @Test("transactions without an id are kept, not merged")
    func keepsAnonymous() throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"receipt":{"in_app":[{"product_id":"a"},{"product_id":"b"},{"transaction_id":"","product_id":"c"}]}}"#
        )
        #expect(response.allTransactions.map(\.productID) == ["a", "b", "c"])
    }

    @Test("an iOS 6 receipt contributes its own purchase")
    func transactionReceipt() throws {
        let response = try verifyReceiptResponse(
            #"{"status":0,"receipt":{"bid":"com.foo","bvrs":"1","transaction_id":"5","product_id":"p","expires_date":"1550386188000"}}"#
        )
        #expect(response.receipt?.format == .transactionReceipt)
        #expect(response.receipt?.bundleID == "com.foo")
        #expect(response.receipt?.applicationVersion == "1")
        #expect(response.allTransactions.map(\.transactionID) == ["5"])
        #expect(response.allTransactions.first?.expiresDate == appleDate(milliseconds: 1_550_386_188_000))
    }

    @Test("merging prefers the receiver's values and fills its gaps")
    func merging() {
        let fresh = VerifyReceiptTransaction(
            transactionID: "1", expiresDate: appleDate(milliseconds: 2), isUpgraded: nil)
        let stale = VerifyReceiptTransaction(
            transactionID: "1", expiresDate: appleDate(milliseconds: 1), cancellationDate: appleDate(milliseconds: 5),
            isUpgraded: true)
        let merged = fresh.merging(stale)
        #expect(merged.expiresDate == appleDate(milliseconds: 2))
        #expect(merged.cancellationDate == appleDate(milliseconds: 5))
        #expect(merged.isUpgraded == true)
    }
}
