/// `jsonb` cells of a `PostgresArrayColumn`: the `evidence` a correction row carries (`revert`'s rows).
extension PostgresJSON: PostgresArrayElement {
    public static var arrayElementType: String { "jsonb" }
    public static var typicalTextLength: Int { 120 }
    public func appendArrayElementText(to bytes: inout [UInt8]) { text.appendArrayElementText(to: &bytes) }
}
