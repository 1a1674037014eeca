import CivilTime
import Foundation

/// What `revert --run ID` does with one correction the run applied (CONTRACT §6, "Undo"): put the
/// entitlement back as it was before the run, unless it changed since; a pure function over what the
/// revert read under the user's lock.
///
/// "Changed since" is read from the row and from the job's own ledger of corrections:
/// - the row is gone, or no longer the job's (`source` other than `app_store`);
/// - a later applied correction touched it (a later night, `verify-user`) and was not itself undone
///   by a later revert (a pair of a correction and its revert, both after this one, cancels out);
/// - its `active` / `expires_at` are not what the run left;
/// - its `updated_at` is later than the last write the ledger knows of (the app rewrote the row,
///   even with the same values).
public enum RevertRule {
    /// A correction of the run being reverted, as stored.
    public struct Undone: Sendable, Equatable {
        public var id: Int64
        public var runID: Int64
        public var userID: String
        /// What the run wrote; `beforeActive` nil: the row did not exist before the run (the run created it
        /// with a grant).
        public var record: CorrectionRecord
        /// When it was written: the same instant as the entitlement's `updated_at` it set (one transaction).
        public var createdAt: Date

        public init(id: Int64, runID: Int64, userID: String, record: CorrectionRecord, createdAt: Date) {
            self.id = id
            self.runID = runID
            self.userID = userID
            self.record = record
            self.createdAt = createdAt
        }
    }

    /// An applied correction of the same user and entitlement written after the undone one.
    public struct Later: Sendable, Equatable {
        public var id: Int64
        public var runID: Int64
        public var reason: CorrectionReason
        /// Set on a `reverted` row: the correction it undid.
        public var revertsCorrectionID: Int64?
        public var createdAt: Date

        public init(id: Int64, runID: Int64, reason: CorrectionReason, revertsCorrectionID: Int64?, createdAt: Date) {
            self.id = id
            self.runID = runID
            self.reason = reason
            self.revertsCorrectionID = revertsCorrectionID
            self.createdAt = createdAt
        }
    }

    /// Everything the rule reads about one undone correction.
    public struct Candidate: Sendable, Equatable {
        public var correction: Undone
        /// The entitlement's row now (locked); nil when there is none.
        public var current: EntitlementRow?
        /// The revert run that already undid it (an applied `reverted` row names it); nil otherwise.
        public var revertedByRunID: Int64?
        /// Applied corrections of the same user and entitlement with a higher id, in id order.
        public var later: [Later]

        public init(correction: Undone, current: EntitlementRow?, revertedByRunID: Int64? = nil, later: [Later] = []) {
            self.correction = correction
            self.current = current
            self.revertedByRunID = revertedByRunID
            self.later = later
        }
    }

    /// Why an entitlement is left as it is.
    public enum LeftAlone: Sendable, Equatable, CustomStringConvertible {
        /// The row no longer exists.
        case rowGone
        /// The row's `source` is no longer `app_store`: the app took it over.
        case otherSource(String)
        /// A later correction, of run `runID`, changed it and was not undone.
        case correctedSince(runID: Int64, reason: CorrectionReason)
        /// Its values are not what the run left.
        case valuesChanged(active: Bool, expiresAt: Date?)
        /// Written after the last correction the job knows of (the app rewrote it).
        case updatedSince(Date)

        /// One line for the operator: what the row shows now, and why that keeps the revert's hands off.
        public var description: String {
            switch self {
            case .rowGone: return "the row no longer exists"
            case .otherSource(let source): return "the row's source is now '\(source)', not app_store"
            case .correctedSince(let runID, let reason):
                return "run \(runID) corrected it since (\(reason))"
            case .valuesChanged(let active, let expiresAt):
                return "changed since the run: now \(RevertRule.describe(active: active, expiresAt: expiresAt))"
            case .updatedSince(let date):
                return "rewritten since the run (updated_at \(RevertRule.instant(date)))"
            }
        }

