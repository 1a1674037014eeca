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
        RunList.Entry(
            runID: 8, kind: .nightly, dryRun: false, status: .failed, backend: "server-api", version: "0.1.0",
            shard: "0/1", startedAt: started, finishedAt: started.addingTimeInterval(2), corrections: 0, exitCode: 78,
            reason: "Apple refused the key"),
    ])

    @Test func oneAlignedLinePerRunUnderAHeader() {
        #expect(
            Self.list.text == """
                RUN  KIND     DRY RUN  STATUS     BACKEND     SHARD  STARTED (UTC)         CORRECTIONS  EXIT  REASON
                 12  nightly  no       running    -           1/2    2026-01-01T04:00:00Z            -     -  -
                  9  user     yes      completed  server-api  user   2026-01-01T04:00:00Z            1     0  -
                  8  nightly  no       failed     server-api  0/1    2026-01-01T04:00:00Z            0    78  Apple refused the key

                """)
        #expect(RunList(entries: []).text == "No run has been recorded yet.\n")
    }

    @Test func everyKeyInEveryObjectNullWhereUnknown() throws {
        let array = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.list.json.utf8)) as? [[String: Any]])
        let keys: Set<String> = [
            "runID", "kind", "dryRun", "status", "backend", "version", "shard", "startedAt", "finishedAt",
            "corrections", "exitCode", "reason",
        ]
        #expect(array.allSatisfy { Set($0.keys) == keys })
        #expect(array[0]["corrections"] is NSNull && array[0]["backend"] is NSNull)
        #expect(array[1]["startedAt"] as? String == "2026-01-01T04:00:00Z")
        #expect(RunList(entries: []).json == "[]")
        #expect(array[2]["reason"] as? String == "Apple refused the key")
    }

    @Test(arguments: [
        ("short", "short"),
        ("two\nlines", "two lines"),
        (String(repeating: "x", count: 60), String(repeating: "x", count: 60)),
        // Cut at the last word that fits, with the punctuation before the cut dropped.
        (
            "circuit breaker: 35 of 100 receipts unverified (35.0%), above --max-unverified-ratio 0.10",
            "circuit breaker: 35 of 100 receipts unverified (35.0%)…"
        ),
        // One word too long for the line is cut inside it.
        (String(repeating: "y", count: 70), String(repeating: "y", count: 59) + "…"),
    ])
    func aReasonIsShortenedToOneLineAtAWord(reason: String, shown: String) {
        #expect(RunList.shortened(reason) == shown)
        #expect(RunList.shortened(reason).count <= RunList.reasonWidth)
    }

    @Test func aPartialNightSaysHowManyReceiptsStayedUnverified() {
        #expect(
            RunList.reason(abortReason: nil, status: .partial, transientlyUnverified: 3)
                == "3 receipts stayed unverified; the next night asks again")
        #expect(
            RunList.reason(abortReason: nil, status: .partial, transientlyUnverified: 1)?.hasPrefix("1 receipt ")
                == true)
        #expect(RunList.reason(abortReason: nil, status: .completed, transientlyUnverified: 0) == nil)
        #expect(
            RunList.reason(abortReason: nil, status: .partial, transientlyUnverified: 0)
                == "some receipts stayed unverified; the next night asks again")
        #expect(
            RunList.reason(abortReason: "budget spent", status: .completed, transientlyUnverified: 0) == "budget spent")
    }
}
