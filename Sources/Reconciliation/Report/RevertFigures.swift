import CivilTime
import Foundation

/// What a revert run did (`recon_runs.summary` of a run of kind `revert`, `report --run`): the run it
/// undid, and how many of that run's corrections it undid, left alone, or found already undone.
public struct RevertFigures: Sendable, Codable, Equatable {
    public var revertedRunID: Int64
    /// Entitlements put back as they were before the reverted run (would be, in a dry run).
    public var restored = 0
    /// Entitlements changed since the reverted run, not touched.
    public var leftAlone = 0
    /// Corrections an earlier revert had undone already.
    public var alreadyReverted = 0
    /// The entitlements left alone, and why: the first `storedLimit` in the stored summary (the revert's
    /// own output lists them all).
    public var leftAloneEntries: [LeftAloneEntry] = []

    /// Left-alone entries kept in `recon_runs.summary`: enough for a bad night's stragglers, without
    /// making one row hold a whole night.
    public static let storedLimit = 200

    public init(revertedRunID: Int64) { self.revertedRunID = revertedRunID }

    /// An entitlement a revert did not touch because it changed since the run.
    public struct LeftAloneEntry: Sendable, Codable, Equatable {
        /// The reverted run's correction that was not undone.
        public var correctionID: Int64
        public var userID: String
        public var entitlement: String
        /// `row_gone`, `other_source`, `corrected_since`, `values_changed`, `updated_since`.
        public var why: String
        /// The same, in words, with what the row shows now.
        public var detail: String

        public init(correctionID: Int64, userID: String, entitlement: String, why: String, detail: String) {
            self.correctionID = correctionID
            self.userID = userID
            self.entitlement = entitlement
            self.why = why
            self.detail = detail
        }
    }
}

extension RunSummary {
    /// `report --run` of a revert run: what it undid, not receipts and Apple traffic (it asks Apple nothing).
    func revertText(_ revert: RevertFigures) -> String {
        var lines: [String] = []
        let mode = dryRun ? " (dry run: no entitlement changed)" : ""
        lines.append(
            "Run \(runID) (revert of run \(revert.revertedRunID), shard \(shard)) \(status)\(mode) in "
                + String(format: "%.1f", durationSeconds) + " s")
        lines.append(
            "  started \(Instant.formatSeconds(startedAt)); receipt-recon \(version ?? "(version not recorded)")"
        )
        if let abortReason { lines.append("  stopped: \(abortReason)") }
        lines.append(
            "Entitlements \(dryRun ? "to restore" : "restored"): \(revert.restored); left alone (changed since): "
                + "\(revert.leftAlone); already reverted: \(revert.alreadyReverted)")
        let verb = dryRun ? "planned" : "applied"
        lines.append("Corrections \(verb): \(correctionCount)")
        for action in CorrectionAction.allCases {
            guard let reasons = corrections[action], !reasons.isEmpty else { continue }
            lines.append("  \(action): \(reasons.values.reduce(0, +)) (\(Self.list(reasons)))")
        }
        if !revert.leftAloneEntries.isEmpty {
            lines.append("Left alone:")
            for entry in revert.leftAloneEntries {
                lines.append("  \(entry.userID) \(entry.entitlement): \(entry.detail)")
            }
            if revert.leftAlone > revert.leftAloneEntries.count {
                lines.append("  … and \(revert.leftAlone - revert.leftAloneEntries.count) more")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
