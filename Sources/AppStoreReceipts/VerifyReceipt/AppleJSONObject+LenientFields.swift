import Foundation

/// Lenient field readers, for the models decoded from an `AppleJSONDocument` (signed data, the
/// Server API's answers).
///
/// None of them throws: a field Apple sends in an unexpected shape reads as absent instead of
/// failing the whole response, because one odd field must not turn a valid receipt into an
/// "unverified" one. What each spelling reads as is `AppleJSONFieldValue`'s.
extension AppleJSONObject {
    /// The scalar under `key`; nil when absent, `null`, an object or an array.
    func appleScalar(_ key: String) -> AppleJSONScalar? {
        self[key].flatMap(AppleJSONScalar.init)
    }

    /// Text; a number is rendered with all its digits (ids may come as numbers).
    func appleString(_ key: StaticString) -> String? {
        field(key) { $0.string }
    }

    func appleInt(_ key: StaticString) -> Int? {
        field(key) { $0.int }
    }

    func appleBool(_ key: StaticString) -> Bool? {
        field(key) { $0.bool }
    }

    /// A date, preferring the milliseconds key, then the text key, then `alternative` (which
    /// may also hold milliseconds, as iOS 6 `expires_date` does). Two fixed text keys rather
    /// than a variadic list: the list was an array allocated on every call.
    func appleDate(
        milliseconds millisecondsKey: StaticString, text textKey: StaticString, _ alternative: StaticString? = nil
    ) -> Date? {
        if let date = field(millisecondsKey, { $0.millisecondsDate }) { return date }
        if let date = field(textKey, { $0.textDate }) { return date }
        return alternative.flatMap { field($0) { $0.textDate } }
    }

    private func field<Value>(_ key: StaticString, _ read: (AppleJSONFieldValue) -> Value?) -> Value? {
        guard let index = valueIndex(of: key) else { return nil }
        return document.withField(at: index, read)
    }
}
