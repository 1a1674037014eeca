import Foundation

/// One JSON scalar as Apple happened to send it, before it is read as the type the field means.
///
/// Apple sends most numbers and booleans as strings (`"1"`, `"true"`, `"1566378403000"`), a few
/// as JSON numbers (`status`, `app_item_id`, top-level `auto_renew_status`), and `null` for
/// some (`download_id`). Capturing the scalar first and converting second lets every field
/// accept every spelling without going through `JSONSerialization`.
enum AppleJSONScalar: Decodable, Sendable {
    case string(String)
    case integer(Int64)
    /// A JSON number that is fractional or does not fit `Int64`; `Decimal` keeps all its digits.
    case number(Decimal)
    case bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Most fields are strings, so that is tried first: a failed attempt costs a thrown error.
        if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value)
        } else {
            throw DecodingError.typeMismatch(
                AppleJSONScalar.self,
                .init(codingPath: decoder.codingPath, debugDescription: "expected a string, number or boolean")
            )
        }
    }

    /// The value as text; numbers keep all their digits (ids are often sent as numbers).
    var stringValue: String {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .number(let value): return value.description
        case .bool(let value): return value ? "true" : "false"
        }
    }

    /// The value as an integer, from a JSON integer, an integral JSON number, or a string of
    /// digits; nil for text, fractions and values beyond `Int64`.
    var int64Value: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .number(let value):
            return Self.integral(value)
        case .string(let text):
            // Exact digits first: trimming and lowercasing cost more than the parse itself.
            if let value = Int64(text) { return value }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let value = Int64(trimmed) { return value }
            // "1.0" or "1e3": rare, but cheap to accept once the fast path failed.
            guard trimmed.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }),
                let decimal = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
            else { return nil }
            return Self.integral(decimal)
        case .bool(let value):
            return value ? 1 : 0
        }
    }

    /// The value as a boolean: `true`/`false`, `1`/`0` (as numbers or strings), `"yes"`/`"no"`.
    var boolValue: Bool? {
        switch self {
        case .bool(let value):
            return value
        case .integer(let value):
            return value == 1 ? true : value == 0 ? false : nil
        case .number(let value):
            return value == 1 ? true : value == 0 ? false : nil
        case .string(let text):
            switch text {
            case "true", "1": return true
            case "false", "0": return false
            default: break
            }
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: return nil
            }
        }
    }

    private static func integral(_ value: Decimal) -> Int64? {
        guard !value.isNaN, value == value.rounded(toPlaces: 0) else { return nil }
        // Decimal -> Int64 through its exact digits; `Int64(exactly:)` on a Double would lose them.
        return Int64(value.description)
    }
}

extension Decimal {
    fileprivate func rounded(toPlaces places: Int) -> Decimal {
        var source = self
        var result = Decimal()
        NSDecimalRound(&result, &source, places, .plain)
        return result
    }
}
