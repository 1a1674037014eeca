/// How long `CurlMultiLoop` gathers ready sockets and handed-over requests before it serves them.
enum GatheringPeriod {
    /// While the rate paces the requests, the loop wakes at most once per this period and handles
    /// whatever became ready meanwhile. At a few hundred requests a second nearly every start and every
    /// answer would otherwise wake it (and then a lane) on its own, and a wake-up from idle costs tens of
    /// microseconds plus caches gone cold; gathering them is a large share of the job's CPU. The price:
    /// an answer reaches its lane up to one period later, and a request starts up to one period after
    /// its token is due, never before. That costs nothing while lanes wait for tokens, but everything
    /// once the lanes are the limit: hence `short`.
    static let long = Duration.milliseconds(20)
    /// The period once the lanes, not the rate, pace the requests (see `after(_:current:)`): none.
    /// Each answer is then served as it arrives and its slot goes straight to the next request, so a
    /// slot is held no longer than Apple takes to answer; waking per answer costs little more CPU,
    /// since with every slot busy the answers come one by one anyway.
    static let short = Duration.zero

    /// The gathering period after a turn that took requests from lanes, `waited` telling for each
    /// whether it had to wait for its throttle token; `current` when there were none. The long period
    /// while every one waited: lanes are queuing for tokens, so some are to spare and a later start
    /// or answer costs no throughput. The short one as soon as one found its token due: the bucket
    /// had filled because no lane was free to use it, and every millisecond a lane waits on the loop
    /// is throughput lost (a slow database or a busy CPU can do that, as can too few lanes for
    /// Apple's latency, and the run's first and last users).
    static func after(_ waited: some Sequence<Bool>, current: Duration) -> Duration {
        var any = false
        for flag in waited {
            if !flag { return short }
            any = true
        }
        return any ? long : current
    }
}
