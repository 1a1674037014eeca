import Foundation
import Postgres

/// Writes an export to a file with its `FILE.manifest.json` beside it (through `OutputFile`: a regular
/// file is replaced atomically, a device or FIFO written through), or streams it to standard output.
public enum ExportFile {
    public struct Manifest: Sendable, Equatable {
        public let view: String
        public let from: Date
        public let to: Date
        public let generatedAt: Date
        public let rows: Int
        public let sha256: String

        /// `{"view", "from", "to", "generated_at", "rows", "sha256"}`, in that order.
        public var json: String {
            """
            {"view": "\(view)", "from": "\(ExportFile.instant(from))", "to": "\(ExportFile.instant(to))", \
            "generated_at": "\(ExportFile.instant(generatedAt))", "rows": \(rows), "sha256": "\(sha256)"}

            """
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds, UTC.
    public static func instant(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: (date.timeIntervalSince1970).rounded(.down)))
    }

    /// Streams the export to `handle` (standard output), buffered; returns the row count.
    @discardableResult
    public static func write(
        _ export: ReconciliationExport, from connection: PostgresConnection,
        to handle: FileHandle
    ) throws -> Int {
        var buffer = BufferedSink { try handle.write(contentsOf: $0) }
        let rows = try export.stream(from: connection) { try buffer.append($0) }
        try buffer.flush()
        return rows
    }

    /// Writes `path` and, beside a regular file, `path.manifest.json`; returns the manifest. A device or
    /// FIFO (`/dev/null`, a pipe to another program) gets the CSV only: a manifest would be a new file
    /// in `/dev`.
    @discardableResult
    public static func write(
        _ export: ReconciliationExport, from connection: PostgresConnection,
        toFile path: String, now: Date = Date()
    ) throws -> Manifest {
        let csv = try OutputFile(path)
        defer { csv.discard() }
        var buffer = BufferedSink { try csv.write($0) }
        let rows = try export.stream(from: connection) { try buffer.append($0) }
        try buffer.flush()
        let manifest = Manifest(
            view: export.view.rawValue, from: export.from, to: export.to, generatedAt: now,
            rows: rows, sha256: buffer.hasher.hexDigest())
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

/// Collects CSV text into ~64 KiB writes and hashes every byte written.
struct BufferedSink {
    let sink: ([UInt8]) throws -> Void
    var hasher = SHA256()
    private var pending: [UInt8] = []

    init(sink: @escaping ([UInt8]) throws -> Void) {
        self.sink = sink
        pending.reserveCapacity(1 << 16)
    }

    mutating func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        hasher.update(pending)
        try sink(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
