import Foundation
import Postgres
import TestSupport
import Testing

/// A batch PostgreSQL rolls back for a deadlock is written again, not the end of the run: what the
/// entitlements sync of docs/integration.md makes possible when the app writes the same row at the
/// same instant.
@Suite struct WriteRetryTests {
    /// The app and the job each hold one of two rows and want the other's. The job's copy to the app's
    /// table dawdles, so the app is first to wait, and the job, waiting second, is the one PostgreSQL
    /// picks to roll back (the app's session waits a minute before looking for deadlocks).
    @Test func aDeadlockWithTheAppsOwnWriteIsWrittenAgain() throws {
        try RunCommandTests.drifted { apple, database in
            let app = try database.connect()
            try app.executeScript(
                """
                CREATE TABLE app_access (user_id text, entitlement text, active boolean NOT NULL,
                                         PRIMARY KEY (user_id, entitlement));
                INSERT INTO app_access SELECT user_id, entitlement, active FROM entitlements;
                CREATE FUNCTION to_app() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
                    IF NEW.user_id = 'u-revoke' THEN PERFORM pg_sleep(2); END IF;
                    INSERT INTO app_access VALUES (NEW.user_id, NEW.entitlement, NEW.active)
                    ON CONFLICT (user_id, entitlement) DO UPDATE SET active = EXCLUDED.active;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER to_app AFTER INSERT OR UPDATE ON entitlements
                    FOR EACH ROW EXECUTE FUNCTION to_app();
                CREATE FUNCTION from_app() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
                    UPDATE entitlements SET active = NEW.active, updated_at = now()
                    WHERE user_id = NEW.user_id AND entitlement = NEW.entitlement;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER from_app AFTER UPDATE ON app_access FOR EACH ROW EXECUTE FUNCTION from_app();
                """)
            try app.execute("BEGIN")
            try app.execute("SET LOCAL deadlock_timeout = '60s'")
            try app.execute("SELECT 1 FROM app_access WHERE user_id = 'u-revoke' FOR UPDATE")

            let job = try ReceiptReconBinary.start(
                ["run", "--older-than", "0", "--as-of", RunCommandTests.asOf, "--max-attempts", "1"],
                environment: apple.environment.merging(["DATABASE_URL": database.conninfo]) { $1 })
            let watcher = try database.connect()
            var sleeping = false
            for _ in 0..<600 where !sleeping {
                sleeping = try watcher.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                                   WHERE application_name LIKE 'receipt-recon%' AND wait_event = 'PgSleep') AS s
                    """
                ).first!.decode("s")
                if !sleeping { usleep(50_000) }
            }
            try #require(sleeping, "the job never reached the app's row")
            // Waits for the job's row until PostgreSQL rolls the job's batch back, then goes through.
            try app.execute("UPDATE app_access SET active = true WHERE user_id = 'u-revoke'")
            try app.execute("COMMIT")

            let result = try job.wait(timeout: 120)
            #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
            #expect(result.stderrText.contains("event=run.write_retried"), "\(result.stderrText)")
            #expect(result.stderrText.contains("40P01"))
            #expect(try RunCommandTests.corrections(app, applied: true) == RunCommandTests.expected)
            let access: Bool = try app.query(
                "SELECT active FROM app_access WHERE user_id = 'u-revoke' AND entitlement = 'premium'"
            ).first!.decode("active")
            #expect(!access, "the job's revoke, written again after the app's write, reached the app")
        }
    }
}
