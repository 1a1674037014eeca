/// A percentage from 0 to 100 in thousandths of a percent, Apple's `revocationPercentage` (25000 is
/// 25 %, 33333 is 33.333 %), printed and stored as an exact decimal (`recon_transactions.revocation_percentage`:
/// `25`, `33.333`, `100`).
///
/// Why not `CurrencyAmount`, whose scale and text are the same: a share of a price is not money, and
/// a type of its own keeps a percentage out of a sum of prices. The text is `CurrencyAmount`'s.
public struct Percentage: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// 0 to 100 000.
    public let thousandths: Int64

    /// Apple's `revocationPercentage` as it comes.
    /// - Returns: nil outside 0...100 000: a share of a price beyond it is not one Apple gives.
    public init?(thousandths: Int64) {
        guard (0...Self.full.thousandths).contains(thousandths) else { return nil }
        self.thousandths = thousandths
    }

    private init(exactly thousandths: Int64) {
        self.thousandths = thousandths
    }

    /// 100 %: a full refund, a refund without a percentage, a verifyReceipt cancellation.
    public static let full = Percentage(exactly: 100_000)

    /// The percentage of a decimal text (`25`, `33.333`, `100.000`), as the database prints it.
    /// - Returns: nil for anything else, finer than a thousandth, or outside 0...100.
    public init?(decimal text: some StringProtocol) {
        guard let value = CurrencyAmount(decimal: text) else { return nil }
        self.init(thousandths: value.milliunits)
    }

    /// The exact decimal without trailing zeros: `25`, `33.333`, `100`.
    public var description: String { CurrencyAmount(milliunits: thousandths).description }

    /// `description`'s bytes, appended.
    @inlinable
    public func appendDecimalText(to bytes: inout [UInt8]) {
        CurrencyAmount(milliunits: thousandths).appendDecimalText(to: &bytes)
    }

    public static func < (lhs: Percentage, rhs: Percentage) -> Bool { lhs.thousandths < rhs.thousandths }
}
