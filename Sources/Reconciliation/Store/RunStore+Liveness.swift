import Postgres

extension RunStore {
    /// One round trip on the store's connection: fails when the connection dropped, and keeps an
    /// idle-session timeout from closing it.
    func confirmConnected() throws {
        _ = try connection.query("SELECT 1 AS alive")
    }

    /// The status run `runID`'s row holds, as stored; nil when there is no such row.
    func storedStatus(of runID: Int64) throws -> String? {
        try connection.query("SELECT status FROM recon_runs WHERE id = \(runID)").first?.decode("status")
    }
}
