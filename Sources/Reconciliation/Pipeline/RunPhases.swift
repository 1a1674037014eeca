import Foundation
import Synchronization

/// Times the run's phases as they happen (`PhaseSeconds` says what each figure is): spans opened and
/// closed by the thread that owns the phase, and seconds of work added by each thread that does some.
///
/// Threading: every method may be called from any thread; the figures sit behind one `Mutex`.
final class RunPhases: Sendable {
    enum Phase: Sendable, CaseIterable {
        case historyRead, queueFill, verification, write, finish
    }

    private struct State {
        var opened: [Phase: ContinuousClock.Instant] = [:]
        var seconds: [Phase: Double] = [:]
    }

    private let state: Mutex<State>

    /// - Parameter work: phases of work the run always has, counted from 0 (the writers': a night with
    ///   nothing to write wrote for 0 s).
    init(work: [Phase] = [.write]) {
        state = Mutex(State(seconds: Dictionary(uniqueKeysWithValues: work.map { ($0, 0) })))
    }

    /// The span of `phase` starts now (again, if it had: the last start counts).
    func begin(_ phase: Phase) {
        let now = ContinuousClock.now
        state.withLock { $0.opened[phase] = now }
    }

    /// The span of `phase` ends now; nothing when it never began.
    func end(_ phase: Phase) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard let start = state.opened.removeValue(forKey: phase) else { return }
            state.seconds[phase, default: 0] += Self.seconds(now - start)
        }
    }

    /// `body`, its time added to `phase`: a span when one thread runs it once, seconds of work when
    /// several threads run it (the writers).
    func measure<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer {
            let elapsed = Self.seconds(ContinuousClock.now - start)
            state.withLock { $0.seconds[phase, default: 0] += elapsed }
        }
        return try body()
    }

    /// The figures so far; a span still open counts up to now, a phase never timed is nil.
    var figures: PhaseSeconds {
        let now = ContinuousClock.now
        let seconds = state.withLock { state in
            state.seconds.merging(state.opened.mapValues { Self.seconds(now - $0) }, uniquingKeysWith: +)
        }
        return PhaseSeconds(
            historyRead: seconds[.historyRead], queueFill: seconds[.queueFill], verification: seconds[.verification],
            write: seconds[.write], finish: seconds[.finish])
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
