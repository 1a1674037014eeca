import Foundation
import TestSupport
import Testing

/// The command lines of `Golden/commands.txt` (help, usage errors, bad variables and env files,
/// migrations, seeded runs with both backends, reports, exports, inspect, revert, the world's
/// expectation), run through the built binary: every exit code, stdout and stderr must equal, byte for
/// byte, the record in `Golden/expected/`, written by the binary before a refactor.
///
/// `RECON_GOLDEN_RECORD=1` writes the records instead (on purpose, after a change of output that was
/// meant); `RECON_GOLDEN_BINARY` runs another binary; `Golden/compare.sh A B` compares two binaries.
@Suite struct GoldenOutputTests {
    static let commandsFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("commands.txt")

    static let script = Result {
        try GoldenScript(String(contentsOf: commandsFile, encoding: .utf8))
    }

    static var sections: [GoldenScript.Section] { (try? script.get().sections) ?? [] }

    /// Each section on its own databases, simulator and temporary directory, so they run side by side.
    @Test(arguments: sections)
    func everyCommandLinePrintsWhatItPrintedBefore(section: GoldenScript.Section) throws {
        let runner = try GoldenRunner(section: section)
        try runner.run()
        for failure in runner.failures { Issue.record(Comment(rawValue: failure)) }
        for record in runner.records {
            if GoldenRecord.recording {
                try record.write()
            } else if let mismatch = try record.mismatch() {
                Issue.record(Comment(rawValue: "\(section.name)/\(record.name) differs:\n\(mismatch)"))
            }
        }
    }

    /// The script parses, covers what it promises, and every record in `expected/` has its step
    /// (a stale record would pass unnoticed; recording removes them).
    @Test func theScriptCoversEveryCommandAndLeavesNoStaleRecord() throws {
        let script = try Self.script.get()
        let commands = script.sections.flatMap(\.steps).filter {
            if case .command = $0 { return true }
            return false
        }
        #expect(commands.count >= 80, "\(commands.count) command lines")
        let wanted = Set(script.sections.flatMap { section in section.recordNames.map { "\(section.name)/\($0).txt" } })
        let directory = GoldenRecord.directory
        let present = Set(
            (FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []).filter {
                $0.hasSuffix(".txt")
            })
        if GoldenRecord.recording {
            for stale in present.subtracting(wanted) {
                try FileManager.default.removeItem(at: directory.appendingPathComponent(stale))
            }
        } else {
            #expect(present.subtracting(wanted).isEmpty, "records without a step: \(present.subtracting(wanted))")
        }
    }
}
