import Foundation

/// How far a nightly run has got: receipts done of the receipts due, the rate so far and the time left
/// at that rate. The terminal's progress line and the `run.progress` log event both read it.
///
/// Pure: figures in, figures and text out.
public struct RunProgress: Sendable, Equatable {
    public var runID: Int64
    public var shard: String
    /// Receipts whose answers were classified so far (written or about to be).
    public var receiptsDone: Int
    /// Receipts of the users that were due when the run started (counted once, before the walk, and
    /// capped by `--limit`); nil when they could not be counted.
    public var receiptsDue: Int?
    /// Receipts read from the database so far (done, in flight or queued).
    public var receiptsSelected: Int
    public var unverified: Int
    /// Seconds since the run started.
    public var elapsedSeconds: Double

    public init(
        runID: Int64, shard: String, receiptsDone: Int, receiptsDue: Int?, receiptsSelected: Int, unverified: Int,
        elapsedSeconds: Double
    ) {
        self.runID = runID
        self.shard = shard
        self.receiptsDone = receiptsDone
        self.receiptsDue = receiptsDue
        self.receiptsSelected = receiptsSelected
        self.unverified = unverified
        self.elapsedSeconds = elapsedSeconds
    }

    /// Of how many: the count made at the start, or more when receipts arrived since (the walk reads
    /// them too); nil when the count is not known.
    public var receiptsTotal: Int? {
        receiptsDue.map { max($0, receiptsSelected, receiptsDone) }
    }

    /// Receipts per second since the run started.
    public var rate: Double {
        elapsedSeconds > 0 ? Double(receiptsDone) / elapsedSeconds : 0
    }

    /// Seconds left at the rate so far; nil before the first receipt is done or without a total.
    public var secondsLeft: Double? {
        guard let total = receiptsTotal, rate > 0 else { return nil }
        return Double(max(0, total - receiptsDone)) / rate
    }

    /// `secondsLeft` as `1h05m`, `3m07s` or `0m00s`; `?` when it is not known.
    public var eta: String { Self.duration(secondsLeft) }

    /// `1h05m` from an hour on, else `3m07s`; `?` for nil.
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "?" }
        let whole = Int(seconds.rounded(.up))
        if whole >= 3600 { return String(format: "%dh%02dm", whole / 3600, whole % 3600 / 60) }
        return String(format: "%dm%02ds", whole / 60, whole % 60)
    }

    /// `120/300 receipts, 4.0/s, ETA 0m45s, 2 unverified` (`?` for a total or ETA not known).
    public var text: String {
        let total = receiptsTotal.map(String.init) ?? "?"
        return String(
            format: "%d/%@ receipts, %.1f/s, ETA %@, %d unverified", receiptsDone, total, rate, eta, unverified)
    }

    /// The `run.progress` event's fields, in order: `receipts_total`, `eta` and `eta_seconds` are
    /// `unknown` when not known.
    public var logFields: [(String, String)] {
        [
            ("run_id", String(runID)), ("shard", shard), ("receipts_done", String(receiptsDone)),
            ("receipts_total", receiptsTotal.map(String.init) ?? "unknown"),
            ("receipts_per_second", String(format: "%.1f", rate)),
            ("eta", secondsLeft == nil ? "unknown" : eta),
            ("eta_seconds", secondsLeft.map { String(Int($0.rounded(.up))) } ?? "unknown"),
            ("unverified", String(unverified)),
        ]
    }
}
