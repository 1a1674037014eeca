import CivilTime

/// SpreadsheetML (ECMA-376, the xlsx format) for a finance export: one worksheet whose cells carry
/// their type, so a spreadsheet opening it keeps every value as it was.
///
/// - Text, ids above all (Apple's transaction ids have 16 digits; a spreadsheet keeps 15 of a number),
///   is an inline string, never a number, and needs no formula guard: a string cell is not evaluated.
/// - A number is a number when a spreadsheet keeps it exactly (a plain decimal of at most 15
///   significant digits), else text, so that nothing is rounded.
/// - An instant is a date: days since 1899-12-30 (the 1900 date system), in UTC, shown
///   `yyyy-mm-dd hh:mm:ss`; one before 1900-03-01 (where that system's leap-year bug lies) is text.
/// - NULL is an empty cell; booleans are booleans.
///
/// Pure: `ExportFile` puts the parts in a `ZipWriter` package.
public enum XLSXWriter {
    /// Rows a worksheet holds (2^20), less the header.
    public static let maxDataRows = 1_048_575

    /// Cell styles, indexes into `styles`' cellXfs.
    enum Style: Int {
        case plain = 0
        case date = 1
        case header = 2
    }

    /// The package's parts but the worksheet (`xl/worksheets/sheet1.xml`, written last: it is the large
    /// one), name and content.
    public static func parts(sheetName: String) -> [(name: String, content: String)] {
        let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
        let main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
        let package = "http://schemas.openxmlformats.org/package/2006/relationships"
        let officeDocument = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
        let contentType = "application/vnd.openxmlformats-officedocument.spreadsheetml"
        return [
            (
                "[Content_Types].xml",
                declaration + "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
                    + "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
                    + "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
                    + "<Override PartName=\"/xl/workbook.xml\" ContentType=\"\(contentType).sheet.main+xml\"/>"
                    + "<Override PartName=\"/xl/styles.xml\" ContentType=\"\(contentType).styles+xml\"/>"
                    + "<Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"\(contentType).worksheet+xml\"/>"
                    + "</Types>"
            ),
            (
                "_rels/.rels",
                declaration + "<Relationships xmlns=\"\(package)\">"
                    + "<Relationship Id=\"rId1\" Type=\"\(officeDocument)/officeDocument\" Target=\"xl/workbook.xml\"/>"
                    + "</Relationships>"
            ),
            (
                "xl/workbook.xml",
                declaration + "<workbook xmlns=\"\(main)\" xmlns:r=\"\(officeDocument)\">"
                    + "<bookViews><workbookView activeTab=\"0\"/></bookViews><sheets>"
                    + "<sheet name=\"\(escape(String(sheetName.prefix(31))))\" sheetId=\"1\" r:id=\"rId1\"/>"
                    + "</sheets></workbook>"
            ),
            (
                "xl/_rels/workbook.xml.rels",
                declaration + "<Relationships xmlns=\"\(package)\">"
                    + "<Relationship Id=\"rId1\" Type=\"\(officeDocument)/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
                    + "<Relationship Id=\"rId2\" Type=\"\(officeDocument)/styles\" Target=\"styles.xml\"/>"
                    + "</Relationships>"
            ),
            (
                "xl/styles.xml",
                declaration + "<styleSheet xmlns=\"\(main)\">"
                    + "<numFmts count=\"1\"><numFmt numFmtId=\"164\" formatCode=\"yyyy-mm-dd hh:mm:ss\"/></numFmts>"
                    + "<fonts count=\"2\"><font><sz val=\"11\"/><name val=\"Calibri\"/></font>"
                    + "<font><b/><sz val=\"11\"/><name val=\"Calibri\"/></font></fonts>"
                    + "<fills count=\"2\"><fill><patternFill patternType=\"none\"/></fill>"
                    + "<fill><patternFill patternType=\"gray125\"/></fill></fills>"
                    + "<borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"
                    + "<cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>"
                    + "<cellXfs count=\"3\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>"
                    + "<xf numFmtId=\"164\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
                    + "<xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/></cellXfs>"
                    + "<cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>"
                    + "</styleSheet>"
            ),
        ]
    }

    /// The worksheet up to and including its header row (bold, frozen), with each column wide enough
    /// for its name, and an instant's for a date.
    public static func sheetStart(header: [String], instantColumns: Set<Int>) -> String {
        var text =
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
            + "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
            + "<sheetViews><sheetView workbookViewId=\"0\">"
            + "<pane ySplit=\"1\" topLeftCell=\"A2\" activePane=\"bottomLeft\" state=\"frozen\"/>"
            + "</sheetView></sheetViews><cols>"
        for (index, name) in header.enumerated() {
            let width = instantColumns.contains(index) ? 20 : max(10, name.count + 2)
            text += "<col min=\"\(index + 1)\" max=\"\(index + 1)\" width=\"\(width)\" customWidth=\"1\"/>"
        }
        text += "</cols><sheetData><row r=\"1\">"
        for (index, name) in header.enumerated() {
            text += inlineString(name, reference: reference(column: index, row: 1), style: .header)
        }
        return text + "</row>"
    }

