import Postgres

/// A `numeric` column of the writers: the exact decimal text, e.g. `33.333` for 33 333 thousandths.
extension Percentage: PostgresArrayElement {
    public static var arrayElementType: String { "numeric" }
    public static var typicalTextLength: Int { 3 }
    @inlinable
    public func appendArrayElementText(to bytes: inout [UInt8]) { appendDecimalText(to: &bytes) }
}
