import Testing

@testable import Reconciliation

/// The phases' figures (`phaseSeconds`): what a run did not have stays out, what it had is counted,
/// spans from one thread and work from several. No figure is compared with a clock: only with zero and
/// with each other.
@Suite struct RunPhasesTests {
    @Test func aRunThatTimedNothingHasOnlyItsWritersZeroSeconds() {
        let figures = RunPhases().figures
        #expect(figures == PhaseSeconds(write: 0))
    }

    @Test func aClosedSpanIsCountedAndAPhaseNeverBegunStaysOut() {
        let phases = RunPhases()
        phases.begin(.verification)
        phases.end(.verification)
        phases.end(.finish)
        let figures = phases.figures
        #expect((figures.verification ?? -1) >= 0)
        #expect(figures.finish == nil)
        #expect(figures.historyRead == nil)
        #expect(figures.queueFill == nil)
    }

    @Test func aSpanStillOpenCountsUpToNowAndGoesOnCounting() {
        let phases = RunPhases()
        phases.begin(.historyRead)
        let first = phases.figures.historyRead
        let second = phases.figures.historyRead
        #expect(first != nil)
        #expect((second ?? -1) >= (first ?? 0))
    }

    @Test func workAddsUpAndTheBodysValueComesBack() {
        let phases = RunPhases()
        #expect(phases.measure(.write) { 42 } == 42)
        let afterOne = phases.figures.write ?? -1
        #expect(afterOne >= 0)
        phases.measure(.write) {}
        #expect((phases.figures.write ?? -1) >= afterOne)
    }

    @Test func aMeasuredBodyThatThrowsIsStillCounted() {
        struct Failure: Error {}
        let phases = RunPhases(work: [])
        #expect(throws: Failure.self) { try phases.measure(.queueFill) { throw Failure() } }
        #expect(phases.figures.queueFill != nil)
        #expect(phases.figures.write == nil)
    }
}
