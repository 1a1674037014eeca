import Foundation
import Postgres

extension ExportFile {
    /// Streams the export into `sink` in its format: CSV as it is read, an xlsx workbook once its sheet
    /// is spooled (`SpoolFile`: the ZIP entry's checksum and size come before its bytes). Returns what
    /// it wrote.
    static func stream(
        _ export: ReconciliationExport, from connection: PostgresConnection, to sink: inout BufferedSink
    ) throws -> ExportTally {
        switch export.format {
        case .csv:
            return try export.streamTallying(from: connection) { try sink.append($0) }
        case .xlsx:
            let spool = try SpoolFile()
            var sheet = BufferedSink(hashing: false) { try spool.write($0) }
            let tally = try export.streamTallying(from: connection) { try sheet.append($0) }
            try sheet.flush()
            // The package goes through `sink`, hashed, only while this call lasts.
            func append(_ bytes: [UInt8]) throws { try sink.append(bytes: bytes) }
            try withoutActuallyEscaping(append) { write in
                var zip = ZipWriter(sink: write)
                for part in XLSXWriter.parts(sheetName: export.view.rawValue) {
                    try zip.add(part.name, Array(part.content.utf8))
                }
                try zip.add("xl/worksheets/sheet1.xml", crc: spool.crc.value, size: spool.size) { write in
                    try spool.replay(to: write)
                }
                try zip.finish()
            }
            return tally
        }
    }
}
