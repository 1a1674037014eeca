import Foundation
import Postgres
import Synchronization

/// Opens a new connection for a stage whose connection dropped, retrying with `ReconnectPolicy`
/// until the window has passed (then the run fails with 69, as when the database is gone) or a
/// signal asks the run to stop.
///
/// Each stage reconnects on its own (a writer, the reader, the run's lock connection): a restart
/// drops them all at once, and each notices when it next needs the database.
///
/// Once one stage has waited out the whole window, the database is taken to be gone for this run:
/// later calls fail at once, so a run whose database stays away ends after one window, not one per
/// stage.
///
/// Threading: any thread; each call blocks its caller while it waits.
final class DatabaseReconnector: Sendable {
    private let policy: ReconnectPolicy
    private let connect: @Sendable (String) throws -> PostgresConnection
    private let shutdown: ShutdownSignal
    private let log: EventLog
    /// The error of the reconnect that gave up, once one has.
    private let gaveUp = Mutex<PostgresError?>(nil)

    init(
        policy: ReconnectPolicy, shutdown: ShutdownSignal, log: EventLog,
        connect: @escaping @Sendable (String) throws -> PostgresConnection
    ) {
        self.policy = policy
        self.connect = connect
        self.shutdown = shutdown
        self.log = log
    }

    /// A new connection for `purpose`, after `failure` ended the old one.
    /// - Throws: a connection error naming the original failure and the window, once the window has
    ///   passed; the original failure when a signal stops the run meanwhile; any error that is not a
    ///   connection failure (a wrong password after a failover) at once.
    func reconnect(_ purpose: String, after failure: PostgresError) throws -> PostgresConnection {
        if let gone = gaveUp.withLock({ $0 }) { throw gone }
        let noticed = ContinuousClock.now
        log.log(.warning, "database.connection_lost", ["connection": purpose, "error": failure.description])
        var attempt = 0
        var last = failure
        while true {
            guard sleep(policy.delay(beforeAttempt: attempt)) else { throw failure }
            let elapsed = ContinuousClock.now - noticed
            guard policy.allowsAttempt(after: elapsed) else { break }
            attempt += 1
            do {
                let connection = try connect(purpose)
                log.log(
                    .info, "database.reconnected",
                    ["connection": purpose, "attempts": String(attempt), "seconds": Self.text(elapsed)])
                return connection
            } catch let error as PostgresError where error.isConnectionFailure {
                last = error
            }
        }
        let gone = PostgresError(
            kind: .connection,
            message: "PostgreSQL unreachable for \(Self.text(policy.window)) s after the \(purpose) connection "
                + "dropped (\(failure.description)); last attempt: \(last.description). "
                + "Raise --db-reconnect-window to wait longer")
        gaveUp.withLock { $0 = $0 ?? gone }
        throw gone
    }

    /// Sleeps `duration` in short steps; false as soon as a signal asks the run to stop.
    private func sleep(_ duration: Duration) -> Bool {
        let until = ContinuousClock.now + duration
        while ContinuousClock.now < until {
            if shutdown.isRequested { return false }
            Thread.sleep(forTimeInterval: min(0.1, Self.seconds(until - ContinuousClock.now)))
        }
        return !shutdown.isRequested
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func text(_ duration: Duration) -> String {
        String(format: "%.1f", seconds(duration))
    }
}
