import Foundation

/// Lenient field readers used by the `init(_ json:)` of every verifyReceipt model.
///
/// None of them throws: a field Apple sends in an unexpected shape reads as absent instead of
/// failing the whole response, because one odd field must not turn a valid receipt into an
/// "unverified" one. Only `status` is required (see `VerifyReceiptResponse`).
///
/// The readers run a score of times per transaction, so each first tries the spelling Apple
/// actually sends (`"1566378703000"`, `"1"`, `"true"`, plain text) on the document's bytes,
/// without building an `AppleJSONValue` or a `String` it would throw away; anything else goes
/// through `AppleJSONScalar`, the one definition of what every spelling means. The fast paths
/// only ever answer where that definition gives the same answer
/// (`VerifyReceiptFieldReaderTests` compares the two on every spelling).
extension AppleJSONObject {
    /// The scalar under `key`; nil when absent, `null`, an object or an array.
    func appleScalar(_ key: String) -> AppleJSONScalar? {
        self[key].flatMap(AppleJSONScalar.init)
    }

    /// Text; a number is rendered with all its digits (ids may come as numbers).
    func appleString(_ key: StaticString) -> String? {
        guard let index = valueIndex(of: key) else { return nil }
        let node = document.tape[index]
        if node.kind == .string { return document.string(node) }
        return AppleJSONScalar(document.value(at: index))?.stringValue
    }

    func appleInt(_ key: StaticString) -> Int? {
        appleInt64(key).flatMap { Int(exactly: $0) }
    }

    func appleBool(_ key: StaticString) -> Bool? {
        guard let index = valueIndex(of: key) else { return nil }
        switch document.plainBool(document.tape[index]) {
        case .some(let flag): return flag
        case .none: return AppleJSONScalar(document.value(at: index))?.boolValue
        }
    }

    /// A date, preferring the milliseconds key, then the text key, then `alternative` (which
    /// may also hold milliseconds, as iOS 6 `expires_date` does). Two fixed text keys rather
    /// than a variadic list: the list was an array allocated on every call.
    func appleDate(
        milliseconds millisecondsKey: StaticString, text textKey: StaticString, _ alternative: StaticString? = nil
    ) -> Date? {
        if let milliseconds = appleInt64(millisecondsKey) {
            return AppleJSONDate.fromMilliseconds(milliseconds)
        }
        if let date = appleTextDate(textKey) { return date }
        return alternative.flatMap(appleTextDate)
    }

    /// `int64Value` of the scalar under `key`.
    private func appleInt64(_ key: StaticString) -> Int64? {
        guard let index = valueIndex(of: key) else { return nil }
        if let value = document.plainDigits(document.tape[index]) { return value }
        return AppleJSONScalar(document.value(at: index))?.int64Value
    }

    private func appleTextDate(_ key: StaticString) -> Date? {
        guard let index = valueIndex(of: key) else { return nil }
        // Digits only, in a string or a number: milliseconds (`AppleJSONDate.fromAnySpelling`).
        if let milliseconds = document.plainDigits(document.tape[index]) {
            return AppleJSONDate.fromMilliseconds(milliseconds)
        }
        return AppleJSONScalar(document.value(at: index)).flatMap(AppleJSONDate.fromAnySpelling)
    }

    /// A nested object, or nil when it is absent, `null` or not an object.
    func appleObject<T: AppleJSONDecodable>(_ type: T.Type, _ key: StaticString) -> T? {
        guard let index = valueIndex(of: key), case .object(let object) = document.value(at: index) else { return nil }
        return T(object)
    }

    /// A list that Apple may send as an array or, in the iOS 6 era, as a single object.
    /// Elements that are not objects are skipped; the others are kept.
    func appleList<T: AppleJSONDecodable>(_ type: T.Type, _ key: StaticString) -> [T] {
        switch valueIndex(of: key).map(document.value(at:)) {
        case .array(let elements):
            return elements.compactMap { element in
                guard case .object(let object) = element else { return nil }
                return T(object)
            }
        case .object(let object):
            return [T(object)]
        default:
            return []
        }
    }
}
