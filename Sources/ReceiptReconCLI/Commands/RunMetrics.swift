import Foundation
import Postgres
import Reconciliation

/// Writes `run --metrics-file` at every end of `run` once its options were understood: a run that
/// finished, one an error ended, one that never started (database unreachable, configuration wrong,
/// the shard's lock held). The last success comes from the file as it was (still true when the
/// database is down), or else from the database's last completed run of the shard; a dry run only
/// keeps what the file held. The shard's streaks of nights come from the database (a pod's fresh volume
/// has no file to count from), or are carried from the file when it cannot be asked.
enum RunMetrics {
    /// - Parameters:
    ///   - databaseURL: where to look for the last success when the file does not say it, and for the
    ///     shard's streaks; nil when the database cannot be asked (unreachable, or the configuration never
    ///     resolved).
    static func write(_ end: PrometheusMetrics.RunEnd, to path: String, databaseURL: String??, console: Console) {
        var end = end
        let previous = previousFile(at: path)
        var lastSuccess = PrometheusMetrics.lastSuccess(of: end, previous: previous)
        if !end.dryRun, case .some(let conninfo) = databaseURL, let store = store(conninfo) {
            if lastSuccess == nil { lastSuccess = (try? store.lastSuccess(shard: end.shard)) ?? nil }
            end.streaks = try? store.nightStreaks(shard: end.shard)
        }
        // A failed write is reported but does not change the exit code, which says what the run did; the
        // stale file's timestamps are what monitoring alerts on.
        do {
            try OutputFile.write(PrometheusMetrics.render(end, lastSuccess: lastSuccess, previous: previous), to: path)
        } catch {
            console.error("receipt-recon run: error: metrics file not written: \(error)")
        }
    }

    /// The file at `path` when it is a regular file of a sensible size; a device or FIFO is never read.
    static func previousFile(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size < 16 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func store(_ conninfo: String?) -> RunStore? {
        guard
            let connection = try? PostgresConnection(
                conninfo: conninfo, connectTimeout: 5, statementTimeout: .seconds(10),
                applicationName: "receipt-recon metrics")
        else { return nil }
        return RunStore(connection: connection)
    }
}
