import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// Notified users joining the run's queue while it is paged (`RunQueue.takeNotified`): the history is
/// read beside the users already due, so a piece's users arrive behind or ahead of the paging. Each
/// user is emitted once, whichever side it lands on.
@Suite struct RunQueueJoiningTests {
    /// `b`, `d` and `f` are new (never verified); `a`, `c`, `e` and `g` were verified and are not due.
    static func world(_ connection: PostgresConnection) throws -> Int64 {
        let runID = try NotificationStoreTests.run(connection)
        for user in ["b", "d", "f"] { try RunQueueTests.receipt(connection, user, verified: nil) }
        for user in ["a", "c", "e", "g"] {
            try RunQueueTests.receipt(connection, user, verified: RunQueueTests.days(-1))
        }
        return runID
    }

    static func queue(_ database: TestDatabase, runID: Int64, limit: Int? = nil) throws -> RunQueue {
        RunQueue(
            connection: try database.connect(), runID: runID, shardIndex: 0, shardCount: 1, limit: limit, pageSize: 2)
    }

    /// A queue collated in en-US, where "b" sorts before "B" (the receipts stay in C's order: "B", "a",
    /// "b", "c"); `a`, `B` and `c` are new.
    static func collatedWorld(_ connection: PostgresConnection) throws -> Int64 {
        try connection.execute("ALTER TABLE recon_run_queue ALTER COLUMN user_id TYPE text COLLATE \"en-US-x-icu\"")
        let runID = try NotificationStoreTests.run(connection)
        for user in ["a", "B", "c"] { try RunQueueTests.receipt(connection, user, verified: nil) }
        return runID
    }

    /// A fill of `queue` one receipt per range, on a connection of its own, as the run fills beside its
    /// reader; the queue pages as far as it reached.
    static func fillBeside(_ queue: RunQueue, _ database: TestDatabase) throws -> (RunQueueFill, QueueFrontier) {
        let frontier = QueueFrontier()
        queue.frontier = frontier
        let fill = RunQueueFill(
            connection: try database.connect(), runID: queue.runID, shardIndex: 0, shardCount: 1,
            asOf: RunQueueTests.t0, sweepDays: 30, olderThanCutoff: nil, frontier: frontier, ranges: (1, 1))
        return (fill, frontier)
    }

    static func names(_ users: [UserWork]) -> [String] {
        users.map { "\($0.userID) \($0.reason.rawValue)" }
    }

    @Test func usersNamedAfterTheFillAreEmittedOnceBehindOrAheadOfThePaging() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.world(connection)
            let queue = try Self.queue(database, runID: runID)
            let fill = try queue.fill(asOf: RunQueueTests.t0, sweepDays: 30, olderThanCutoff: nil)
            #expect(fill[.new] == 3)
            #expect(Self.names(try queue.nextPage()) == ["b new", "d new"])

            // A piece names a user the paging passed (a), one it has not reached (e), one queued and not
            // reached (f), and one already emitted (b).
            for user in ["a", "e", "f", "b"] { try RunQueueTests.notify(connection, user, runID: runID) }
            #expect(Self.names(try queue.takeNotified()) == ["a notified"], "behind the paging: at once")
            #expect(try queue.takeNotified().isEmpty, "queued once")
            #expect(Self.names(try RunQueueTests.readAll(queue)) == ["e notified", "f notified"])

            // A dry run's users, found but not stored.
            #expect(Self.names(try queue.takeNotified(dryRunNotified: ["c"])) == ["c notified"])
            #expect(try queue.takeNotified(dryRunNotified: ["c"]).isEmpty)
            #expect(try RunQueueTests.readAll(queue).isEmpty)
            // b was asked as new and stays so: the queue says why each user was asked.
            #expect(try queue.queuedByReason() == [.new: 2, .notified: 4])
        }
    }

    @Test func aReachedLimitQueuesLateUsersWithoutEmittingThem() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.world(connection)
            let queue = try Self.queue(database, runID: runID, limit: 3)
            _ = try queue.fill(asOf: RunQueueTests.t0, sweepDays: 30, olderThanCutoff: nil)
            #expect(Self.names(try RunQueueTests.readAll(queue)) == ["b new", "d new", "f new"])
            #expect(queue.isExhausted)
            try RunQueueTests.notify(connection, "a", runID: runID)
            #expect(try queue.takeNotified().isEmpty)
            #expect(try queue.queuedByReason() == [.new: 3, .notified: 1], "left for the next night, and counted")
        }
    }

    /// The paging reads only as far as the last join took the fill (the run joins after every range it
    /// commits), and a join never waits for a range: a user named ahead of the fill is queued by its range.
    @Test func thePagingReadsAsFarAsTheLastJoinTookTheFill() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.world(connection)
            let queue = try Self.queue(database, runID: runID)
            let (fill, frontier) = try Self.fillBeside(queue, database)
            #expect(try queue.nextPage().isEmpty, "nothing filled yet")
            #expect(try fill.fillNext())  // a: not due
            #expect(try fill.fillNext())  // b
            #expect(queue.frontierMoved)
            #expect(try queue.nextPage().isEmpty, "filled, not joined yet")
            #expect(try queue.takeNotified().isEmpty)
            #expect(!queue.frontierMoved)
            #expect(Self.names(try queue.nextPage()) == ["b new"], "b's range is filled, d's not yet")
            #expect(try queue.nextPage().isEmpty)

            // f is named before the fill reached it: the join leaves it to its range, which queues it notified.
            try RunQueueTests.notify(connection, "f", runID: runID)
            #expect(try queue.takeNotified().isEmpty, "ahead of the fill: in its turn")
            #expect(try queue.queuedByReason() == [.new: 1], "not queued by the join")
            while try fill.fillNext() {}
            #expect(frontier.current.isComplete)
            #expect(try queue.takeNotified().isEmpty)
            #expect(Self.names(try RunQueueTests.readAll(queue)) == ["d new", "f notified"])
            #expect(try queue.queuedByReason() == [.new: 2, .notified: 1])
        }
    }

    /// Whether a user the notifications name was passed by the paging is the database's call, in the
    /// collation the paging orders by, not Swift's order of strings ("b" sorts before "B" in en-US).
    @Test func aUserBehindThePagingInTheDatabasesCollationIsAskedAtOnce() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.collatedWorld(connection)
            try RunQueueTests.receipt(connection, "b", verified: RunQueueTests.days(-1))
            let queue = try Self.queue(database, runID: runID)
            _ = try queue.fill(asOf: RunQueueTests.t0, sweepDays: 30, olderThanCutoff: nil)
            #expect(Self.names(try queue.nextPage()) == ["a new", "B new"])
            try RunQueueTests.notify(connection, "b", runID: runID)
            #expect(Self.names(try queue.takeNotified()) == ["b notified"], "behind B in en-US: at once")
            #expect(Self.names(try RunQueueTests.readAll(queue)) == ["c new"])
        }
    }

    /// The fill's ranges follow the receipts' order and the paging the queue's: where their collations
    /// differ, one range fills the whole queue, and no user lands behind the paging unread.
    @Test func aQueueOrderedOtherwiseThanTheReceiptsIsFilledWhole() throws {
        try TestDatabase.with { database in
            let connection = try database.connect()
            let runID = try Self.collatedWorld(connection)
            let queue = try Self.queue(database, runID: runID)
            let (fill, _) = try Self.fillBeside(queue, database)
            #expect(try !fill.fillNext(), "one range")
            #expect(try queue.takeNotified().isEmpty)
            #expect(Self.names(try RunQueueTests.readAll(queue)) == ["a new", "B new", "c new"])
        }
    }
}
