import Foundation
import TestSupport
import Testing

@testable import Reconciliation

/// The xlsx export's worksheet rules (which value becomes which cell type, dates, XML escapes) and a
/// whole package read back by openpyxl, a real spreadsheet reader.
@Suite struct XLSXWriterTests {
    @Test(arguments: [(0, 1, "A1"), (25, 2, "Z2"), (26, 3, "AA3"), (27, 9, "AB9"), (701, 1, "ZZ1"), (702, 1, "AAA1")])
    func references(column: Int, row: Int, reference: String) {
        #expect(XLSXWriter.reference(column: column, row: row) == reference)
    }

    @Test(arguments: [
        ("0", true), ("-1", true), ("1.99", true), ("33.333", true), ("123456789012345", true),
        ("1234567890123456", false),  // 16 significant digits: a spreadsheet would round it
        ("0.000000000000001", true), ("100000000000000000000", false), ("1.0000000000000001", false),
        ("1.", false), (".5", false), ("", false), ("-", false), ("NaN", false), ("Infinity", false),
        ("1e5", false), ("+1", false), ("1,5", false),
    ])
    func numbersASpreadsheetKeepsExactly(text: String, kept: Bool) {
        #expect(XLSXWriter.keepsExactly(text) == kept)
    }

    @Test(
        arguments: [
            ("1970-01-01T00:00:00Z", "25569"),
            ("2026-01-01T12:00:00Z", "46023.5"),
            ("2026-11-15T06:00:00Z", "46341.25"),
            ("2000-02-29T00:00:00Z", "36585"),
            ("1900-03-01T00:00:00Z", "61"),
            ("1900-02-28T23:59:59Z", nil),  // the 1900 system's phantom leap day lies before
            ("2026-01-01 12:00:00", nil),
            ("2026-13-01T00:00:00Z", nil),
        ] as [(String, String?)])
    func instantsAsSerialDays(instant: String, serial: String?) {
        #expect(XLSXWriter.serial(ofInstant: instant) == serial)
    }

    @Test(arguments: [
        ("plain", "plain"),
        ("a & b <c> \"d\"", "a &amp; b &lt;c&gt; &quot;d&quot;"),
        ("tab\tand\nLF", "tab\tand\nLF"),
        ("CR\r\nLF", "CR&#13;\nLF"),
        ("bell\u{07}", "bell_x0007_"),
        ("_x0041_ stays text", "_x005F_x0041_ stays text"),
        ("snake_case_x", "snake_case_x"),
        ("ünïcødé 🧾", "ünïcødé 🧾"),
        ("\u{FFFE}", "_xFFFE_"),
    ])
    func textEscapes(text: String, escaped: String) {
        #expect(XLSXWriter.escape(text) == escaped)
    }

    @Test func cellsCarryTheirType() {
        #expect(XLSXWriter.cell(.null, reference: "A2") == "")
        #expect(
            XLSXWriter.cell(.text("2000000123456789"), reference: "A2")
                == "<c r=\"A2\" t=\"inlineStr\"><is><t xml:space=\"preserve\">2000000123456789</t></is></c>")
        #expect(XLSXWriter.cell(.text("=1+1"), reference: "B2").contains(">=1+1<"))  // a string is never evaluated
        #expect(XLSXWriter.cell(.number("1.99"), reference: "C2") == "<c r=\"C2\"><v>1.99</v></c>")
        #expect(XLSXWriter.cell(.number("12345678901234567"), reference: "C2").contains("t=\"inlineStr\""))
        #expect(XLSXWriter.cell(.boolean(true), reference: "D2") == "<c r=\"D2\" t=\"b\"><v>1</v></c>")
        #expect(
            XLSXWriter.cell(.instant("2026-01-01T12:00:00Z"), reference: "E2")
                == "<c r=\"E2\" s=\"1\"><v>46023.5</v></c>")
    }

    /// A package as the export builds it, opened by openpyxl: every cell comes back with its value and type.
    @Test func openpyxlReadsThePackageBack() throws {
        var sheet = XLSXWriter.sheetStart(
            header: ["transaction_id", "purchased_at", "price", "is_trial", "note"], instantColumns: [1])
        sheet += XLSXWriter.row(
            [
                .text("2000000123456789"), .instant("2026-10-31T23:59:59Z"), .number("9.99"), .boolean(false),
                .text("a & <b>\r\n"),
            ],
            number: 2)
        sheet += XLSXWriter.row([.text("-1"), .null, .number("-0.5"), .boolean(true), .text("")], number: 3)
        sheet += XLSXWriter.sheetEnd
        var bytes: [UInt8] = []
        var zip = ZipWriter { bytes.append(contentsOf: $0) }
        for part in XLSXWriter.parts(sheetName: "transactions") { try zip.add(part.name, Array(part.content.utf8)) }
        try zip.add("xl/worksheets/sheet1.xml", Array(sheet.utf8))
        try zip.finish()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("x-\(UUID().uuidString).xlsx").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let script = """
            import json, sys, openpyxl
            book = openpyxl.load_workbook(sys.argv[1])
            sheet = book.active
            print(json.dumps([sheet.title, [[[None if c.value is None else str(c.value), c.data_type] for c in row]
                                            for row in sheet.iter_rows()]]))
            """
        let read = try ChildProcess.run("/usr/bin/python3", ["-c", script, path])
        #expect(read.status == 0, "\(read.stderrText)")
        #expect(!read.stderrText.contains("Warning"), "\(read.stderrText)")
        let expected: String = """
            ["transactions", [[["transaction_id", "s"], ["purchased_at", "s"], ["price", "s"], ["is_trial", "s"], \
            ["note", "s"]], [["2000000123456789", "s"], ["2026-10-31 23:59:59", "d"], ["9.99", "n"], ["False", "b"], \
            ["a & <b>\\r\\n", "s"]], [["-1", "s"], [null, "n"], ["-0.5", "n"], ["True", "b"], ["", "s"]]]]
            """
        #expect(read.stdoutText.trimmingCharacters(in: .newlines) == expected)
    }
}
