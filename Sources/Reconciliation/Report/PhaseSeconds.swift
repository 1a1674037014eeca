/// Where a night's time went, phase by phase (`phaseSeconds` in the summary). Phases overlap: the
/// history is read beside the users' verification, and the writers write while answers still arrive,
/// so the figures do not add up to `durationSeconds`. Each is one of two kinds of figure:
///
/// - a span, wall seconds from the phase's first instant to its last: `historyRead`, `queueFill`,
///   `verification`, `finish`;
/// - seconds of work, summed over the threads doing it: `write` (two writers can give up to twice the
///   span they wrote in).
///
/// A phase the run did not have is nil and left out of the JSON: `historyRead` and `queueFill` on a
/// run that reads no notification history (verifyReceipt, `--no-notifications`, `verify-user`), whose
/// users are paged straight from the tables as they are asked.
public struct PhaseSeconds: Sendable, Codable, Equatable {
    /// Span: the notification history's read, on its own thread, from its first request to the last
    /// piece stored (its pages share the verification's lanes and rate).
    public var historyRead: Double?
    /// Span: filling the run's queue with the users that do not depend on the history (the pending
    /// notified, the new, the sweep's share, `--older-than`'s), range by range on its own thread, from
    /// its first statement to its last range committed. The first users are asked once the first range
    /// is in, so it lies mostly inside `verification`. The users later pieces name join as the paging
    /// goes.
    public var queueFill: Double?
    /// Span: from the moment users may be asked (Apple accepted the configuration) to the last answer
    /// classified, the history's end included.
    public var verification: Double?
    /// Work: seconds the writer threads spent writing batches, each from its transaction's start to its
    /// commit (planning inside it included), summed over the writers.
    public var write: Double?
    /// Span: from the writers' end to the run's row being written: matching the night's notifications,
    /// the end-of-run flags that scan the shard, and the figures read back from what was written. The
    /// row's own one-row UPDATE, which stores this figure, is not in it.
    public var finish: Double?

    public init(
        historyRead: Double? = nil, queueFill: Double? = nil, verification: Double? = nil, write: Double? = nil,
        finish: Double? = nil
    ) {
        self.historyRead = historyRead
        self.queueFill = queueFill
        self.verification = verification
        self.write = write
        self.finish = finish
    }
}
