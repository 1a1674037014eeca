import Foundation

/// Samples of the Prometheus text format: written by `PrometheusMetrics`, and read back from the
/// metrics file a previous run left, so that a run can keep the series that are not its own.
///
/// The reader is for files this job wrote: it takes `name{label="value",...} value` lines and skips
/// comments and any line it cannot read, rather than failing a run over an odd file.
enum PrometheusText {
    struct Sample {
        var name: String
        var labels: [(String, String)]
        /// As the text format writes it: `12`, `0.611000`, `NaN`, `+Inf`.
        var value: String

        func label(_ name: String) -> String? { labels.first { $0.0 == name }?.1 }

        var line: String {
            let rendered = labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",")
            return "\(name){\(rendered)} \(value)"
        }
    }

    static func samples(in text: String) -> [Sample] {
        text.split(separator: "\n").compactMap { sample(Substring($0)) }
    }

    /// One sample line, or nil for a comment, a blank line or a line that is not a sample.
    static func sample(_ line: Substring) -> Sample? {
        var rest = line.drop { $0 == " " || $0 == "\t" }
        guard let first = rest.first, first != "#" else { return nil }
        let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var labels: [(String, String)] = []
        if rest.first == "{" {
            rest = rest.dropFirst()
            while true {
                rest = rest.drop { $0 == " " }
                if rest.first == "}" {
                    rest = rest.dropFirst()
                    break
                }
                let key = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                guard !key.isEmpty else { return nil }
                rest = rest.dropFirst(key.count)
                guard rest.hasPrefix("=\"") else { return nil }
                rest = rest.dropFirst(2)
                var value = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" {
                        closed = true
                        break
                    }
                    guard character == "\\" else {
                        value.append(character)
                        continue
                    }
                    guard let escaped = rest.first else { return nil }
                    rest = rest.dropFirst()
                    switch escaped {
                    case "n": value.append("\n")
                    case "\\", "\"": value.append(escaped)
                    default: return nil
                    }
                }
                guard closed else { return nil }
                labels.append((String(key), value))
                if rest.first == "," { rest = rest.dropFirst() }
            }
        }
        let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let value = fields.first, fields.count <= 2, Double(value) != nil || value == "+Inf" else { return nil }
        return Sample(name: String(name), labels: labels, value: String(value))
    }

    /// A label value as the exposition format wants it: `\`, `"` and line feeds escaped.
    static func escapeLabel(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n", "\r\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// HELP text: `\` and line feeds escaped.
    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