        /// A stable word for `--json` and the stored summary.
        public var code: String {
            switch self {
            case .rowGone: return "row_gone"
            case .otherSource: return "other_source"
            case .correctedSince: return "corrected_since"
            case .valuesChanged: return "values_changed"
            case .updatedSince: return "updated_since"
            }
        }
    }

    /// The write that undoes one correction: the entitlement goes from `before` (as found) to `after`.
    public struct Step: Sendable, Equatable {
        public var undone: Undone
        public var action: CorrectionAction
        public var beforeActive: Bool
        public var beforeExpiresAt: Date?
        public var afterActive: Bool
        public var afterExpiresAt: Date?
        /// The run created the row: there is no earlier state to write back, so access is taken away
        /// (`active = false`) and the row kept, like any revoke.
        public var createdByRun: Bool
    }

    public enum Decision: Sendable, Equatable {
        case restore(Step)
        case leaveAlone(LeftAlone)
        /// An applied revert, run `byRunID`, undid it already: nothing to do (a second revert changes nothing).
        case alreadyReverted(byRunID: Int64)
    }

    public static func decide(_ candidate: Candidate) -> Decision {
        let undone = candidate.correction
        if let by = candidate.revertedByRunID { return .alreadyReverted(byRunID: by) }
        guard let row = candidate.current else { return .leaveAlone(.rowGone) }
        guard row.isAppStore else { return .leaveAlone(.otherSource(row.source)) }
        if let since = uncancelled(candidate.later).first {
            return .leaveAlone(.correctedSince(runID: since.runID, reason: since.reason))
        }
        guard row.active == undone.record.afterActive, row.expiresAt == undone.record.afterExpiresAt else {
            return .leaveAlone(.valuesChanged(active: row.active, expiresAt: row.expiresAt))
        }
        let lastWrite = candidate.later.map(\.createdAt).reduce(undone.createdAt, max)
        if let updatedAt = row.updatedAt, updatedAt > lastWrite { return .leaveAlone(.updatedSince(updatedAt)) }

        let createdByRun = undone.record.beforeActive == nil
        let afterActive = undone.record.beforeActive ?? false
        // A row the run created has no earlier expiry: a revoke keeps the one it has.
        let afterExpiresAt = createdByRun ? row.expiresAt : undone.record.beforeExpiresAt
        return .restore(
            Step(
                undone: undone,
                action: action(from: (row.active, row.expiresAt), to: (afterActive, afterExpiresAt)),
                beforeActive: row.active, beforeExpiresAt: row.expiresAt, afterActive: afterActive,
                afterExpiresAt: afterExpiresAt, createdByRun: createdByRun))
    }

    /// The later corrections that still stand: each one neither undone by a later revert in the list nor
    /// itself the revert of one in the list.
    static func uncancelled(_ later: [Later]) -> [Later] {
        let ids = Set(later.map(\.id))
        let undoneLater = Set(later.compactMap(\.revertsCorrectionID))
        return later.filter { correction in
            if undoneLater.contains(correction.id) { return false }
            if let target = correction.revertsCorrectionID, ids.contains(target) { return false }
            return true
        }
    }

    /// The contract's action for a write from `from` to `to` (CONTRACT §4): access given, taken, or its
    /// end moved (nil expiry: never, the latest of all).
    static func action(from: (active: Bool, expiresAt: Date?), to: (active: Bool, expiresAt: Date?))
        -> CorrectionAction
    {
        switch (from.active, to.active) {
        case (false, true): return .grant
        case (true, false): return .revoke
        case (true, true):
            return Expiry(to.expiresAt) > Expiry(from.expiresAt) ? .extend : .shorten
        case (false, false):
            // Unreachable from `decide`: every correction changes access or its end while active.
            return .revoke
        }
    }

    /// `active, expires 2026-03-01T00:00:00Z` / `inactive, never expires`.
    public static func describe(active: Bool, expiresAt: Date?) -> String {
        (active ? "active" : "inactive") + ", " + (expiresAt.map { "expires \(instant($0))" } ?? "never expires")
    }

    static func instant(_ date: Date) -> String { Instant.formatSeconds(date) }
}
