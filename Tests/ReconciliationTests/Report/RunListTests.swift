import Foundation
import Testing

@testable import Reconciliation

/// `report --list`'s text and JSON, from entries.
@Suite struct RunListTests {
    static let started = Date(timeIntervalSince1970: 1_767_240_000)

    static let list = RunList(entries: [
        RunList.Entry(
            runID: 12, kind: .nightly, dryRun: false, status: .running, backend: nil, version: nil, shard: "1/2",
            startedAt: started, finishedAt: nil, corrections: nil, exitCode: nil),
        RunList.Entry(
            runID: 9, kind: .user, dryRun: true, status: .completed, backend: "server-api", version: "0.1.0",
            shard: "user", startedAt: started, finishedAt: started.addingTimeInterval(2), corrections: 1, exitCode: 0),
    ])

    @Test func oneAlignedLinePerRunUnderAHeader() {
        #expect(
            Self.list.text == """
                RUN  KIND     DRY RUN  STATUS     BACKEND     SHARD  STARTED (UTC)         CORRECTIONS
                 12  nightly  no       running    -           1/2    2026-01-01T04:00:00Z            -
                  9  user     yes      completed  server-api  user   2026-01-01T04:00:00Z            1

                """)
        #expect(RunList(entries: []).text == "No run has been recorded yet.\n")
    }

    @Test func everyKeyInEveryObjectNullWhereUnknown() throws {
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.list.json.utf8)) as? [[String: Any]])
        let keys: Set<String> = [
            "runID", "kind", "dryRun", "status", "backend", "version", "shard", "startedAt", "finishedAt",
            "corrections", "exitCode",
        ]
        #expect(array.allSatisfy { Set($0.keys) == keys })
        #expect(array[0]["corrections"] is NSNull && array[0]["backend"] is NSNull)
        #expect(array[1]["startedAt"] as? String == "2026-01-01T04:00:00Z")
        #expect(RunList(entries: []).json == "[]")
    }
}
