import Foundation

/// One JSON scalar as Apple happened to send it, before it is read as the type the field means.
///
/// Apple sends most numbers and booleans as strings (`"1"`, `"true"`, `"1566378403000"`), a few
/// as JSON numbers (`status`, `app_item_id`, top-level `auto_renew_status`), and `null` for
/// some (`download_id`). Capturing the scalar first and converting second lets every field
/// accept every spelling.
enum AppleJSONScalar: Hashable, Sendable {
    case string(String)
    /// A JSON number as written; reading it as text keeps every digit of an id.
    case number(String)
    case bool(Bool)

    /// The scalar in `value`; nil for `null`, objects and arrays.
    init?(_ value: AppleJSONValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .number(let literal): self = .number(literal)
        case .bool(let flag): self = .bool(flag)
        case .null, .object, .array: return nil
        }
    }

    /// The value as text; numbers keep all their digits (ids are often sent as numbers).
    /// An integral number in `Int64` range is written plainly (`1.0` and `1e3` read `1` and
    /// `1000`); any other number is its literal.
    var stringValue: String {
        switch self {
        case .string(let value):
            return value
        case .number(let literal):
            if AppleJSONNumberText.isPlainInteger(literal) { return literal == "-0" ? "0" : literal }
            return AppleJSONNumberText.integralValue(literal).map { String($0) } ?? literal
        case .bool(let value):
            return value ? "true" : "false"
        }
    }

    /// The value as an integer, from a JSON integer, an integral JSON number (`1.0`, `1e3`), or a
    /// string of digits (`"1"`, `" 1 "`, `"1.0"`); nil for text, fractions and values beyond
    /// `Int64`.
    var int64Value: Int64? {
        switch self {
        case .number(let literal):
            if let value = Int64(literal) { return value }
            return AppleJSONNumberText.integralValue(literal)
        case .string(let text):
            // Exact digits first: trimming costs more than the parse itself.
            if let value = Int64(text) { return value }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let value = Int64(trimmed) { return value }
            // "1.0", "+1.0", "5." or "1e3": rare, but cheap to accept once the fast path failed.
            return AppleJSONNumberText.integralValue(trimmed, lenient: true)
        case .bool(let value):
            return value ? 1 : 0
        }
    }

    /// The value as a boolean: `true`/`false`, `1`/`0` (as numbers or strings), `"yes"`/`"no"`.
    var boolValue: Bool? {
        switch self {
        case .bool(let value):
            return value
        case .number:
            switch int64Value {
            case 1: return true
            case 0: return false
            default: return nil
            }
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
}
