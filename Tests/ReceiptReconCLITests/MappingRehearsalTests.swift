import AppStoreSimulator
import Foundation
import Postgres
import TestSupport
import Testing

/// docs/simulator.md, "Rehearsing your own mapping", as written: a world seeded into a staging schema
/// (`simulator seed --schema sim`), the doc's example app filled from it with the doc's SQL, mapped with
/// docs/integration.md's mapping file, and a night against the simulator whose corrections the doc's
/// comparison finds equal to the expected file's, and which reach the app's own table.
@Suite struct MappingRehearsalTests {
    static let docs = IntegrationWalkTests.document.deletingLastPathComponent()

    /// The indented code blocks of the rehearsal section, unindented.
    static func rehearsalBlocks() throws -> [String] {
        let text = try String(contentsOf: docs.appendingPathComponent("simulator.md"), encoding: .utf8)
        let section = try #require(text.range(of: "### Rehearsing your own mapping"))
        var blocks: [String] = []
        var current: [Substring]?
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### ") { break }
            if line == "   ```" {
                if let body = current { blocks.append(body.joined(separator: "\n")) }
                current = current == nil ? [] : nil
            } else if current != nil {
                current!.append(line.dropFirst(min(3, line.prefix { $0 == " " }.count)))
            }
        }
        return blocks
    }

    /// Between `<<'MARK'` and `MARK` in the walk's block that contains `containing`.
    static func heredoc(containing: String, mark: String) throws -> String {
        let walk = try String(contentsOf: IntegrationWalkTests.document, encoding: .utf8)
        let block = try #require(IntegrationWalkTests.shellBlocks(walk).first { $0.contains(containing) }) + "\n"
        let start = try #require(block.range(of: "<<'\(mark)'\n"))
        let end = try #require(block.range(of: "\n\(mark)\n", range: start.upperBound..<block.endIndex))
        return String(block[start.upperBound..<end.lowerBound])
    }

    @Test func theDocumentedRehearsalMatchesTheExpectedFile() throws {
        try TestDatabase.with(migrated: false) { database in
            try TestRole.with(in: database, suffix: "_owner") { owner in
                try TestRole.with(in: database) { job in
                    try Self.rehearse(database, owner: owner, job: job)
                }
            }
        }
    }

    static func rehearse(_ database: TestDatabase, owner: TestRole, job: TestRole) throws {
        let admin = try database.connect()
        try admin.executeScript(try heredoc(containing: "CREATE TABLE iap_receipts", mark: "SQL"))
        // The walk's mapping file, with this test's roles.
        let mapping = try heredoc(containing: "cat > recon-mapping.ini", mark: "EOF")
            .replacingOccurrences(of: "owner = recon_owner", with: "owner = \(owner.name)")
            .replacingOccurrences(of: "role = recon_job", with: "role = \(job.name)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("rehearsal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("recon-mapping.ini").path
        let expected = home.appendingPathComponent("expected.json").path
        try mapping.write(toFile: file, atomically: true, encoding: .utf8)

        let asOf = SimulatorRunTests.asOf
        let seed = try ReceiptReconBinary.run(
            [
                "simulator", "seed", "--schema", "sim", "--users", "120", "--seed", "11", "--as-of", asOf,
                "--expected", expected,
            ],
            environment: ["DATABASE_URL": database.conninfo])
        try #require(seed.status == 0, "\(seed.output)")
        let blocks = try rehearsalBlocks()
        try #require(blocks.count == 2, "\(blocks)")
        try admin.executeScript(blocks[0])

        func sql(_ part: String) throws -> String {
            let printed = try ReceiptReconBinary.run(["mapping", file, "--part", part])
            try #require(printed.status == 0, "\(printed.output)")
            return printed.stdout
        }
        try admin.executeScript(try sql("admin"))
        try PostgresConnection(conninfo: owner.conninfo).executeScript("BEGIN;\n" + (try sql("schema")) + "\nCOMMIT;")
        let migrate = try ReceiptReconBinary.run(["migrate"], environment: ["DATABASE_URL": owner.conninfo])
        try #require(migrate.status == 0, "\(migrate.output)")
        try PostgresConnection(conninfo: owner.conninfo).executeScript(try sql("grants"))

        let simulator = try SimulatorRunTests.started(SimulatorRunTests.world(users: 120))
        defer { simulator.stop() }
        var environment = SimulatorRunTests.environment(database, simulator)
        environment["DATABASE_URL"] = job.conninfo
        // A small world revokes more than the default breaker lets a night revoke.
        let run = try ReceiptReconBinary.run(
            SimulatorRunTests.run + ["--max-revoke-ratio", "1"], environment: environment)
        #expect([0, 1].contains(run.status), "\(run.stdout.suffix(300)) \(run.stderr.suffix(1500))")

        // The doc's comparison: nothing wrong, nothing missing.
        let differences = try admin.query(
            PostgresQuery(unsafeSQL: blocks[1].replacingOccurrences(of: "/path/to/expected.json", with: expected)))
        #expect(differences.count == 0, "\(differences.count) corrections differ from the expected file")
        let corrections: Int = try admin.query("SELECT count(*)::int AS n FROM recon.recon_corrections").first!.decode(
            "n")
        #expect(corrections > 0)
        // Every correction reached the app's table through the sync.
        let apart: Int = try admin.query(
            """
            SELECT count(*)::int AS n FROM recon.entitlements e
            FULL JOIN account_features a ON a.account_id::text = e.user_id AND a.feature = e.entitlement
            WHERE (a.enabled, a.until) IS DISTINCT FROM (e.active, e.expires_at)
            """
        ).first!.decode("n")
        #expect(apart == 0)
    }
}
