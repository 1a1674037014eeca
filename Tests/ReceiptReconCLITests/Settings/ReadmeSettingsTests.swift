import CommandLineOptions
import Foundation
import Testing

@testable import ReceiptReconCLI

/// README.md's configuration table against the settings' declarations: every declared variable is
/// documented once, with its flag and its default, and the table documents no variable the job does not
/// read; the pages under docs/, which name variables in prose and tables of other things, name none the
/// job does not read either.
@Suite struct ReadmeSettingsTests {
    /// One documented variable: its flag as the table spells it (nil for none) and its default cell.
    struct Row: Equatable, CustomStringConvertible {
        var variable: String
        var flag: String?
        var defaultText: String

        var description: String { "\(variable) | \(flag ?? "") | \(defaultText)" }
    }

    /// The rows of the table under README's `| variable | flag | meaning | default |` header, a row of
    /// several variables (`APPLE_API_KEY_FILE`, `…_KEY_ID`) split into one per variable.
    static func documentedRows(_ readme: String) throws -> [Row] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(
            lines.firstIndex { $0.replacingOccurrences(of: " ", with: "") == "|variable|flag|meaning|default|" },
            "README.md lost its configuration table")
        var rows: [Row] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            // `\|` is a pipe inside a cell.
            let cells = line.replacingOccurrences(of: "\\|", with: "\u{1}").split(separator: "|")
                .map { $0.replacingOccurrences(of: "\u{1}", with: "|").trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 4, "not four cells: \(line)")
            let variables = expanded(items(cells[0]), separator: "_")
            let flags = expanded(items(cells[1]).map { String($0.split(separator: " ").first ?? "") }, separator: "-")
            try #require(flags.isEmpty || flags.count == variables.count, "flags do not pair with variables: \(line)")
            for (index, variable) in variables.enumerated() {
                rows.append(Row(variable: variable, flag: flags.isEmpty ? nil : flags[index], defaultText: cells[3]))
            }
        }
        return rows
    }

    /// A cell's comma-separated items without their backticks.
    static func items(_ cell: String) -> [String] {
        cell.split(separator: ",").map {
            $0.replacingOccurrences(of: "`", with: "").trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty }
    }

    /// `…_KEY_ID` after `APPLE_API_KEY_FILE` is `APPLE_API_KEY_ID`: the first item with as many trailing
    /// parts replaced as the abbreviation has.
    static func expanded(_ items: [String], separator: Character) -> [String] {
        guard let first = items.first else { return [] }
        return items.map { item in
            guard item.hasPrefix("…") else { return item }
            let suffix = item.dropFirst()
            let parts = suffix.split(separator: separator).count
            let base = first.split(separator: separator, omittingEmptySubsequences: false).dropLast(parts)
                .joined(separator: String(separator))
            return base + suffix
        }
    }

    @Test func theAbbreviationsExpand() {
        #expect(
            Self.expanded(["APPLE_API_KEY_FILE", "…_KEY_ID", "…_ISSUER_ID"], separator: "_")
                == ["APPLE_API_KEY_FILE", "APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"])
        #expect(
            Self.expanded(["--server-api-production-url", "…-sandbox-url"], separator: "-")
                == ["--server-api-production-url", "--server-api-sandbox-url"])
    }

    @Test func readmeDocumentsEveryDeclaredVariableWithItsFlagAndDefault() throws {
        let rows = try Self.documentedRows(try DeployDocuments.text("README.md"))
        let declared = SettingsTable.all.filter { $0.variable != nil }
        let documented = Dictionary(rows.map { ($0.variable, [$0]) }, uniquingKeysWith: +)
        for (variable, rows) in documented where rows.count > 1 {
            Issue.record("README.md documents \(variable) \(rows.count) times")
        }
        for setting in declared {
            let name = setting.variable!.name
            guard let row = documented[name]?.first else {
                Issue.record("README.md's configuration table lacks \(name)")
                continue
            }
            #expect(row.flag == setting.option.map { "--\($0.name)" }, "README.md: \(row)")
            #expect(row.defaultText == setting.documentedDefault, "README.md: \(row)")
        }
        let undeclared = Set(documented.keys).subtracting(declared.map { $0.variable!.name })
        #expect(undeclared.isEmpty, "README.md documents variables the job does not read: \(undeclared.sorted())")
    }

    /// The test suite's own variables, which the job never reads.
    static let testVariables: Set<String> = ["RECON_TEST_DATABASE_URL", "RECON_CONFORMANCE_DIR"]

    @Test func theDocsNameNoVariableTheJobDoesNotRead() throws {
        let docs = DeployDocuments.root.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }
        #expect(!pages.isEmpty)
        let declared = Set(SettingsTable.all.compactMap(\.variable?.name))
        let pattern = try Regex(#"\b(RECON|APPLE)_[A-Z0-9_]*[A-Z0-9]\b"#)
        for page in ["README.md"] + pages.sorted().map({ "docs/\($0)" }) {
            let text = try DeployDocuments.text(page)
            let named = Set(text.matches(of: pattern).map { String(text[$0.range]) })
            let undeclared = named.subtracting(declared).subtracting(Self.testVariables)
            #expect(undeclared.isEmpty, "\(page) names variables the job does not read: \(undeclared.sorted())")
        }
    }
}
