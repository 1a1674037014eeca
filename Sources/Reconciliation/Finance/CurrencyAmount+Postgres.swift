import Postgres

/// A `numeric` column of the writers: the exact decimal text, e.g. `1.99` for 1990 milliunits.
/// PostgreSQL keeps the scale it is given, so the export prints what was written.
extension CurrencyAmount: PostgresArrayElement {
    public static var arrayElementType: String { "numeric" }
    public static var typicalTextLength: Int { 6 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { appendDecimalText(to: &bytes) }
}
