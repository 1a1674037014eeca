import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct ThrottleTests {
    /// The largest number of grants that fall in any window [t, t + 1 s).
    static func busiestSecond(_ grants: [Duration], window: Duration = .seconds(1)) -> Int {
        let sorted = grants.sorted()
        var best = 0
        var start = 0
        for end in sorted.indices {
            while sorted[end] - sorted[start] >= window { start += 1 }
            best = max(best, end - start + 1)
        }
        return best
    }

    @Test(arguments: [(50.0, 3.0), (400.0, 20.0), (1.0, 1.0), (7.5, 2.0)])
    func noSecondEverExceedsRatePlusBurst(rate: Double, burst: Double) {
        let clock = VirtualClock()
        let bucket = TokenBucket(rate: rate, burst: burst, clock: clock)
        var grants: [Duration] = []
        // Bursts, idle spells and steady demand: each request starts at the instant its token is due.
        for round in 0..<6 {
            for _ in 0..<Int(rate * 2 + burst * 3) {
                let due = bucket.reserve()
                clock.advance(by: due - clock.now())
                grants.append(due)
            }
            clock.advance(by: .milliseconds(round % 2 == 0 ? 1500 : 100))
        }
        #expect(Self.busiestSecond(grants) <= Int(rate + burst))
        // And it is not slower than asked: over a long steady stretch the rate is met.
        let steady = grants.suffix(Int(rate * 2))
        let span = steady.last! - steady.first!
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        #expect(Double(steady.count - 1) / seconds >= rate * 0.99)
    }

    @Test func manyThreadsReservingAtOnceStayUnderTheLimit() {
        // Reservations from many threads at once, none of which waits: the instants handed out still
        // keep every second under rate + burst, because the bucket queues them under its lock.
        let clock = VirtualClock()
        let bucket = TokenBucket(rate: 100, burst: 5, clock: clock)
        let grants = Mutex<[Duration]>([])
        let group = DispatchGroup()
        for _ in 0..<16 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<15 {
                    let due = bucket.reserve()
                    grants.withLock { $0.append(due) }
                }
                group.leave()
            }
        }
        group.wait()
        let all = grants.withLock { $0 }
        #expect(all.count == 240)
        #expect(Self.busiestSecond(all) <= 100 + 5)
        // Not an unlimited bucket either: 240 tokens at 100/s need more than two seconds.
        #expect(all.max()! - all.min()! >= .milliseconds(2300))
    }

    @Test func inFlightCapHoldsUnderContention() {
        let throttle = RequestThrottle(maxInFlight: 3)
        let bucket = TokenBucket(rate: 10_000, burst: 100)
        let current = Atomic(0)
        let worst = Atomic(0)
        let group = DispatchGroup()
        // 60 requests from 12 threads; each "exchange" ends on a thread of its own 2 ms after it began,
        // as a transport's answer would, and frees its slot for whoever waits.
        for _ in 0..<60 {
            group.enter()
        }
        for _ in 0..<12 {
            Thread.detachNewThread {
                for _ in 0..<5 {
                    throttle.begin(tokenFrom: bucket) { _ in
                        let now = current.add(1, ordering: .relaxed).newValue
                        _ = worst.max(now, ordering: .relaxed)
                        Thread.detachNewThread {
                            usleep(2000)
                            current.subtract(1, ordering: .relaxed)
                            throttle.end()
                            group.leave()
                        }
                    }
                }
            }
        }
        group.wait()
        #expect(worst.load(ordering: .relaxed) == 3)
        #expect(throttle.peakInFlight == 3)
    }

    @Test func backoffGrowsWithFullJitterAndHonoursRetryAfter() {
        let policy = BackoffPolicy(base: .milliseconds(100), cap: .seconds(2), seed: 42)
        for attempt in 1...8 {
            let ceiling = min(Duration.seconds(2), .milliseconds(100) * (1 << (attempt - 1)))
            let samples = (0..<200).map { _ in policy.delay(afterAttempt: attempt, retryAfter: nil, limit: .seconds(10))
            }
            #expect(samples.allSatisfy { $0 >= .zero && $0 <= ceiling })
            // Full jitter: spread over the whole range, not clustered at the ceiling.
            #expect(samples.contains { $0 < ceiling / 4 })
            #expect(samples.contains { $0 > ceiling * 3 / 4 })
        }
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(3), limit: .seconds(10)) >= .seconds(3))
    }

    @Test func noBackoffExceedsTheLimitHoweverLateTheAttempt() {
        let policy = BackoffPolicy(base: .seconds(1), cap: .seconds(30), seed: 7)
        let delays = (1...12).flatMap { attempt in
            (0..<50).map { _ in policy.delay(afterAttempt: attempt, retryAfter: nil, limit: .seconds(2)) }
        }
        #expect(delays.allSatisfy { $0 <= .seconds(2) })
        #expect(delays.contains { $0 > .seconds(1) }, "the limit, not the base, bounds late attempts")
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(60), limit: .seconds(2)) == .seconds(2))
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, limit: .zero) == .zero)
    }
}
