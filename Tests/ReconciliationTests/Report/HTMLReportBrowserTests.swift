import Foundation
import Reconciliation
import TestSupport
import Testing

/// The HTML report as a reader gets it: opened by headless Chromium, and checked on the DOM the
/// browser built and on a screenshot of the page.
///
/// Why a real browser: the other report tests read the page with Python's parsers, which say whether
/// the markup is well-formed and escaped, but not what a browser makes of it. Only a browser's own
/// HTML parser shows that the cards, the tables and the SVG chart become the elements they should,
/// that a hostile string from the database stays text, and that the page renders at all. Debian's
/// `chromium` package provides one (README's prerequisite line installs it); where it is not
/// installed these tests are skipped, and Swift Testing prints the skip with its reason.
@Suite(.enabled(if: HeadlessChromium.isInstalled, "no /usr/bin/chromium: apt-get install -y chromium"))
struct HTMLReportBrowserTests {
    static let hostileScript = "<script>alert(1)</script>"
    static let hostileImage = "\"><img src=x onerror=alert(2)>"

    /// The fixture run, with hostile text where the summary carries free text: the abort reason and an
    /// Apple status key (both come back from `recon_runs.summary`, a JSON column anyone with write
    /// access to the database can fill).
    static func hostileRun() -> (RunSummary, [RunSummary]) {
        var summary = ReportFixtures.summary()
        summary.abortReason = "circuit breaker tripped by \(hostileScript) and \(hostileImage)"
        summary.appleStatuses["21199\(hostileScript)"] = 1
        let history = (1...35).map { index in
            var run = ReportFixtures.summary(runID: Int64(index), exitCode: .success)
            run.outcomes[.unverified] = index % 7
            run.receiptsProcessed = 2_900 + index * 3
            return run
        }
        return (summary, history + [summary])
    }

    static func chromium(_ arguments: [String], page: String, profile: String) throws -> ChildProcess.Result {
        let result = try HeadlessChromium.run(arguments, page: page, profile: profile)
        try #require(result.status == 0, "chromium failed:\n\(result.stderrText)")
        return result
    }

    typealias Page = HeadlessChromium.Page

    static func withRenderedReport<T>(_ body: (_ page: String, _ directory: String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (summary, history) = hostileRun()
        let page = directory.appendingPathComponent("report.html").path
        try OutputFile.write(HTMLReport.render(summary, history: history), to: page)
        return try body(page, directory.path)
    }

    @Test func theBrowserShowsCardsTablesChartAndEscapedText() throws {
        try Self.withRenderedReport { page, directory in
            let seen = try HeadlessChromium.read(page: page, profile: directory + "/profile")

            // Nothing runs: no script element, no event handler, no image a hostile string could smuggle in.
            #expect(!seen.tags.contains("script"))
            #expect(!seen.tags.contains("img") && !seen.tags.contains("iframe") && !seen.tags.contains("object"))
            #expect(seen.handlers.isEmpty, "event handlers: \(seen.handlers)")
            // The hostile strings are there, as text.
            #expect(seen.text.contains(Self.hostileScript))
            #expect(seen.text.contains(Self.hostileImage))

            // The summary cards.
            #expect(seen.cards["Status"] == "completed")
            #expect(seen.cards["Exit code"] == "1")
            #expect(seen.cards["Duration"] == "12 min 35 s")
            #expect(seen.cards["Receipts"] == "3017 of 3017")
            #expect(seen.cards["Users"] == "1200 of 1200")
            #expect(seen.cards["Corrections applied"] == "34")
            #expect(seen.cards["Flags"] == "7")

            // The tables and their rows.
            #expect(
                seen.tables["Corrections by action and reason"] == [
                    ["grant", "purchase_not_granted", "7"], ["revoke", "expired", "9"], ["revoke", "refund", "5"],
                    ["extend", "renewal", "13"],
                ])
            #expect(seen.tables["Flags by kind"] == [["bundle_mismatch", "3"], ["sandbox_in_production", "4"]])
            #expect(
                seen.tables["Refunded amount (customer prices)"] == [
                    ["EUR", "1", "4.99"], ["USD", "2", "19.98"],
                ])
            #expect(
                seen.tables["Receipts by outcome"] == [
                    ["valid", "2950"], ["misrouted", "31"], ["invalid", "24"], ["unverified", "12"],
                ])
            #expect(
                seen.tables["Apple statuses (final answer per receipt)"]?.contains(["21199\(Self.hostileScript)", "1"])
                    == true)

            // The chart: an SVG of the last 30 runs (7...35 and the reported 42), three bars each.
            #expect(seen.tags.contains("svg"))
            #expect(seen.bars.count == 30 * 3)
            #expect(seen.bars.first == "run 7: verified 2921")
            for bar in [
                "run 42: verified 3005", "run 42: corrections 34", "run 42: unverified 12", "run 35: unverified 0",
            ] {
                #expect(seen.bars.contains(bar), "no bar '\(bar)'")
            }
            #expect(!seen.bars.contains { $0.hasPrefix("run 6:") })
        }
    }

    /// The page renders to pixels. The screenshot is where a person checks the layout; the test only
    /// checks that Chromium drew a page of the window's size.
    @Test func theBrowserRendersAScreenshot() throws {
        try Self.withRenderedReport { page, directory in
            let png = directory + "/report.png"
            _ = try Self.chromium(
                ["--hide-scrollbars", "--window-size=1280,1800", "--screenshot=\(png)"], page: page,
                profile: directory + "/profile")
            _ = try? FileManager.default.removeItem(atPath: "/tmp/files-report.png")
            try FileManager.default.copyItem(atPath: png, toPath: "/tmp/files-report.png")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: png)))
            try #require(bytes.count > 24)
            #expect(bytes.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            func bigEndian(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            #expect(bigEndian(16) == 1280 && bigEndian(20) == 1800)
            // A blank page compresses to a few kilobytes; cards, tables and 90 bars do not.
            #expect(bytes.count > 40_000, "the screenshot is \(bytes.count) bytes: is the page empty?")
        }
    }
}
