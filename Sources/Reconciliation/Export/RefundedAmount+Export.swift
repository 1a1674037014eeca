import AppStoreReceipts

extension RefundedAmount {
    /// One refund's amount for the `refunds` export: price × percentage ÷ 100 rounded to a milliunit, as
    /// the runs' `refundedAmount` counts it in the environment the purchase was made in; nil where that
    /// figure would not count it (`share`: an upgrade, a family member's copy, a revocation that is not a
    /// refund, an unknown environment) or it has no price or currency.
    static func amount(of refund: Refund) -> CurrencyAmount? {
        guard let environment = refund.environment else { return nil }
        return figures([refund], environment: environment).first?.amount
    }

    /// The refund of an export row's cells, by column name (`price`, `currency`, `environment`,
    /// `is_upgraded`, `ownership_type`, `revocation_type`, `revocation_percentage`).
    static func refund(cells: [String: CSVCell]) -> Refund {
        func text(_ name: String) -> String? {
            switch cells[name] {
            case .text(let value)?, .number(let value)?: return value
            default: return nil
            }
        }
        let isUpgraded: Bool?
        if case .boolean(let value)? = cells["is_upgraded"] { isUpgraded = value } else { isUpgraded = nil }
        return Refund(
            price: text("price").flatMap { CurrencyAmount(decimal: $0) }, currency: text("currency"),
            environment: text("environment").flatMap(AppStoreEnvironment.init(rawValue:)), isUpgraded: isUpgraded,
            ownershipType: text("ownership_type"), revocationType: text("revocation_type"),
            revocationPercentage: text("revocation_percentage").flatMap { Percentage(decimal: $0) })
    }
}