    public static let sheetEnd = "</sheetData></worksheet>"

    /// Worksheet row `number` (1-based; the header is row 1).
    public static func row(_ cells: [CSVCell], number: Int) -> String {
        var text = "<row r=\"\(number)\">"
        for (index, cell) in cells.enumerated() {
            text += self.cell(cell, reference: reference(column: index, row: number))
        }
        return text + "</row>"
    }

    static func cell(_ cell: CSVCell, reference: String) -> String {
        switch cell {
        case .null: return ""
        case .text(let value): return inlineString(value, reference: reference)
        case .boolean(let value): return "<c r=\"\(reference)\" t=\"b\"><v>\(value ? 1 : 0)</v></c>"
        case .number(let value):
            guard keepsExactly(value) else { return inlineString(value, reference: reference) }
            return "<c r=\"\(reference)\"><v>\(value)</v></c>"
        case .instant(let value):
            guard let serial = serial(ofInstant: value) else { return inlineString(value, reference: reference) }
            return "<c r=\"\(reference)\" s=\"\(Style.date.rawValue)\"><v>\(serial)</v></c>"
        }
    }

    static func inlineString(_ value: String, reference: String, style: Style = .plain) -> String {
        let styleAttribute = style == .plain ? "" : " s=\"\(style.rawValue)\""
        return "<c r=\"\(reference)\"\(styleAttribute) t=\"inlineStr\"><is><t xml:space=\"preserve\">"
            + escape(value) + "</t></is></c>"
    }

    /// `A1`-style reference: column 0 is A, 25 Z, 26 AA.
    static func reference(column: Int, row: Int) -> String {
        var letters: [Character] = []
        var rest = column + 1
        while rest > 0 {
            let digit = (rest - 1) % 26
            letters.insert(Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(digit))), at: 0)
            rest = (rest - 1) / 26
        }
        return String(letters) + String(row)
    }

    /// Whether a spreadsheet keeps the number `text` exactly: an optional `-`, digits, an optional
    /// fraction, at most 15 significant digits (PostgreSQL's `NaN` and `Infinity` are not numbers here).
    static func keepsExactly(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.count == 1 || !parts[1].isEmpty else { return false }
        let digits = parts.joined()
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        // Significant digits: leading zeros of the whole number and trailing zeros of the fraction do not count.
        var significant = Array(digits.drop { $0 == UInt8(ascii: "0") })
        if parts.count == 2 { while significant.last == UInt8(ascii: "0") { significant.removeLast() } }
        return significant.count <= 15
    }

    /// The 1900-system serial of an instant `YYYY-MM-DDTHH:MM:SSZ`: days since 1899-12-30, the time of
    /// day as a fraction; nil for anything else or before 1900-03-01.
    static func serial(ofInstant text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Int(CivilDate(year: Int64(year), month: Int64(month), day: Int64(day)).daysSince1970) + 25_569
        // 61 is 1900-03-01 in the 1900 system (it counts a 1900-02-29 that never was).
        guard days >= 61 else { return nil }
        let seconds = hour * 3_600 + minute * 60 + second
        guard seconds > 0 else { return String(days) }
        return String(Double(days * 86_400 + seconds) / 86_400)
    }

    /// XML text with the characters XML 1.0 cannot hold escaped as SpreadsheetML does (`_xHHHH_`, the
    /// control characters but TAB and LF; a `_` that would start such an escape becomes `_x005F_`), and CR
    /// as a character reference so no parser turns it into LF.
    static func escape(_ text: String) -> String {
        let needsWork = text.utf8.contains { byte in
            (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<")
                || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "\"") || byte == 0xEF
        }
        guard needsWork else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = ""
        result.unicodeScalars.reserveCapacity(scalars.count)
        for (index, scalar) in scalars.enumerated() {
            switch scalar.value {
            case 0x26: result += "&amp;"
            case 0x3C: result += "&lt;"
            case 0x3E: result += "&gt;"
            case 0x22: result += "&quot;"
            case 0x0D: result += "&#13;"
            case 0x09, 0x0A: result.unicodeScalars.append(scalar)
            case 0..<0x20, 0xFFFE, 0xFFFF: result += hexEscape(scalar.value)
            case 0x5F where startsEscape(scalars, at: index): result += hexEscape(0x5F)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func hexEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return "_x" + String(repeating: "0", count: 4 - hex.count) + hex + "_"
    }

    /// Whether `_xHHHH_` starts at `index`: a reader would take it for an escape.
    static func startsEscape(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        guard index + 6 < scalars.count, scalars[index + 1] == "x" || scalars[index + 1] == "X",
            scalars[index + 6] == "_"
        else { return false }
        return scalars[(index + 2)...(index + 5)].allSatisfy { $0.properties.isASCIIHexDigit }
    }
}
