import Foundation
import TestSupport

/// One recorded step: what `expected/SECTION/NAME.txt` holds, byte for byte.
///
/// A command's record is its line as written in commands.txt, its exit code, then its stdout and its
/// stderr after `GoldenNormalisation`; a stream that does not end in a newline gets the marker line
/// `\ no newline at end`, as diff writes it, so the file shows every byte the binary wrote.
struct GoldenRecord: Equatable {
    let section: String
    let name: String
    let text: String

    static func command(section: String, name: String, line: String, status: Int32, stdout: String, stderr: String)
        -> GoldenRecord
    {
        GoldenRecord(
            section: section, name: name,
            text: "$ receipt-recon \(line)\nexit \(status)\n--- stdout\n\(stream(stdout))--- stderr\n\(stream(stderr))")
    }

    static func file(section: String, name: String, path: String, contents: String) -> GoldenRecord {
        GoldenRecord(section: section, name: name, text: "file \(path)\n--- contents\n\(stream(contents))")
    }

    private static func stream(_ text: String) -> String {
        text.isEmpty || text.hasSuffix("\n") ? text : text + "\n\\ no newline at end\n"
    }

    /// Where records live: `RECON_GOLDEN_DIR` when set (compare.sh records two binaries side by side),
    /// otherwise `Golden/expected/` beside this file.
    static var directory: URL {
        if let directory = ProcessInfo.processInfo.environment["RECON_GOLDEN_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("expected")
    }

    /// True when `RECON_GOLDEN_RECORD=1`: the records are written, not compared.
    static var recording: Bool { ProcessInfo.processInfo.environment["RECON_GOLDEN_RECORD"] == "1" }

    var file: URL { Self.directory.appendingPathComponent(section).appendingPathComponent(name + ".txt") }

    func write() throws {
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    /// nil when the file holds exactly this record; otherwise what differs, as `diff -u` shows it.
    func mismatch() throws -> String? {
        guard let expected = try? Data(contentsOf: file) else {
            return "\(file.path) is missing: record it with RECON_GOLDEN_RECORD=1 (see Golden/compare.sh)"
        }
        if expected == Data(text.utf8) { return nil }
        let actual = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        try Data(text.utf8).write(to: actual)
        defer { try? FileManager.default.removeItem(at: actual) }
        let diff = try ChildProcess.run(
            "/usr/bin/env",
            [
                "diff", "-u", "--label", "expected/\(section)/\(name).txt", "--label", "actual", file.path,
                actual.path,
            ])
        return diff.stdoutText
    }
}
