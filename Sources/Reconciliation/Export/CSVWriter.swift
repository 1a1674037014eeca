import Foundation

/// One CSV cell of a finance export (CONTRACT §8).
public enum CSVCell: Sendable, Equatable {
    /// SQL NULL: an empty, unquoted field.
    case null
    /// Free text: the formula guard applies, and an empty string is written `""` so it differs from NULL.
    case text(String)
    /// A number as PostgreSQL printed it; never guarded (a leading `-` is a sign, not a formula).
    case number(String)
    case boolean(Bool)
    /// An instant already formatted `YYYY-MM-DDTHH:MM:SSZ`.
    case instant(String)
}

/// RFC 4180 encoding: CRLF line ends, quotes only where needed (comma, quote, CR, LF), quotes doubled,
/// and the spreadsheet formula-injection guard on text cells.
public enum CSVWriter {
    /// Characters that make a spreadsheet treat a cell as a formula when they lead it.
    static let formulaLeads: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    public static func encode(_ cell: CSVCell) -> String {
        switch cell {
        case .null: return ""
        case .boolean(let value): return value ? "true" : "false"
        case .number(let text), .instant(let text): return quoted(text)
        case .text(let text):
            if text.isEmpty { return "\"\"" }
            let guarded = text.unicodeScalars.first.map { formulaLeads.contains($0) } == true ? "'" + text : text
            return quoted(guarded)
        }
    }

    /// `text` quoted (quotes doubled) when it holds a comma, quote, CR or LF; as is otherwise.
    static func quoted(_ text: String) -> String {
        let needs = text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 13 || $0 == 10 }
        guard needs else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One record with its CRLF.
    public static func row(_ cells: [CSVCell]) -> String {
        cells.map(encode).joined(separator: ",") + "\r\n"
    }

    /// The header record: column names, quoted only if they ever needed it.
    public static func header(_ names: [String]) -> String {
        names.map(quoted).joined(separator: ",") + "\r\n"
    }
}
