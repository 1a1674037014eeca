import Foundation

/// The few JSON shapes `receipt-recon inspect` prints (CONTRACT §3), written by hand so that key
/// order is exactly as listed and the same value always prints the same bytes.
///
/// Shared by local receipts and Apple's signed data, so both print with one indentation, one
/// string escaping and one date format.
package indirect enum InspectJSON: Hashable, Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    /// A decimal number printed exactly as `Decimal` spells it (`10.99`, `-0.5`, `1`): prices
    /// converted from Apple's milliunits must not pick up binary floating-point noise.
    case decimal(Decimal)
    case string(String)
    case array([InspectJSON])
    /// Members in the order given; keys are not checked for duplicates.
    case object([Member])

    package struct Member: Hashable, Sendable {
        package var key: String
        package var value: InspectJSON

        package init(_ key: String, _ value: InspectJSON) {
            self.key = key
            self.value = value
        }
    }

    /// `object` from `(key, value)` pairs, the shape every caller writes.
    package static func object(_ members: KeyValuePairs<String, InspectJSON>) -> InspectJSON {
        .object(members.map { Member($0.key, $0.value) })
    }

    package static func string(_ value: String?) -> InspectJSON {
        value.map { .string($0) } ?? .null
    }

    package static func integer(_ value: (some BinaryInteger)?) -> InspectJSON {
        value.map { .integer(Int64($0)) } ?? .null
    }

    package static func boolean(_ value: Bool?) -> InspectJSON {
        value.map { .boolean($0) } ?? .null
    }

    package static func decimal(_ value: Decimal?) -> InspectJSON {
        value.map { .decimal($0) } ?? .null
    }

    /// A date as `YYYY-MM-DDTHH:MM:SSZ` UTC, `.SSS` only when there are milliseconds
    /// (`LocalReceiptTimestamp.format`, which clamps to years 1 through 9999).
    package static func date(_ value: Date?) -> InspectJSON {
        value.map { .string(LocalReceiptTimestamp.format($0)) } ?? .null
    }

    /// The text: two-space indentation and one member per line when `pretty`, otherwise one line.
    package func rendered(pretty: Bool) -> String {
        var output = ""
        Self.write(self, pretty: pretty, indent: 0, into: &output)
        return output
    }

    private static func write(_ value: InspectJSON, pretty: Bool, indent: Int, into output: inout String) {
        switch value {
        case .null:
            output += "null"
        case .boolean(let flag):
            output += flag ? "true" : "false"
        case .integer(let number):
            output += String(number)
        case .decimal(let number):
            output += number.isNaN ? "null" : number.description
        case .string(let text):
            output += JSONString.literal(text, style: .terminal)
        case .array(let elements):
            writeContainer(elements, open: "[", close: "]", pretty: pretty, indent: indent, into: &output) {
                write($0, pretty: pretty, indent: indent + 1, into: &$1)
            }
        case .object(let members):
            writeContainer(members, open: "{", close: "}", pretty: pretty, indent: indent, into: &output) {
                $1 += JSONString.literal($0.key, style: .terminal)
                $1 += pretty ? ": " : ":"
                write($0.value, pretty: pretty, indent: indent + 1, into: &$1)
            }
        }
    }

    private static func writeContainer<Element>(
        _ elements: [Element], open: String, close: String, pretty: Bool, indent: Int,
        into output: inout String, element: (Element, inout String) -> Void
    ) {
        output += open
        guard !elements.isEmpty else {
            output += close
            return
        }
        let innerIndent = pretty ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        for (index, value) in elements.enumerated() {
            if index > 0 { output += "," }
            output += innerIndent
            element(value, &output)
        }
        output += pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        output += close
    }
}
