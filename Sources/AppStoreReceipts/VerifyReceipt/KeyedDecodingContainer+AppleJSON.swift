import Foundation

/// Lenient field readers used by the hand-written `init(from:)` of every verifyReceipt model.
///
/// None of them throws: a field Apple sends in an unexpected shape reads as absent instead of
/// failing the whole response, because one odd field must not turn a valid receipt into an
/// "unverified" one. Only `status` is required (see `VerifyReceiptResponse`).
extension KeyedDecodingContainer where Key == AppleJSONKey {
    func appleScalar(_ key: AppleJSONKey) -> AppleJSONScalar? {
        (try? decodeIfPresent(AppleJSONScalar.self, forKey: key)) ?? nil
    }

    /// Text; a number is rendered with all its digits (ids may come as numbers).
    func appleString(_ key: AppleJSONKey) -> String? {
        appleScalar(key)?.stringValue
    }

    func appleInt(_ key: AppleJSONKey) -> Int? {
        appleScalar(key)?.int64Value.flatMap { Int(exactly: $0) }
    }

    func appleBool(_ key: AppleJSONKey) -> Bool? {
        appleScalar(key)?.boolValue
    }

    /// A date, preferring the milliseconds key, then each text key in turn (which may also hold
    /// milliseconds, as iOS 6 `expires_date` does).
    func appleDate(milliseconds millisecondsKey: AppleJSONKey, text textKeys: AppleJSONKey...) -> Date? {
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
    func appleObject<T: Decodable>(_ type: T.Type, _ key: AppleJSONKey) -> T? {
        (try? decodeIfPresent(T.self, forKey: key)) ?? nil
    }

    /// A list that Apple may send as an array or, in the iOS 6 era, as a single object.
    /// Elements that are not objects are skipped; the others are kept.
    func appleList<T: Decodable>(_ type: T.Type, _ key: AppleJSONKey) -> [T] {
        guard contains(key) else { return [] }
        if let elements = try? decode([AppleJSONLossy<T>].self, forKey: key) {
            return elements.compactMap(\.value)
        }
        if let single = try? decode(T.self, forKey: key) {
            return [single]
        }
        return []
    }
}

/// An array element that decodes to nil instead of failing the array.
struct AppleJSONLossy<Wrapped: Decodable>: Decodable {
    let value: Wrapped?

    init(from decoder: any Decoder) throws {
        value = try? Wrapped(from: decoder)
    }
}
