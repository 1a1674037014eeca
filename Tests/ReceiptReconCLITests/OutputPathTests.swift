import Foundation
import Postgres
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The output paths of `report --html`, `run --metrics-file` and `export --output`, through the built
/// binary: a device stays a device, a directory is refused by name, and a full disk leaves the files
/// as they were.
@Suite struct OutputPathTests {
    static func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
    }

    static func withDirectory<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory.path)
    }

    @Test func reportHTMLToDevNullAndToADirectory() throws {
        try TestDatabase.with { database in
            let json = ReportHTMLTests.summaryJSON(id: 1, unverified: 0, exitCode: 0)
            try database.connect().executeScript(
                """
                INSERT INTO recon_runs (id, kind, status, dry_run, as_of, summary, finished_at)
                VALUES (1, 'nightly', 'completed', false, now(), '\(json)', now());
                """)
            let environment = ["DATABASE_URL": database.conninfo]
            let result = try ReceiptReconBinary.run(
                ["report", "--html", "/dev/null", "--last"], environment: environment)
            #expect(result.status == 0, "\(result.output)")
            #expect(Self.isCharacterDevice("/dev/null"), "report --html replaced /dev/null")

            try Self.withDirectory { directory in
                let refused = try ReceiptReconBinary.run(
                    ["report", "--html", directory, "--last"], environment: environment)
                #expect(refused.status == 65)
                #expect(refused.stderr.contains("cannot write '\(directory)': it is a directory; give a file path"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
            }
        }
    }

    @Test func runMetricsFileToDevNull() throws {
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let result = try ReceiptReconBinary.run(
                ["run", "--older-than", "0", "--metrics-file", "/dev/null"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            #expect(result.status == 0, "\(result.output)")
            #expect(!result.stderr.contains("metrics file not written"), "\(result.stderr)")
            #expect(Self.isCharacterDevice("/dev/null"), "run --metrics-file replaced /dev/null")
        }
    }

    /// Written through a device, an export has no manifest: it would be a new file in `/dev`.
    @Test func exportToDevNullWritesNoManifest() throws {
        try TestDatabase.with { database in
            let result = try ReceiptReconBinary.run(
                ["export", "flags", "--from", "2026-01-01", "--to", "2026-02-01", "--output", "/dev/null"],
                environment: ["DATABASE_URL": database.conninfo])
            #expect(result.status == 0, "\(result.output)")
            #expect(Self.isCharacterDevice("/dev/null"))
            #expect(!FileManager.default.fileExists(atPath: "/dev/null.manifest.json"))
        }
    }

    /// An export larger than the disk: a 64 KiB tmpfs (mounting needs root, as CI runs). The last good
    /// export and its manifest stay as they were, and no temporary file is left.
    @Test func exportOnAFullDiskLeavesTheLastExport() throws {
        try TestDatabase.with { database in
            try database.connect().executeScript(
                """
                INSERT INTO products (product_id, kind, entitlement) VALUES ('prod.one', 'auto_renewable', 'pro');
                INSERT INTO recon_transactions (transaction_id, original_transaction_id, product_id, user_id,
                    environment, purchased_at)
                SELECT 'T' || g, 'O' || g, 'prod.one', 'user-' || g, 'production',
                    '2026-01-10 00:00:00+00'::timestamptz + g * interval '1 second'
                FROM generate_series(1, 3000) g;
                """)
            try Self.withDirectory { directory in
                guard let mount = try TinyFilesystem(at: directory) else {
                    print("OutputPathTests: cannot mount a tmpfs here (not root?); the full-disk export is not checked")
                    return
                }
                defer { mount.unmount() }
                let path = directory + "/january.csv"
                try Data("last good export\r\n".utf8).write(to: URL(fileURLWithPath: path))
                try Data("{\"rows\": 1}\n".utf8).write(to: URL(fileURLWithPath: path + ".manifest.json"))

                let result = try ReceiptReconBinary.run(
                    ["export", "transactions", "--from", "2026-01-01", "--to", "2026-02-01", "--output", path],
                    environment: ["DATABASE_URL": database.conninfo])

                #expect(result.status == 70, "\(result.output)")
                #expect(result.stderr.contains("cannot write '\(path)': No space left on device"), "\(result.stderr)")
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                        "january.csv", "january.csv.manifest.json",
                    ])
                #expect(try String(contentsOfFile: path, encoding: .utf8) == "last good export\r\n")
                #expect(try String(contentsOfFile: path + ".manifest.json", encoding: .utf8) == "{\"rows\": 1}\n")
            }
        }
    }
}
