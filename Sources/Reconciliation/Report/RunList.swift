import CivilTime
import Foundation

/// `report --list`: the recorded runs, newest first, one line (or one JSON object) each, so an operator
/// can find the run to report without reading `recon_runs` by hand.
public struct RunList: Sendable, Equatable {
    public struct Entry: Sendable, Equatable, Encodable {
        public var runID: Int64
        public var kind: RunKind
        public var dryRun: Bool
        public var status: RunStatus
        /// `--backend`; nil for runs recorded before the choice existed.
        public var backend: String?
        /// The receipt-recon version that ran it; nil for runs recorded before it was.
        public var version: String?
        /// `I/N` of `run --shard`; `user` for `verify-user`; a revert's is the shard of the run it undid.
        public var shard: String
        public var startedAt: Date
        public var finishedAt: Date?
        /// Corrections applied (planned, in a dry run); nil while the run is `running`: they are counted
        /// when it finishes.
        public var corrections: Int?
        /// The process's exit code; nil while the run is `running`, and for a run recovered after its
        /// process died (no process lived to exit).
        public var exitCode: Int?
        /// Why the run stopped or failed (`recon_runs.abort_reason`), or, for a partial night, how many
        /// receipts stayed unverified; nil for a night that ran to the end with every answer.
        public var reason: String?

        public init(
            runID: Int64, kind: RunKind, dryRun: Bool, status: RunStatus, backend: String?, version: String?,
            shard: String, startedAt: Date, finishedAt: Date?, corrections: Int?, exitCode: Int?,
            reason: String? = nil
        ) {
            self.runID = runID
            self.kind = kind
            self.dryRun = dryRun
            self.status = status
            self.backend = backend
            self.version = version
            self.shard = shard
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.corrections = corrections
            self.exitCode = exitCode
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case runID, kind, dryRun, status, backend, version, shard, startedAt, finishedAt, corrections, exitCode
            case reason
        }

        /// Every key in every object, `null` where there is no value, so a reader need not test for keys.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(runID, forKey: .runID)
            try container.encode(kind, forKey: .kind)
            try container.encode(dryRun, forKey: .dryRun)
            try container.encode(status, forKey: .status)
            try container.encode(backend, forKey: .backend)
            try container.encode(version, forKey: .version)
            try container.encode(shard, forKey: .shard)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(finishedAt, forKey: .finishedAt)
            try container.encode(corrections, forKey: .corrections)
            try container.encode(exitCode, forKey: .exitCode)
            try container.encode(reason, forKey: .reason)
        }
    }

    /// Newest first.
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The `report --list` default: about three weeks of nightly runs.
    public static let defaultLimit = 20

    static let headers = [
        "RUN", "KIND", "DRY RUN", "STATUS", "BACKEND", "SHARD", "STARTED (UTC)", "CORRECTIONS", "EXIT", "REASON",
    ]
    /// The columns whose cells are numbers, aligned right.
    static let numberColumns: Set<Int> = [0, 7, 8]

    /// The longest reason a line shows: the list stays one line per run on a terminal; `report --run ID`
    /// and `--json` give the whole reason.
    public static let reasonWidth = 60

    /// A header and one line per run, in aligned columns; a sentence when there is no run.
    public var text: String {
        guard !entries.isEmpty else { return "No run has been recorded yet.\n" }
        let rows =
            [Self.headers]
            + entries.map { entry in
                [
                    String(entry.runID), entry.kind.rawValue, entry.dryRun ? "yes" : "no", entry.status.rawValue,
                    entry.backend ?? "-", entry.shard, Instant.formatSeconds(entry.startedAt),
                    entry.corrections.map(String.init) ?? "-", entry.exitCode.map(String.init) ?? "-",
                    entry.reason.map { Self.shortened($0) } ?? "-",
                ]
            }
        let widths = Self.headers.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column in
                let cell = row[column]
                // The last column needs no trailing spaces.
                if column == row.count - 1 { return cell }
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return Self.numberColumns.contains(column) ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// What a run's line says of why it ended: the recorded reason of a run that stopped or failed (a
    /// spent budget says so too); for a partial night, the receipts left transiently unverified.
    public static func reason(abortReason: String?, status: RunStatus, transientlyUnverified: Int) -> String? {
        if let abortReason { return abortReason }
        guard status == .partial else { return nil }
        // A row whose counts were not written (inserted by hand) still says why it is partial.
        let receipts =
            transientlyUnverified > 0
            ? "\(transientlyUnverified) receipt\(transientlyUnverified == 1 ? "" : "s")" : "some receipts"
        return "\(receipts) stayed unverified; the next night asks again"
    }

    /// `reason` on one line of at most `reasonWidth` characters: cut at a word, with `…` where it was cut.
    static func shortened(_ reason: String) -> String {
        let line = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard line.count > reasonWidth else { return line }
        let head = line.prefix(reasonWidth - 1)
        let cut = head.lastIndex(of: " ").map { head[..<$0] } ?? head
        return cut.trimmingCharacters(in: CharacterSet(charactersIn: " ,;:")) + "…"
    }

    /// One JSON array (sorted keys, ISO 8601 dates), `[]` when there is no run.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(entries)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}
