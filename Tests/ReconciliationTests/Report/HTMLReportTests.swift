import Foundation
import Reconciliation
import TestSupport
import Testing

/// The HTML report read back by Python's strict XML parser (well-formed) and its HTML parser.
struct HTMLReportTests {
    struct Parsed: Decodable {
        /// Every element's tag (namespace stripped).
        var tags: [String]
        /// Every src / href / xlink:href / action value, and every url( in a style.
        var references: [String]
        /// All text content.
        var text: String
    }

    static let checker = """
        import json, sys, xml.etree.ElementTree as ET
        from html.parser import HTMLParser
        page = sys.stdin.read()
        root = ET.fromstring(page.split("\\n", 1)[1])   # the doctype line, then the XHTML document
        tags, refs = [], []
        for el in root.iter():
            tags.append(el.tag.split("}")[-1])
            for k, v in el.attrib.items():
                if k.split("}")[-1] in ("src", "href", "action", "srcset", "data", "poster"):
                    refs.append(v)
        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                refs.extend(v or "" for k, v in attrs if k in ("src", "href", "action", "srcset"))
        P().feed(page)
        if "url(" in page or "@import" in page: refs.append("css reference")
        print(json.dumps({"tags": tags, "references": refs, "text": "".join(root.itertext())}))
        """

    static func parse(_ html: String) throws -> Parsed {
        let result = try ChildProcess.run(
            "/usr/bin/env", ["python3", "-c", checker], stdin: Data(html.utf8), timeout: 60)
        try #require(result.status == 0, "the page is not well-formed:\n\(result.stderrText)")
        return try JSONDecoder().decode(Parsed.self, from: result.stdout)
    }

    static func history() -> [RunSummary] {
        (1...35).map { index in
            var run = ReportFixtures.summary(runID: Int64(index), exitCode: .success)
            run.outcomes[.unverified] = index
            run.receiptsProcessed = 3_000 + index
            return run
        }
    }

    @Test func wellFormedSelfContainedAndCarriesTheFigures() throws {
        let summary = ReportFixtures.summary()
        let html = HTMLReport.render(summary, history: Self.history() + [summary])
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        let parsed = try Self.parse(html)
        #expect(parsed.references.isEmpty, "external references: \(parsed.references)")
        #expect(!parsed.tags.contains("script"))
        #expect(!parsed.tags.contains("img") && !parsed.tags.contains("link") && !parsed.tags.contains("iframe"))
        #expect(parsed.tags.contains("svg") && parsed.tags.contains("style"))
        for figure in [
            "run 42", "2950", "unverified", "12", "purchase_not_granted", "refund", "sandbox_in_production",
            "21003", "3101", "53", "17", "182 ms", "611 ms", "12 min 35 s", "3017 of 3017",
            "completed, but some receipts stayed transiently unverified", "Verified", "Corrections", "Unverified",
        ] {
            #expect(parsed.text.contains(figure), "missing \(figure)")
        }
        // The chart: 30 runs of 3 bars (history 6...35 would be the last 30 by id, with run 42 last).
        let bars = parsed.tags.filter { $0 == "rect" }.count
        #expect(bars == 30 * 3 + 1 + 3)  // bars, background, legend swatches
        #expect(parsed.text.contains("run 42: unverified 12"))
        #expect(!parsed.text.contains("run 6: "))
        #expect(parsed.text.contains("run 7: verified"))
    }

    /// The refunded amount per currency when the run's refunds had prices, with how to read it; no
    /// table at all when none had (verifyReceipt data), where an empty table would read as "no refunds".
    @Test func refundedAmountShowsOnlyWhenPricesWereKnown() throws {
        var summary = ReportFixtures.summary()
        summary.refundedAmount?.append(
            RefundedAmount(currency: "<b>X</b>", amount: CurrencyAmount(milliunits: 1), transactions: 1))
        let parsed = try Self.parse(HTMLReport.render(summary, history: []))
        #expect(parsed.text.contains("Refunded amount (customer prices)"))
        #expect(parsed.text.contains("App Store Connect's reports are the financial record"))
        #expect(parsed.text.contains("EUR14.99") && parsed.text.contains("USD219.98"))
        #expect(parsed.text.contains("<b>X</b>10.001") && !parsed.tags.contains("b"))
        #expect(!parsed.text.contains("revenue"))
        for empty in [[], nil] as [[RefundedAmount]?] {
            summary.refundedAmount = empty
            #expect(!HTMLReport.render(summary, history: []).contains("Refunded amount"))
            #expect(!summary.text.contains("Refunded amount"))
        }
    }

    @Test func theSummaryCarriesTheRefundedAmountAsExactStrings() throws {
        let summary = ReportFixtures.summary()
        #expect(summary.text.contains("Refunded amount (customer prices): EUR 4.99 (1), USD 19.98 (2)\n"))
        #expect(
            summary.json.contains(
                #""refundedAmount":[{"amount":"4.99","currency":"EUR","transactions":1},"#
                    + #"{"amount":"19.98","currency":"USD","transactions":2}]"#))
        #expect(!summary.json.contains("refundedRevenue"))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(
            try decoder.decode(RunSummary.self, from: Data(summary.json.utf8)).refundedAmount
                == summary.refundedAmount)
    }

    /// Every summary prints the key: a new one with an empty list, and one stored before the figure
    /// existed (its old `refundedRevenue` is not this figure and is dropped).
    @Test func everySummaryPrintsTheRefundedAmount() throws {
        #expect(RunSummary().json.contains(#""refundedAmount":[]"#))
        var stored = try JSONSerialization.jsonObject(with: Data(ReportFixtures.summary().json.utf8)) as! [String: Any]
        stored["refundedAmount"] = nil
        stored["refundedRevenue"] = [["amount": "1", "currency": "USD", "transactions": 1]]
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let old = try decoder.decode(RunSummary.self, from: JSONSerialization.data(withJSONObject: stored))
        #expect(old.refundedAmount == nil)
        #expect(old.json.contains(#""refundedAmount":[]"#) && !old.json.contains("refundedRevenue"))
        #expect(old.json.components(separatedBy: "refundedAmount").count == 2)
    }

    @Test func hostileAbortReasonIsEscaped() throws {
        var summary = ReportFixtures.summary(exitCode: .unavailable)
        summary.status = .aborted
        let hostile = "<script>alert('x')</script><img src=\"http://evil.example/x.png\"> & \u{1}"
        summary.abortReason = hostile
        summary.shard = "\"0/1\" onload=\"x\""
        let html = HTMLReport.render(summary, history: [])
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
        let parsed = try Self.parse(html)
        #expect(parsed.references.isEmpty)
        #expect(!parsed.tags.contains("script") && !parsed.tags.contains("img") && !parsed.tags.contains("b"))
        #expect(parsed.text.contains("<script>alert('x')</script>"))
        #expect(parsed.text.contains("Failed: aborted"))
        #expect(parsed.text.contains("circuit breaker tripped"))
        #expect(parsed.text.contains("No finished nightly runs yet."))
    }
}
