import Foundation

/// Apple's money amounts: integers in thousandths of the currency unit (`price` 1990 is 1.99 in
/// `currency`). Converted with `Decimal` so that 10990 prints `10.99`, never `10.990000000000002`.
enum Milliunits {
    static func decimal(_ milliunits: Int64) -> Decimal {
        Decimal(milliunits) / 1_000
    }
}
