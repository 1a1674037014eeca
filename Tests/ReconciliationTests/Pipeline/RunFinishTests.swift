import Foundation
import Postgres
import TestSupport
import Testing

@testable import Reconciliation

/// The finish counts the run's figures once what runs beside its scans (`BesideTheFinish`: the
/// notifications' matching) is done, so that a night's summary and its row say how many of its
/// notifications stayed unmatched however long the matching took.
@Suite struct RunFinishTests {
    static let asOf = Date(timeIntervalSince1970: 1_793_491_200)

    @Test func theFiguresWaitForWhatRunsBesideTheScans() throws {
        try TestDatabase.with { database in
            let store = RunStore(connection: try database.connect())
            let options = RunOptions(asOf: Self.asOf, startedAt: Self.asOf)
            let runID = try store.start(kind: .nightly, options: options)
            let counters = RunCounters(summary: RunSummary())
            var read = NotificationFigures()
            read.stored = 9
            read.unmatched = 9
            counters.setNotifications(read)
            let control = RunControl(breaker: CircuitBreaker(maxUnverifiedRatio: 1, maxRevokeRatio: 1), writerCount: 1)
            control.classifiedWholeNight()
            // Slower than the scans of an empty run by far: the figure arrives after they end.
            let matching = BesideTheFinish {
                Thread.sleep(forTimeInterval: 0.5)
                counters.setUnmatchedNotifications(2)
            }

            let outcome = try RunFinish(
                runID: runID, kind: .nightly, options: options, log: EventLog(enabled: false), beside: matching
            ).finish(counters: counters, control: control, store: store, subjectUserID: nil)

            #expect(outcome.summary.notifications?.unmatched == 2)
            let recorded: PostgresJSON = try #require(
                try store.connection.query("SELECT summary FROM recon_runs WHERE id = \(runID)").first?.decode(
                    "summary"))
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let summary = try decoder.decode(RunSummary.self, from: Data(recorded.text.utf8))
            #expect(summary.notifications?.unmatched == 2)
        }
    }
}
