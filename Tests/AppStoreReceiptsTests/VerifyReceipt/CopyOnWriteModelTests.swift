import AppStoreReceipts
import Foundation
import Testing

/// `VerifyReceiptTransaction` and `VerifyReceiptResponse` keep their fields in a shared box
/// (`CopyOnWrite`): copies must still behave as independent values, or one receipt's merge or
/// redaction would change another's transactions.
@Suite struct CopyOnWriteModelTests {
    @Test("writing a copy of a transaction leaves the original as it was")
    func transactionCopiesAreIndependent() {
        let original = VerifyReceiptTransaction(productID: "pro", transactionID: "1000000000000001")
        var copy = original
        copy.productID = "coins"
        copy.cancellationDate = Date(timeIntervalSince1970: 1_000)
        #expect(original.productID == "pro")
        #expect(original.cancellationDate == nil)
        #expect(copy.productID == "coins")
        #expect(copy.transactionID == "1000000000000001")
        #expect(original != copy)
    }

    @Test("merging fills a copy's gaps without touching either report")
    func mergingLeavesBothReportsAlone() {
        let latest = VerifyReceiptTransaction(productID: "pro", transactionID: "7")
        let inApp = VerifyReceiptTransaction(productID: "pro", transactionID: "7", inAppOwnershipType: "PURCHASED")
        let merged = latest.merging(inApp)
        #expect(merged.inAppOwnershipType == "PURCHASED")
        #expect(latest.inAppOwnershipType == nil)
        #expect(
            inApp == VerifyReceiptTransaction(productID: "pro", transactionID: "7", inAppOwnershipType: "PURCHASED"))
    }

    @Test("equal fields make equal values with equal hashes, whether or not they share a box")
    func equalityFollowsTheFields() {
        let built = VerifyReceiptTransaction(productID: "pro", transactionID: "9", quantity: 1)
        let builtAgain = VerifyReceiptTransaction(productID: "pro", transactionID: "9", quantity: 1)
        var changedBack = built
        changedBack.quantity = 2
        changedBack.quantity = 1
        #expect(built == builtAgain)
        #expect(built == changedBack)
        #expect(Set([built, builtAgain, changedBack]).count == 1)
    }

    @Test("writing a copy of a response leaves the original's receipt data and lists as they were")
    func responseCopiesAreIndependent() {
        let transaction = VerifyReceiptTransaction(productID: "pro", transactionID: "1")
        let original = VerifyReceiptResponse(rawStatus: 0, latestReceipt: "bGF0ZXN0", latestReceiptInfo: [transaction])
        var copy = original
        copy.latestReceipt = nil
        copy.latestReceiptInfo.append(VerifyReceiptTransaction(productID: "pro", transactionID: "2"))
        #expect(original.latestReceipt == "bGF0ZXN0")
        #expect(original.latestReceiptInfo == [transaction])
        #expect(copy.latestReceipt == nil)
        #expect(copy.latestReceiptInfo.map(\.transactionID) == ["1", "2"])
    }

    @Test("a printed transaction shows its fields, as it did before they moved into a box")
    func printedTransactionShowsItsFields() {
        let text = String(describing: VerifyReceiptTransaction(productID: "pro", transactionID: "42"))
        #expect(text.hasPrefix("VerifyReceiptTransaction("))
        #expect(text.contains(#"productID: Optional("pro")"#))
        #expect(text.contains(#"transactionID: Optional("42")"#))
        #expect(!text.contains("storage"))
    }
}
