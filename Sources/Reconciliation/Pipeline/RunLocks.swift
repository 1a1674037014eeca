import Foundation
import Postgres

/// The run's session-scoped advisory locks and the connection that holds them: the shard's nightly
/// lock (none for `verify-user`) and the run's liveness lock (`RunStore.lockKey(for:)`).
///
/// A session lock is lost with its connection. After a drop, `ensureHeld` reconnects and takes both
/// again, and checks that no other run took over meanwhile: another run may have taken the shard's
/// nightly lock, or marked this run `interrupted` because its liveness lock was free. Either way this
/// run must stop without writing (exit 75), since the other run now owns the shard's work.
///
/// Threading: any thread; calls are serialised by `lock` (the writers check before each batch, the
/// finish uses the connection at the end). `@unchecked Sendable` because the connection, which is
/// not `Sendable`, is touched only under that lock.
final class RunLocks: @unchecked Sendable {
    /// Another run owns the shard or this run's row now.
    struct Lost: Error, CustomStringConvertible {
        let description: String
    }

    let runID: Int64
    private let nightlyKey: AdvisoryLockKey?
    private let reconnector: DatabaseReconnector
    private let lock = NSLock()
    private var connection: PostgresConnection
    private var lost: Lost?

    init(connection: PostgresConnection, runID: Int64, nightlyKey: AdvisoryLockKey?, reconnector: DatabaseReconnector) {
        self.connection = connection
        self.runID = runID
        self.nightlyKey = nightlyKey
        self.reconnector = reconnector
    }

    /// Confirms the locks are held with one round trip on their connection (which also keeps an
    /// idle-session timeout from closing it mid-run); after a drop, reconnects and takes them again.
    /// - Throws: `Lost` when another run took over; the reconnector's error when the database stays
    ///   unreachable for the whole window.
    func ensureHeld() throws {
        try lock.withLock { try hold() }
    }

    /// `body` with the lock connection, once the locks are confirmed held; if the connection drops
    /// inside `body`, reconnects, takes the locks again and runs `body` once more (so `body` must be
    /// safe to repeat).
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try lock.withLock {
            try hold()
            do {
                return try body(connection)
            } catch let error as PostgresError where error.isConnectionFailure {
                try retake(after: error)
                return try body(connection)
            }
        }
    }

    /// Caller holds `lock`.
    private func hold() throws {
        if let lost { throw lost }
        do {
            try RunStore(connection: connection).confirmConnected()
        } catch let error as PostgresError where error.isConnectionFailure {
            try retake(after: error)
        }
    }

    /// Caller holds `lock`.
    private func retake(after failure: PostgresError) throws {
        let connection = try reconnector.reconnect("lock", after: failure)
        if let nightlyKey, try !connection.tryAdvisoryLock(nightlyKey) {
            let lost = Lost(
                description: "another run took the nightly lock while the database was unreachable; "
                    + "it carries on with this shard's work")
            self.lost = lost
            throw lost
        }
        let status = try RunStore(connection: connection).storedStatus(of: runID)
        guard try connection.tryAdvisoryLock(RunStore.lockKey(for: runID)), status == RunStatus.running.rawValue else {
            let lost = Lost(
                description: "run \(runID) was marked \(status ?? "missing") by another run while the database "
                    + "was unreachable")
            self.lost = lost
            throw lost
        }
        self.connection = connection
    }
}
