import Testing

@testable import Reconciliation

/// The progress's figures: "of how many", the rate so far and the time left at that rate.
@Suite struct RunProgressTests {
    static func progress(done: Int, due: Int?, selected: Int = 0, elapsed: Double, unverified: Int = 0)
        -> RunProgress
    {
        RunProgress(
            runID: 7, shard: "1/4", receiptsDone: done, receiptsDue: due, receiptsSelected: selected,
            unverified: unverified, elapsedSeconds: elapsed)
    }

    @Test(
        "time left is what remains of the total at the rate so far",
        arguments: [
            (done: 100, due: 400, elapsed: 10.0, eta: "0m30s", seconds: "30"),
            (done: 1, due: 4_000, elapsed: 1.0, eta: "1h06m", seconds: "3999"),
            (done: 30, due: 100, elapsed: 20.0, eta: "0m47s", seconds: "47"),
            (done: 400, due: 400, elapsed: 10.0, eta: "0m00s", seconds: "0"),
        ])
    func timeLeft(done: Int, due: Int, elapsed: Double, eta: String, seconds: String) {
        let progress = Self.progress(done: done, due: due, elapsed: elapsed)
        #expect(progress.eta == eta)
        #expect(Dictionary(uniqueKeysWithValues: progress.logFields)["eta_seconds"] == seconds)
    }

    @Test func beforeTheFirstReceiptOrWithoutACountNothingIsPromised() {
        #expect(Self.progress(done: 0, due: 500, elapsed: 3).eta == "?")
        let uncounted = Self.progress(done: 50, due: nil, selected: 80, elapsed: 5)
        #expect(uncounted.eta == "?")
        #expect(uncounted.text == "50/? receipts, 10.0/s, ETA ?, 0 unverified")
        let fields = Dictionary(uniqueKeysWithValues: uncounted.logFields)
        #expect(
            fields["receipts_total"] == "unknown" && fields["eta"] == "unknown" && fields["eta_seconds"] == "unknown")
        #expect(Self.progress(done: 0, due: 10, elapsed: 0).rate == 0)
    }

    /// Receipts that arrive during the run are read by the walk too: the total grows with them.
    @Test func theTotalIsNeverBelowWhatWasSelectedOrDone() {
        #expect(Self.progress(done: 90, due: 100, selected: 130, elapsed: 9).receiptsTotal == 130)
        #expect(Self.progress(done: 140, due: 100, selected: 140, elapsed: 14).eta == "0m00s")
    }

    @Test func theTerminalLineAndTheLogEventSayTheSame() {
        let progress = Self.progress(done: 120, due: 300, selected: 160, elapsed: 30, unverified: 2)
        #expect(progress.text == "120/300 receipts, 4.0/s, ETA 0m45s, 2 unverified")
        #expect(
            progress.logFields.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
                == "run_id=7 shard=1/4 receipts_done=120 receipts_total=300 receipts_per_second=4.0 eta=0m45s "
                + "eta_seconds=45 unverified=2")
    }

    @Test(arguments: [(59.2, "1m00s"), (3_600, "1h00m"), (7_322, "2h02m"), (0, "0m00s")])
    func durations(seconds: Double, text: String) {
        #expect(RunProgress.duration(seconds) == text)
    }
}
