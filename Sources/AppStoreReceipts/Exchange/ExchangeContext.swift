/// What every exchange needs from the run, as one value: whether it still takes work, where work goes
/// after an answer, and where its traffic is counted. Handed from the run to the driver with each
/// exchange; nothing below the driver sees it.
public struct ExchangeContext: Sendable {
    /// True once the run takes no more work (a breaker, a stop): no new question and no retry is sent.
    public var isDraining: @Sendable () -> Bool
    /// Where an exchange continues after an answer arrives.
    public var executor: WorkExecutor
    /// Called once per exchange that sent anything, with what it sent, before its result is handed on.
    public var recordTraffic: @Sendable (AppleTraffic) -> Void
    /// Called when the driver's `RequestBudget` first answers `.spent` for an endpoint in an environment
    /// (at most once per limit per driver), so the run stops taking users; called on the thread that asked.
    public var budgetSpent: (@Sendable (AppleLimitKey) -> Void)?

    public init(
        executor: WorkExecutor, isDraining: @escaping @Sendable () -> Bool = { false },
        recordTraffic: @escaping @Sendable (AppleTraffic) -> Void = { _ in },
        budgetSpent: (@Sendable (AppleLimitKey) -> Void)? = nil
    ) {
        self.isDraining = isDraining
        self.executor = executor
        self.recordTraffic = recordTraffic
        self.budgetSpent = budgetSpent
    }
}

/// Where work continues after an answer: the run's worker threads, or a test's queue. Never the
/// transport's own thread, which the other requests' answers wait on; and never a thread of
/// `DispatchQueue.global()`, since work there may block briefly (DESIGN, "Concurrency on Linux").
public struct WorkExecutor: Sendable {
    public typealias Work = @Sendable () -> Void
    /// Hands `work` to a thread that runs it soon.
    public typealias Submit = @Sendable (_ work: @escaping Work) -> Void

    private let submit: Submit

    public init(_ submit: @escaping Submit) {
        self.submit = submit
    }

    public func run(_ work: @escaping Work) { submit(work) }
}
