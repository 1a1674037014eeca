import Foundation
import Postgres
import ReconSchema
import Reconciliation

/// `verify-user USER_ID --explain` (and `report --user USER_ID`): why a user's access changed, from the
/// job's records only. No Apple request, no lock, nothing written: support can run it on the phone with
/// a customer, beside the nightly run, without the Apple keys.
enum UserExplanation {
    /// The help line of `--explain` and `report --user`.
    static let help =
        "show why the user's access changed, from the job's records only (no Apple request, nothing written): "
        + "the last \(UserHistory.defaultLimit) corrections across runs, newest first, and the flags of the last "
        + "run that judged the user, each with the Apple fact behind it; --json for the structured evidence"

    /// Reads the user's history and prints it. - Throws: 65 when the job and the app know nothing of the user.
    static func run(userID: String, databaseURL: String?, json: Bool, command: String, console: Console) throws
        -> ExitCode
    {
        let connection = try PostgresConnection(
            conninfo: databaseURL, applicationName: "receipt-recon \(command) --explain")
        try SchemaReadiness.require(on: connection, applicationTables: true)
        let history = try UserHistory.load(userID: userID, on: connection)
        guard !history.isUnknown else {
            throw CommandError(
                .dataError,
                "\(command): user '\(userID)' has no receipts, no entitlements and no record in the job's tables; "
                    + "check the user id (it is matched exactly)")
        }
        console.write(json ? self.json(history) + "\n" : text(history))
        return .success
    }

    static func text(_ history: UserHistory) -> String {
        var lines = ["User \(history.userID): why access changed (from the job's records; Apple was not asked now)"]
        lines.append("Entitlements now:")
        lines +=
            history.entitlements.isEmpty
            ? ["  (no entitlements)"]
            : history.entitlements.map {
                "  " + UserReport.describe($0)
            }
        if history.corrections.isEmpty {
            lines.append("No correction recorded: receipt-recon never changed this user's access.")
        } else {
            lines.append("Last \(history.corrections.count) correction(s), newest first:")
            lines += history.corrections.map { "  - " + EvidenceText.correction($0) }
        }
        if let run = history.lastRunID {
            lines.append(
                history.flags.isEmpty
                    ? "No flag in run \(run), the last that judged this user."
                    : "Flags of run \(run), the last that judged this user:")
            lines += history.flags.map { "  - " + EvidenceText.flag($0) }
        } else {
            lines.append("No run has judged this user yet (\(history.receipts) receipt(s) stored).")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
