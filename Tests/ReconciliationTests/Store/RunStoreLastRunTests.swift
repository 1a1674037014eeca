import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// What the last nightly run of a shard says about the next: the cost per user the night's budget
/// estimate starts from.
@Suite struct RunStoreLastRunTests {
    @Test func aUsersCostIsTheLastRealNightsOfTheShard() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let store = RunStore(connection: connection)
            #expect(try store.lastRequestsPerUser(shard: "0/1") == nil, "no run yet")
            func run(
                _ status: String, requests: Int, users: Int, dryRun: Bool = false, shard: String = "0/1",
                kind: String = "nightly"
            ) throws {
                try connection.execute(
                    """
                    INSERT INTO recon_runs (kind, status, dry_run, as_of, shard, apple_requests, users_processed)
                    VALUES (\(kind), \(status), \(dryRun), now(), \(shard), \(requests), \(users))
                    """)
            }
            try run("completed", requests: 130, users: 100)
            try run("partial", requests: 210, users: 200)
            // None of these says what a user of this shard's nights costs.
            try run("completed", requests: 900, users: 100, dryRun: true)
            try run("aborted", requests: 900, users: 100)
            try run("completed", requests: 900, users: 100, shard: "1/2")
            try run("completed", requests: 9, users: 1, kind: "user")
            try run("completed", requests: 3, users: 0)
            #expect(try store.lastRequestsPerUser(shard: "0/1") == 1.05)
        }
    }
}
