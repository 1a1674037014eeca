import CivilTime
import Foundation
import Postgres

/// Writes an export to a file with its `FILE.manifest.json` beside it (through `OutputFile`: a regular
/// file is replaced atomically, a device or FIFO written through), or streams it to standard output.
public enum ExportFile {
    public struct Manifest: Sendable, Equatable {
        public let view: String
        /// `"format": "xlsx"` follows `sha256` for a workbook; a CSV's manifest stays CONTRACT §8's.
        public let format: ReconciliationExport.Format
        /// nil when one run was exported whole (`--run` without a range).
        public let from: Date?
        public let to: Date?
        public let generatedAt: Date
        public let rows: Int
        public let sha256: String
        /// Corrections and flags: the runs whose rows the file holds; nil for transactions.
        public let runs: [ExportTally.Run]?
        /// Corrections and flags: the dry runs whose rows in the range were left out.
        public let excludedDryRuns: [ExportTally.Run]?

        /// `{"view", "from", "to", "generated_at", "rows", "sha256"}`, in that order (CONTRACT §8), then
        /// for corrections and flags `"runs": [{"id", "dry_run", "rows"}]` and
        /// `"excluded_dry_runs": [{"id", "rows"}]`.
        public var json: String {
            func instant(_ date: Date?) -> String { date.map { "\"\(ExportFile.instant($0))\"" } ?? "null" }
            var text = """
                {"view": "\(view)", "from": \(instant(from)), "to": \(instant(to)), \
                "generated_at": "\(ExportFile.instant(generatedAt))", "rows": \(rows), "sha256": "\(sha256)"
                """
            if format != .csv { text += ", \"format\": \"\(format.rawValue)\"" }
            if let runs {
                let list = runs.map { "{\"id\": \($0.id), \"dry_run\": \($0.dryRun), \"rows\": \($0.rows)}" }
                text += ", \"runs\": [" + list.joined(separator: ", ") + "]"
            }
            if let excludedDryRuns {
                let list = excludedDryRuns.map { "{\"id\": \($0.id), \"rows\": \($0.rows)}" }
                text += ", \"excluded_dry_runs\": [" + list.joined(separator: ", ") + "]"
            }
            return text + "}\n"
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds, UTC.
    public static func instant(_ date: Date) -> String {
        Instant.formatSeconds(date)
    }

    /// Streams the export to `handle` (standard output), buffered; returns the row count.
    @discardableResult
    public static func write(
        _ export: ReconciliationExport, from connection: PostgresConnection,
        to handle: FileHandle
    ) throws -> Int {
        var buffer = BufferedSink { try handle.write(contentsOf: $0) }
        let rows = try stream(export, from: connection, to: &buffer).rows
        try buffer.flush()
        return rows
    }

    /// Writes `path` and, beside a regular file, `path.manifest.json`; returns the manifest. A device or
    /// FIFO (`/dev/null`, a pipe to another program) gets the export only: a manifest would be a new file
    /// in `/dev`.
    /// - Parameter requestedRun: the run `--run` named, listed in the manifest even when it wrote no row.
    @discardableResult
    public static func write(
        _ export: ReconciliationExport, from connection: PostgresConnection,
        toFile path: String, requestedRun: ExportTally.Run? = nil, now: Date = Date()
    ) throws -> Manifest {
        let csv = try OutputFile(path)
        defer { csv.discard() }
        var buffer = BufferedSink { try csv.write($0) }
        var tally = try stream(export, from: connection, to: &buffer)
        try buffer.flush()
        if let requestedRun { tally.include(requestedRun) }
        let manifest = Manifest(
            view: export.view.rawValue, format: export.format, from: export.from, to: export.to, generatedAt: now,
            rows: tally.rows, sha256: buffer.hasher.hexDigest(),
            runs: export.isPerRun ? tally.runs : nil,
            excludedDryRuns: export.isPerRun ? try export.excludedDryRuns(on: connection) : nil)
        guard csv.replacesFile else {
            try csv.commit()
            return manifest
        }
        // Both files are written before either is renamed, so a full disk leaves the old pair in place
        // rather than a new CSV beside the manifest of the old one.
        let manifestFile = try OutputFile(path + ".manifest.json")
        defer { manifestFile.discard() }
        try manifestFile.write(manifest.json)
        try csv.commit()
        try manifestFile.commit()
        return manifest
    }
}

/// Collects an export's bytes into ~64 KiB writes and hashes every byte written (unless it only
/// spools a workbook's sheet, which is hashed as part of the package).
struct BufferedSink {
    let sink: ([UInt8]) throws -> Void
    let hashing: Bool
    var hasher = SHA256()
    private var pending: [UInt8] = []

    init(hashing: Bool = true, sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        self.hashing = hashing
        pending.reserveCapacity(1 << 16)
    }

    mutating func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 16 { try flush() }
    }

    mutating func append(bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        if hashing { hasher.update(pending) }
        try sink(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
