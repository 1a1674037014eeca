import Foundation

/// Lenient field readers used by the `init(_ json:)` of every verifyReceipt model.
///
/// None of them throws: a field Apple sends in an unexpected shape reads as absent instead of
/// failing the whole response, because one odd field must not turn a valid receipt into an
/// "unverified" one. Only `status` is required (see `VerifyReceiptResponse`).
extension AppleJSONObject {
    /// The scalar under `key`; nil when absent, `null`, an object or an array.
    func appleScalar(_ key: String) -> AppleJSONScalar? {
        self[key].flatMap(AppleJSONScalar.init)
    }

    /// Text; a number is rendered with all its digits (ids may come as numbers).
    func appleString(_ key: String) -> String? {
        appleScalar(key)?.stringValue
    }

    func appleInt(_ key: String) -> Int? {
        appleScalar(key)?.int64Value.flatMap { Int(exactly: $0) }
    }

    func appleBool(_ key: String) -> Bool? {
        appleScalar(key)?.boolValue
    }

    /// A date, preferring the milliseconds key, then each text key in turn (which may also hold
    /// milliseconds, as iOS 6 `expires_date` does).
    func appleDate(milliseconds millisecondsKey: String, text textKeys: String...) -> Date? {
        if let scalar = appleScalar(millisecondsKey), let date = AppleJSONDate.fromMilliseconds(scalar) {
            return date
        }
        for key in textKeys {
            if let scalar = appleScalar(key), let date = AppleJSONDate.fromAnySpelling(scalar) {
                return date
            }
        }
        return nil
    }

    /// A nested object, or nil when it is absent, `null` or not an object.
    func appleObject<T: AppleJSONDecodable>(_ type: T.Type, _ key: String) -> T? {
        guard case .object(let object) = self[key] else { return nil }
        return T(object)
    }

    /// A list that Apple may send as an array or, in the iOS 6 era, as a single object.
    /// Elements that are not objects are skipped; the others are kept.
    func appleList<T: AppleJSONDecodable>(_ type: T.Type, _ key: String) -> [T] {
        switch self[key] {
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
