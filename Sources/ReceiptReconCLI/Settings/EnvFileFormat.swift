/// The env file's format: `KEY=VALUE` lines read as data, exactly as `cron/receipt-recon-nightly.sh`'s
/// `read_env_file` reads them (and as systemd's `EnvironmentFile=` means them), so that one file gives
/// the wrapper's night and an operator's `--env-file` the same settings.
///
/// Blank lines and lines starting with `#` or `;` are skipped; whitespace around KEY and before VALUE
/// is ignored; VALUE is taken as it is to the end of the line (trailing whitespace dropped), or is one
/// `'…'` (literal) or `"…"` (`\"` `\\` `\$` `` \` `` escaped) quoted string. What the wrapper and systemd
/// could take differently is refused with its line number; a refusal never repeats the value.
enum EnvFileFormat {
    struct Refusal: Error, Equatable {
        /// 1-based.
        let line: Int
        let problem: String
    }

    /// The file's variables in the order given; a later line of the same KEY wins, as the wrapper's
    /// `export` of each line makes it.
    static func parse(_ text: String) throws(Refusal) -> [(key: String, value: String)] {
        // By scalars, not Characters: "\r\n" is one Character, and a quote followed by a combining mark
        // would hide inside another; bash sees bytes.
        var lines = Array(text.unicodeScalars).split(separator: "\n", omittingEmptySubsequences: false)
        // A final newline ends the last line; it does not start another (bash's `read` loop agrees).
        if lines.last?.isEmpty == true { lines.removeLast() }
        var variables: [(key: String, value: String)] = []
        for (index, line) in lines.enumerated() {
            if let variable = try parse(line: line, number: index + 1) { variables.append(variable) }
        }
        return variables
    }

    /// The file's variables as one dictionary, the last of a repeated KEY kept.
    static func variables(_ text: String) throws(Refusal) -> [String: String] {
        var values: [String: String] = [:]
        for variable in try parse(text) { values[variable.key] = variable.value }
        return values
    }

    /// bash's `[:space:]` in the C and UTF-8 locales.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains(scalar)
    }

    static func parse(line raw: ArraySlice<Unicode.Scalar>, number: Int) throws(Refusal)
        -> (key: String, value: String)?
    {
        func refuse(_ problem: String) -> Refusal { Refusal(line: number, problem: problem) }
        func text(_ scalars: some Sequence<Unicode.Scalar>) -> String {
            var string = ""
            string.unicodeScalars.append(contentsOf: scalars)
            return string
        }
        func trimmingTrailingSpace(_ scalars: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
            var trimmed = scalars
            while let last = trimmed.last, isSpace(last) { trimmed = trimmed.dropLast() }
            return trimmed
        }
        var line = raw
        if line.last == "\r" { line = line.dropLast() }
        var rest = line.drop(while: isSpace)
        guard let first = rest.first else { return nil }
        if first == "#" || first == ";" {
            if rest.last == "\\" { throw refuse("a comment line ends in a backslash") }
            return nil
        }
        guard let equals = rest.firstIndex(of: "=") else { throw refuse("not KEY=VALUE") }
        let key = text(trimmingTrailingSpace(rest[..<equals]))
        guard isVariableName(key) else { throw refuse("not a variable name before '='") }
        rest = rest[(equals + 1)...].drop(while: isSpace)
        var value = String.UnicodeScalarView()
        if rest.first == "'" {
            rest = rest.dropFirst()
            guard let close = rest.firstIndex(of: "'") else { throw refuse("a ' quote is not closed on its line") }
            value.append(contentsOf: rest[..<close])
            rest = rest[(close + 1)...]
        } else if rest.first == "\"" {
            rest = rest.dropFirst()
            var closed = false
            while let scalar = rest.popFirst() {
                if scalar == "\\" {
                    guard let escaped = rest.popFirst(), ["\"", "\\", "$", "`"].contains(escaped) else {
                        throw refuse("a backslash in double quotes escapes only \" \\ $ `")
                    }
                    value.append(escaped)
                } else if scalar == "\"" {
                    closed = true
                    break
                } else {
                    value.append(scalar)
                }
            }
            guard closed else { throw refuse("a \" quote is not closed on its line") }
        } else {
            if rest.contains("\\") { throw refuse("a backslash outside quotes (quote the value)") }
            value.append(contentsOf: trimmingTrailingSpace(rest))
            rest = []
        }
        guard rest.allSatisfy(isSpace) else { throw refuse("text after the closing quote") }
        return (key, String(value))
    }

    /// `^[A-Za-z_][A-Za-z0-9_]*$`, the wrapper's test.
    static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first,
            first == "_" || ("A"..."Z").contains(first) || ("a"..."z").contains(first)
        else { return false }
        return text.unicodeScalars.allSatisfy {
            $0 == "_" || ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0)
        }
    }
}
