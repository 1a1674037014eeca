import AppStoreReceipts
import Foundation
import Testing

@testable import Reconciliation

/// The finance fields of CONTRACT §9 on their way from Apple's signed transaction to a
/// `recon_transactions` row: kept exactly, merged like the other fields, tagged with their source.
@Suite struct FinanceFieldsTests {
    static let signed = SignedTransaction(
        transactionID: "5", originalTransactionID: "4", productID: World.monthly, purchaseDate: World.day(-3),
        expiresDate: World.day(27), quantity: 1, revocationDate: World.day(-1), revocationType: .refundProrated,
        offerType: .offerCode, offerIdentifier: "SPRING", offerDiscountType: .payUpFront, storefront: "FRA",
        transactionReason: .renewal, price: 10_990, currency: "EUR")

    @Test func aSignedTransactionKeepsItsFinanceFieldsAndRevocationAsSent() {
        let read = Purchase(Self.signed, source: .serverAPI)
        #expect(read.price == CurrencyAmount(milliunits: 10_990) && read.currency == "EUR" && read.storefront == "FRA")
        #expect(read.offer.type == 3 && read.offer.discountType == "PAY_UP_FRONT")
        #expect(read.transactionReason == "RENEWAL" && read.revocation?.type == "REFUND_PRORATED")
        // A value Apple adds later is kept, not dropped.
        var future = Self.signed
        future.offerType = SignedOfferType(rawValue: 9)
        future.revocationType = .init(rawValue: "REFUND_PARTIAL_2030")
        future.revocationPercentage = 33_333
        #expect(Purchase(future, source: .serverAPI).offer.type == 9)
        #expect(Purchase(future, source: .serverAPI).revocation?.type == "REFUND_PARTIAL_2030")
        #expect(Purchase(future, source: .serverAPI).refundPercentage?.description == "33.333")
    }

    @Test func verifyReceiptAnswersHaveNoFinanceFields() throws {
        let answer =
            #"{"status":0,"receipt":{"in_app":[{"product_id":"p","transaction_id":"1","#
            + #""original_transaction_id":"1","purchase_date_ms":"1000","price":"1990","currency":"USD"}]}}"#
        let response = try VerifyReceiptResponse.decode(Data(answer.utf8))
        let receipt = UserReceipt(
            receiptID: 1, classification: ReceiptClassification(outcome: .valid, detail: ""), response: response)
        let purchase = try #require(receipt.purchases.first)
        #expect(purchase.price == nil && purchase.currency == nil && purchase.storefront == nil)
    }

    @Test func mergingFillsMissingFinanceFieldsAndKeepsThePreferredOnes() {
        var latest = Purchase.Fields(source: .serverAPI)
        latest.transactionID = "7"
        latest.price = CurrencyAmount(milliunits: 1_990)
        latest.currency = "USD"
        var other = Purchase.Fields(source: .serverAPI)
        other.transactionID = "7"
        other.price = CurrencyAmount(milliunits: 2_990)
        other.currency = "EUR"
        other.storefront = "USA"
        other.offer = Purchase.Offer(type: 1, discountType: "FREE_TRIAL")
        other.transactionReason = "PURCHASE"
        other.revocation = Revocation(date: World.asOf, type: "REFUND_FULL")
        let merged = Purchase(latest).merging(Purchase(other))
        #expect(merged.price == CurrencyAmount(milliunits: 1_990) && merged.currency == "USD")
        #expect(merged.storefront == "USA" && merged.offer.type == 1 && merged.offer.discountType == "FREE_TRIAL")
        #expect(merged.transactionReason == "PURCHASE")
        // Whether the purchase stands is the preferred (fresher) report's alone: its absent refund wins.
        #expect(merged.revocation == nil)
    }

    @Test func transactionRowsCarryTheFieldsAndTheirSource() {
        let signedRow = World.receipt(1, [Purchase(Self.signed, source: .signedRow)])
        let receipt = World.receipt(2, [World.purchase("9", product: World.lifetime, bought: -10)])
        let rows = UserDecision.transactionRows([signedRow, receipt]).rows
        #expect(rows.map(\.transactionID) == ["5", "9"])
        #expect(rows[0].price == CurrencyAmount(milliunits: 10_990) && rows[0].price?.description == "10.99")
        #expect(rows[0].currency == "EUR" && rows[0].storefront == "FRA" && rows[0].offerType == 3)
        #expect(rows[0].offerDiscountType == "PAY_UP_FRONT" && rows[0].transactionReason == "RENEWAL")
        #expect(rows[0].revocationType == "REFUND_PRORATED" && rows[0].source == .signedRow)
        #expect(rows[1].price == nil && rows[1].currency == nil && rows[1].source == .verifyReceipt)
    }

    @Test(
        arguments: [
            (1_990, "1.99"), (10_000, "10"), (10_990, "10.99"), (1, "0.001"), (10, "0.01"), (100, "0.1"), (0, "0"),
            (-5, "-0.005"), (-19_980, "-19.98"), (1_000_500, "1000.5"),
            (Int64.max, "9223372036854775.807"), (Int64.min, "-9223372036854775.808"),
        ] as [(Int64, String)])
    func amountsPrintExactly(milliunits: Int64, text: String) {
        #expect(CurrencyAmount(milliunits: milliunits).description == text)
        #expect(CurrencyAmount(decimal: text) == CurrencyAmount(milliunits: milliunits) || milliunits == .min)
    }

    @Test(
        arguments: [
            ("1.990", 1_990), ("1.9900", 1_990), ("10.", nil), (".5", nil), ("1.0001", nil), ("1e3", nil), ("", nil),
            ("-", nil), ("+1", nil), ("NaN", nil), ("99999999999999999999", nil), ("٣", nil),
        ] as [(String, Int64?)])
    func amountsParseOnlyWhatTheJobWrites(text: String, milliunits: Int64?) {
        #expect(CurrencyAmount(decimal: text)?.milliunits == milliunits)
    }

    @Test func anAmountIsAJSONString() throws {
        let encoded = try JSONEncoder().encode([CurrencyAmount(milliunits: 19_980)])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["19.98"]"#)
        #expect(try JSONDecoder().decode([CurrencyAmount].self, from: encoded) == [CurrencyAmount(milliunits: 19_980)])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([CurrencyAmount].self, from: Data("[1.5]".utf8))
        }
    }
}
