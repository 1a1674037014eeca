import AppStoreReceipts
import Testing

@testable import Reconciliation

/// The `refunds` export's `refunded_amount`: one refund counted as the runs' `refundedAmount` counts it,
/// in the environment the purchase was made in, from the row's cells.
@Suite struct RefundedAmountExportTests {
    static func cells(
        price: String? = "9.99", currency: String? = "USD", environment: String? = "production",
        isUpgraded: Bool? = false, ownership: String? = "PURCHASED", type: String? = "REFUND_PRORATED",
        percentage: String? = "25"
    ) -> [String: CSVCell] {
        [
            "price": price.map { .number($0) } ?? .null, "currency": currency.map { .text($0) } ?? .null,
            "environment": environment.map { .text($0) } ?? .null,
            "is_upgraded": isUpgraded.map { .boolean($0) } ?? .null,
            "ownership_type": ownership.map { .text($0) } ?? .null,
            "revocation_type": type.map { .text($0) } ?? .null,
            "revocation_percentage": percentage.map { .number($0) } ?? .null,
        ]
    }

    @Test(
        arguments: [
            (cells(), "2.498"),  // 25 % of 9.99 is 2.4975, rounded once, half away from zero
            (cells(type: "REFUND_FULL", percentage: nil), "9.99"),
            (cells(environment: "sandbox"), "2.498"),  // the sandbox export counts sandbox refunds
            (cells(type: nil, percentage: "100"), "9.99"),  // verifyReceipt's cancellation
            (cells(isUpgraded: true), nil),  // the money moved to the upgrade
            (cells(ownership: "FAMILY_SHARED"), nil),  // the purchaser's transaction holds the money
            (cells(type: "FAMILY_REVOKE", percentage: nil), nil),
            (cells(price: nil), nil),
            (cells(currency: nil), nil),
            (cells(environment: nil), nil),
        ] as [([String: CSVCell], String?)])
    func amountOfOneRefund(cells: [String: CSVCell], amount: String?) {
        #expect(RefundedAmount.amount(of: RefundedAmount.refund(cells: cells))?.description == amount)
    }
}
