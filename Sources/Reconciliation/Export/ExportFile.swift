import Foundation
import Postgres

/// Writes an export to a file atomically (temporary file in the same directory, then rename) and its
/// `FILE.manifest.json` beside it, or streams it to standard output.
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

    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
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
        var buffer = BufferedSink(handle: handle)
        let rows = try export.stream(from: connection) { try buffer.append($0) }
        try buffer.flush()
        return rows
    }

    /// Writes `path` and `path.manifest.json` atomically; returns the manifest.
    @discardableResult
    public static func write(
        _ export: ReconciliationExport, from connection: PostgresConnection,
        toFile path: String, now: Date = Date()
    ) throws -> Manifest {
        let url = URL(fileURLWithPath: path)
        let temporary = try createTemporary(beside: url)
        var renamed = false
        defer { if !renamed { unlink(temporary.path) } }
        guard let handle = FileHandle(forWritingAtPath: temporary.path) else {
            throw Failure(description: "cannot write \(temporary.path)")
        }
        var buffer = BufferedSink(handle: handle)
        let rows: Int
        do {
            rows = try export.stream(from: connection) { try buffer.append($0) }
            try buffer.flush()
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        try rename(temporary, to: url)
        renamed = true
        let manifest = Manifest(
            view: export.view.rawValue, from: export.from, to: export.to, generatedAt: now,
            rows: rows, sha256: buffer.hasher.hexDigest())
        try writeAtomically(Data(manifest.json.utf8), to: URL(fileURLWithPath: path + ".manifest.json"))
        return manifest
    }

    static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = try createTemporary(beside: url)
        do {
            try data.write(to: temporary)
            try rename(temporary, to: url)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    private static func createTemporary(beside url: URL) throws -> URL {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw Failure(description: "cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        return temporary
    }

    private static func rename(_ from: URL, to: URL) throws {
        guard Foundation.rename(from.path, to.path) == 0 else {
            throw Failure(description: "cannot rename \(from.path) to \(to.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// Collects CSV text into ~64 KiB writes and hashes every byte written.
struct BufferedSink {
    let handle: FileHandle
    var hasher = SHA256()
    private var pending: [UInt8] = []

    init(handle: FileHandle) {
        self.handle = handle
        pending.reserveCapacity(1 << 16)
    }

    mutating func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        hasher.update(pending)
        try handle.write(contentsOf: pending)
        pending.removeAll(keepingCapacity: true)
    }
}
