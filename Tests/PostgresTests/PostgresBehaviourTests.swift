import CivilTime
import Foundation
import Postgres
import TestSupport
import Testing

/// Errors, transactions, advisory locks and bulk writes against a real PostgreSQL.
@Suite struct PostgresBehaviourTests {
    @Test func uniqueViolationSurfacesSQLState23505WithoutRowValuesInItsDescription() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            try connection.execute("INSERT INTO sandbox_testers (user_id) VALUES (\("reviewer-secret-id"))")
            let error = try #require(throws: PostgresError.self) {
                try connection.execute("INSERT INTO sandbox_testers (user_id) VALUES (\("reviewer-secret-id"))")
            }
            #expect(error.sqlState == "23505")
            #expect(error.kind == .server)
            #expect(error.description.contains("23505"))
            // The server's detail quotes the key value; it stays out of what gets logged.
            #expect(error.detail?.contains("reviewer-secret-id") == true)
            #expect(!error.description.contains("reviewer-secret-id"))
            // The connection is still usable after a failed statement outside a transaction.
            #expect(try connection.query("SELECT 1 AS one").first!.decode("one") == 1)
        }
    }

    @Test func sessionsCompileNoJITWhateverTheDatabaseSays() throws {
        try TestDatabase.with { database in
            let first = try database.connect()
            let name: String = try first.query("SELECT current_database() AS name").first!.decode("name")
            try first.execute(PostgresQuery(unsafeSQL: "ALTER DATABASE \"\(name)\" SET jit = on"))
            let session = try database.connect()
            let jit: String = try session.query("SELECT current_setting('jit') AS jit").first!.decode("jit")
            #expect(jit == "off")
        }
    }

    @Test func aThrowingTransactionLeavesNothingBehind() throws {
        struct Abort: Error {}
        try TestDatabase.with { database in
            let connection = try database.connect()
            #expect(throws: Abort.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO receipts (user_id, receipt_data) VALUES ('u1', 'AAAA')")
                    try connection.execute("INSERT INTO sandbox_testers (user_id) VALUES ('u1')")
                    throw Abort()
                }
            }
            // A statement error inside the body rolls back too.
            #expect(throws: PostgresError.self) {
                try connection.transaction {
                    try connection.execute("INSERT INTO receipts (user_id, receipt_data) VALUES ('u2', 'AAAA')")
                    try connection.execute("INSERT INTO products (product_id, kind) VALUES ('p', 'not-a-kind')")
                }
            }
            let other = try database.connect()
            let receipts: Int = try other.query("SELECT count(*) AS n FROM receipts").first!.decode("n")
            let testers: Int = try other.query("SELECT count(*) AS n FROM sandbox_testers").first!.decode("n")
            #expect(receipts == 0)
            #expect(testers == 0)
            // And a committed one stays.
            try connection.transaction {
                try connection.execute("INSERT INTO sandbox_testers (user_id) VALUES ('kept')")
            }
            #expect(try other.query("SELECT count(*) AS n FROM sandbox_testers").first!.decode("n") == 1)
        }
    }

    @Test func advisoryLockIsRefusedToAnotherSessionAndReleasedOnDisconnect() throws {
        try TestDatabase.with(migrated: false) { database in
            let key = AdvisoryLockKey(name: "receipt-recon:nightly:0/1")
            var holder: PostgresConnection? = try database.connect()
            let contender = try database.connect()
            #expect(try holder!.tryAdvisoryLock(key))
            #expect(try !contender.tryAdvisoryLock(key))
            holder = nil  // closing the session (as a killed process would) releases its locks
            // The server releases them when the backend has processed the goodbye: poll briefly.
            var acquired = false
            for _ in 0..<100 where !acquired {
                acquired = try contender.tryAdvisoryLock(key)
                if !acquired { usleep(20_000) }
            }
            #expect(acquired)
            #expect(try contender.advisoryUnlock(key))
            _ = holder
        }
    }

    @Test func transactionScopedAdvisoryLockEndsWithTheTransaction() throws {
        try TestDatabase.with(migrated: false) { database in
            let key = AdvisoryLockKey(name: "receipt-recon:user:u-42")
            let first = try database.connect()
            let second = try database.connect()
            try first.transaction {
                try first.advisoryTransactionLock(key)
                #expect(try !second.transaction { try second.tryAdvisoryTransactionLock(key) })
            }
            #expect(try second.transaction { try second.tryAdvisoryTransactionLock(key) })
        }
    }

    @Test func copyWritesHostileTextAndKeepsNullApartFromEmpty() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE bulk (id bigint, note text, at timestamptz, flag boolean)")
            let when = Date(unixMicroseconds: 1_732_233_600_000_042)
            let notes: [String?] = ["tab\there", "line\nbreak\r\n", "back\\slash \\N", "", nil, "ünïcödé 🧾"]
            let rows: [[any PostgresEncodable]] = notes.enumerated().map { index, note in
                [Int64(index), note, when, index % 2 == 0]
            }
            #expect(
                try connection.copy(into: "bulk", columns: ["id", "note", "at", "flag"], rows: rows) == notes.count)
            let back = try connection.query("SELECT id, note, at, flag FROM bulk ORDER BY id")
            #expect(try back.map { try $0.decode("note", as: String?.self) } == notes)
            #expect(try back.allSatisfy { try $0.decode("at", as: Date.self) == when })
        }
    }

    @Test func aFailedCopyWritesNothing() throws {
        try TestDatabase.with(migrated: false) { database in
            let connection = try database.connect()
            try connection.execute("CREATE TABLE bulk (id bigint PRIMARY KEY)")
            let rows: [[any PostgresEncodable]] = [[Int64(1)], [Int64(2)], [Int64(1)]]
            let error = try #require(throws: PostgresError.self) {
                try connection.copy(into: "bulk", columns: ["id"], rows: rows)
            }
            #expect(error.sqlState == "23505")
            #expect(try connection.query("SELECT count(*) AS n FROM bulk").first!.decode("n") == 0)
        }
    }

    @Test func connectionFailureNamesTheHostAndNeverThePassword() throws {
        let error = try #require(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "host=/nonexistent-socket-dir user=x password=hunter2 connect_timeout=2")
        }
        #expect(error.kind == .connection)
        #expect(error.description.contains("/nonexistent-socket-dir"))
        #expect(!error.debugDescription.contains("hunter2"))

        let uriError = try #require(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "postgresql://alice:hunter2@127.0.0.1:1/shop?connect_timeout=2")
        }
        #expect(uriError.description.contains("127.0.0.1"))
        #expect(!uriError.debugDescription.contains("hunter2"))
    }

    @Test func unparsableConnectionStringIsNotEchoed() throws {
        let error = try #require(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "host=db password=hunter2 oops")
        }
        #expect(error.kind == .invalidConnectionString)
        #expect(!error.debugDescription.contains("hunter2"))
        #expect(!error.debugDescription.contains("oops"))
    }

    @Test func connectionStringCanPointAtAnotherDatabaseOnTheSameServer() throws {
        let parsed = try ConnectionString("postgresql://alice:p%40ss@db.internal:6432/shop?sslmode=require")
        let other = parsed.replacingDatabase(with: "it's-other")
        let reparsed = try ConnectionString(other.rendered)
        #expect(reparsed.options["dbname"] == "it's-other")
        #expect(reparsed.options["password"] == "p@ss")
        #expect(reparsed.options["sslmode"] == "require")
        #expect(parsed.safeDescription == "host=db.internal port=6432 dbname=shop user=alice")
    }
}
