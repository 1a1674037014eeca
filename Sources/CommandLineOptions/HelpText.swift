/// A `--help` text in the layout the job and its bench share: the usage line, paragraphs, the options
/// table, then titled two-column sections (environment variables, exit codes, output keys, ...).
public struct HelpText: Sendable {
    /// A title line, then one indented row per term with its meaning, the meanings aligned.
    public struct Section: Sendable {
        public var title: String
        /// Each term with its meaning.
        public var rows: [(String, String)]
        /// The width of the term column; a longer term pushes its own meaning right.
        public var columnWidth: Int

        /// - Parameter columnWidth: nil: the longest term's width.
        public init(_ title: String, rows: [(String, String)], columnWidth: Int? = nil) {
            self.title = title
            self.rows = rows
            self.columnWidth = columnWidth ?? rows.map(\.0.count).max() ?? 0
        }

        /// Every option with its help and default, then `--help`. The term column stops widening at
        /// 34 so that one long option does not push every help text right.
        public static func options(_ options: [OptionSpec]) -> Section {
            var rows = options.map { option in
                (option.usageText, option.help + (option.defaultText.map { " (default: \($0))" } ?? ""))
            }
            rows.append(("--help", "show this help"))
            return Section("OPTIONS:", rows: rows, columnWidth: min(34, options.map(\.usageText.count).max() ?? 0))
        }

        public var lines: [String] {
            [title] + rows.map { term, meaning in "  \(Self.padded(term, to: columnWidth))  \(meaning)" }
        }

        static func padded(_ text: String, to width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
    }

    /// Everything after `USAGE: `, e.g. `receipt-recon run [options]`.
    public var usage: String
    /// Prose after the usage line; empty ones are left out.
    public var paragraphs: [String]
    /// Left out when empty (and then `--help` is not listed either).
    public var options: [OptionSpec]
    public var sections: [Section]

    public init(usage: String, paragraphs: [String], options: [OptionSpec], sections: [Section] = []) {
        self.usage = usage
        self.paragraphs = paragraphs
        self.options = options
        self.sections = sections
    }

    /// `program [--a A] [--b]...`: a usage line listing every option.
    public static func synopsis(_ program: String, _ options: [OptionSpec]) -> String {
        ([program] + options.map(\.synopsis)).joined(separator: " ")
    }

    /// The whole text, ending with a newline.
    public var text: String {
        var lines = ["USAGE: \(usage)"]
        for paragraph in paragraphs where !paragraph.isEmpty { lines += ["", paragraph] }
        let blocks = (options.isEmpty ? [] : [Section.options(options)]) + sections
        for block in blocks { lines += [""] + block.lines }
        return lines.joined(separator: "\n") + "\n"
    }
}
