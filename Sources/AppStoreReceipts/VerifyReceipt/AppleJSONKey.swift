/// A coding key spelled exactly as Apple spells it (`"expires_date_ms"`, `"is-retryable"`).
///
/// The verifyReceipt models read Apple's snake_case names directly, with fallbacks between
/// spellings (`bundle_id` / `bid`), which is clearer with string keys than with one
/// `CodingKeys` enum per spelling.
struct AppleJSONKey: CodingKey, Hashable, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { self.stringValue = value }
}
