import Foundation

/// What one `revert --run ID` did, entitlement by entitlement: what `revert` prints (text, or one JSON
/// object with `--json`). Its run's summary (`summary`, kind `revert`) is what `report --run` shows later.
public struct RevertResult: Sendable {
    /// The revert run's summary as recorded: id, status, exit code, dry run, `revert` figures.
    public var summary: RunSummary
    /// The writes, in the reverted run's correction order (planned only, in a dry run).
    public var restored: [RevertRule.Step] = []
    /// Every entitlement left alone, and why.
    public var leftAlone: [RevertFigures.LeftAloneEntry] = []
    /// Corrections an earlier revert undid already, with that revert's run.
    public var alreadyReverted: [(correction: RevertRule.Undone, byRunID: Int64)] = []

    public var revertedRunID: Int64 { summary.revert?.revertedRunID ?? 0 }

    /// Sorts each correction of the reverted run by what `RevertRule` decided about it.
    init(summary: RunSummary, decisions: [(RevertRule.Undone, RevertRule.Decision)]) {
        self.summary = summary
        for (undone, decision) in decisions {
            switch decision {
            case .restore(let step): restored.append(step)
            case .leaveAlone(let why):
                leftAlone.append(
                    RevertFigures.LeftAloneEntry(
                        correctionID: undone.id, userID: undone.userID, entitlement: undone.record.entitlement,
                        why: why.code, detail: why.description))
            case .alreadyReverted(let byRunID): alreadyReverted.append((undone, byRunID))
            }
        }
    }

    /// One sentence: what changed, what did not and why; `--json`'s `reason`.
    public var reason: String {
        let run = revertedRunID
        var parts: [String] = []
        let count = "\(restored.count) entitlement\(plural(restored.count))"
        switch (summary.dryRun, restored.isEmpty) {
        case (_, true): parts.append("\(summary.dryRun ? "dry run: " : "")nothing to restore of run \(run)")
        case (true, false): parts.append("dry run: would restore \(count) of run \(run)")
        case (false, false): parts.append("restored \(count) changed by run \(run)")
        }
        if !leftAlone.isEmpty {
            parts.append("left \(leftAlone.count) alone: changed since the run")
        }
        if !alreadyReverted.isEmpty {
            let by = Set(alreadyReverted.map(\.byRunID)).sorted().map(String.init).joined(separator: ", ")
            parts.append("\(alreadyReverted.count) already reverted by run \(by)")
        }
        return parts.joined(separator: "; ")
    }

    /// The operator's view: a headline, then every entitlement restored and every one left alone.
    public var text: String {
        var lines = [
            "Run \(summary.runID) reverted run \(revertedRunID) (shard \(summary.shard)) \(summary.status)"
                + (summary.dryRun ? " (dry run: no entitlement changed)" : "") + ": \(reason)"
        ]
        if !restored.isEmpty {
            lines.append(summary.dryRun ? "Would restore (now -> before the run):" : "Restored (was -> now):")
            for step in restored {
                let created = step.createdByRun ? "; the run created the row, now inactive" : ""
                lines.append(
                    "  \(step.undone.userID) \(step.undone.record.entitlement): \(step.action) "
                        + "(undoes \(step.undone.record.action), \(step.undone.record.reason)\(created)): "
                        + RevertRule.describe(active: step.beforeActive, expiresAt: step.beforeExpiresAt) + " -> "
                        + RevertRule.describe(active: step.afterActive, expiresAt: step.afterExpiresAt))
            }
        }
        if !leftAlone.isEmpty {
            lines.append("Left alone (changed since run \(revertedRunID); not touched):")
            for entry in leftAlone { lines.append("  \(entry.userID) \(entry.entitlement): \(entry.detail)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object: `status`, `exitCode`, `reason`, `runID` (the revert's), `revertedRunID`, `dryRun`,
    /// `restored`, `leftAlone` (with `why`) and `alreadyReverted`.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(Printed(self))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private struct Printed: Encodable {
        struct State: Encodable {
            let active: Bool
            let expiresAt: Date?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(active, forKey: .active)
                try container.encode(expiresAt, forKey: .expiresAt)
            }
            enum CodingKeys: String, CodingKey { case active, expiresAt }
        }
        struct Restored: Encodable {
            let correctionID: Int64
            let userID: String
            let entitlement: String
            let action: CorrectionAction
            let revertedAction: CorrectionAction
            let revertedReason: CorrectionReason
            let before: State
            let after: State
            let rowCreatedByRun: Bool
        }
        struct Already: Encodable {
            let correctionID: Int64
            let userID: String
            let entitlement: String
            let revertedByRunID: Int64
        }
        let status: RunStatus
        let exitCode: ExitCode?
        let reason: String
        let runID: Int64
        let revertedRunID: Int64
        let dryRun: Bool
        let restored: [Restored]
        let leftAlone: [RevertFigures.LeftAloneEntry]
        let alreadyReverted: [Already]

        init(_ result: RevertResult) {
            status = result.summary.status
            exitCode = result.summary.exitCode
            reason = result.reason
            runID = result.summary.runID
            revertedRunID = result.revertedRunID
            dryRun = result.summary.dryRun
            restored = result.restored.map {
                Restored(
                    correctionID: $0.undone.id, userID: $0.undone.userID, entitlement: $0.undone.record.entitlement,
                    action: $0.action, revertedAction: $0.undone.record.action, revertedReason: $0.undone.record.reason,
                    before: State(active: $0.beforeActive, expiresAt: $0.beforeExpiresAt),
                    after: State(active: $0.afterActive, expiresAt: $0.afterExpiresAt), rowCreatedByRun: $0.createdByRun
                )
            }
            leftAlone = result.leftAlone
            alreadyReverted = result.alreadyReverted.map {
                Already(
                    correctionID: $0.correction.id, userID: $0.correction.userID,
                    entitlement: $0.correction.record.entitlement, revertedByRunID: $0.byRunID)
            }
        }
    }
}

private func plural(_ count: Int) -> String { count == 1 ? "" : "s" }
