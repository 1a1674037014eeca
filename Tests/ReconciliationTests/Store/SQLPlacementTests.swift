import Foundation
import Testing

/// Every SQL statement the job issues lives where a reader looks for it: the job's stores
/// (`Reconciliation/Store/`), the libpq layer (`Postgres/`) and the schema module (`ReconSchema/`:
/// migrator, catalogue checks, privileges). The simulator's world has a store of its own
/// (`AppStoreSimulator/Store/`). Test scaffolding and the bench ask the server's catalogue through
/// `Postgres/` too.
@Suite struct SQLPlacementTests {
    static let sources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    static let allowed = ["Reconciliation/Store/", "Postgres/", "ReconSchema/", "AppStoreSimulator/Store/"]

    @Test func noStatementOutsideTheStores() throws {
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        var swiftFiles = 0
        var misplaced: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".swift") {
            swiftFiles += 1
            guard !Self.allowed.contains(where: { path.hasPrefix($0) }) else { continue }
            let text = try String(contentsOf: Self.sources.appendingPathComponent(path), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                if Self.holdsStatement(code) { misplaced.append("\(path):\(number + 1): \(code)") }
            }
        }
        #expect(swiftFiles > 100, "the scan found the sources")
        #expect(misplaced.isEmpty, "SQL outside the stores:\n\(misplaced.joined(separator: "\n"))")
    }

    /// Whether `line` holds a statement keyword in upper case as a word of its own.
    static func holdsStatement(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
        return words.contains { ["SELECT", "INSERT", "UPDATE", "DELETE"].contains($0) }
    }

    @Test func theScanRecognisesAStatement() {
        #expect(Self.holdsStatement(#"try connection.query("SELECT id FROM recon_runs")"#))
        #expect(Self.holdsStatement("    UPDATE entitlements SET active = false"))
        #expect(!Self.holdsStatement(#"let selected = "SELECTED_USERS""#))
    }
}
