import CLibPQ
import Foundation

extension PostgresConnection {
    /// Writes many rows with one `COPY … FROM STDIN` (text format).
    ///
    /// The bulk write path: one statement and one round trip for any number of rows, faster than
    /// multi-row INSERTs (docs/benchmarks.md).
    /// Values are escaped per COPY's text format, so any text (tabs, newlines, backslashes) round-trips.
    ///
    /// - Parameters:
    ///   - table: a table name from this program's code (quoted as an identifier, never data).
    ///   - columns: column names from this program's code.
    ///   - rows: each row's values in `columns` order.
    /// - Returns: the number of rows written.
    @discardableResult
    public func copy<Rows: Sequence>(into table: String, columns: [String], rows: Rows) throws -> Int
    where Rows.Element == [any PostgresEncodable] {
        let columnList = columns.map(Self.quoteIdentifier).joined(separator: ", ")
        guard let start = PQexec(handle, "COPY \(Self.quoteIdentifier(table)) (\(columnList)) FROM STDIN") else {
            throw connectionError()
        }
        let startStatus = PQresultStatus(start)
        if startStatus != PGRES_COPY_IN {
            defer { PQclear(start) }
            throw serverError(start)
        }
        PQclear(start)

        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 18)
        var failure: (any Error)?
        for row in rows {
            guard row.count == columns.count else {
                failure = PostgresError(
                    kind: .client, message: "COPY row has \(row.count) values for \(columns.count) columns")
                break
            }
            for (position, value) in row.enumerated() {
                if position > 0 { buffer.append(0x09) }
                Self.appendCopyText(value.postgresBind.text, to: &buffer)
            }
            buffer.append(0x0A)
            if buffer.count >= 1 << 18 {
                guard sendCopyData(buffer) else {
                    failure = connectionError()
                    break
                }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        if failure == nil, !buffer.isEmpty, !sendCopyData(buffer) { failure = connectionError() }

        // Ending with an error message makes the server abort the COPY, so a half-sent batch leaves nothing.
        let ended = failure == nil ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "receipt-recon aborted the COPY")
        guard ended == 1 else { throw failure ?? connectionError() }
        var copied = 0
        var serverFailure: PostgresError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if serverFailure == nil {
                serverFailure = serverError(result)
            }
        }
        if let failure { throw failure }
        if let serverFailure { throw serverFailure }
        return copied
    }

    private func sendCopyData(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                PQputCopyData(handle, chars.baseAddress, Int32(chars.count)) == 1
            }
        }
    }

    /// COPY text format: `\N` is NULL; backslash, tab, newline and carriage return are escaped.
    static func appendCopyText(_ text: String?, to buffer: inout [UInt8]) {
        guard let text else {
            buffer.append(contentsOf: [0x5C, 0x4E])  // \N
            return
        }
        for byte in text.utf8 {
            switch byte {
            case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
            case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
            case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
            default: buffer.append(byte)
            }
        }
    }

    /// `"name"` with embedded quotes doubled: for identifiers chosen by this program.
    public static func quoteIdentifier(_ name: String) -> String {
        // Checked byte-wise first: `replacingOccurrences` goes through NSString, and batched writes
        // quote every column name of every statement.
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
