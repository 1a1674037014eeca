/// One conversation held inside another (a user's walk holding a history walk, then a statuses
/// lookup), seen by the outer exchange as one typed step: the outer exchange hands it every event, its
/// requests go up to `ExchangeDriver` unchanged, and when it ends its result arrives as the outer
/// exchange's own `Outcome`. So an outer exchange reads as a list of steps ("ask this; when it ends,
/// ask that"), with no per-kind forwarding of its own.
public struct SubExchange<Outcome: Sendable>: Sendable {
    private var exchange: any AppleExchange<Outcome>

    /// `inner`, whose result becomes `outcome(result)` when it ends.
    public init<Inner: AppleExchange>(_ inner: Inner, outcome: @escaping @Sendable (Inner.Result) -> Outcome) {
        exchange = Mapped(inner: inner, outcome: outcome)
    }

    public mutating func start() -> ExchangeStep<Outcome> {
        exchange.start()
    }

    public mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<Outcome> {
        exchange.handle(event)
    }
}

/// `Inner` with its result read as `Outcome`.
private struct Mapped<Inner: AppleExchange, Outcome: Sendable>: AppleExchange {
    var inner: Inner
    let outcome: @Sendable (Inner.Result) -> Outcome

    mutating func start() -> ExchangeStep<Outcome> {
        map(inner.start())
    }

    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<Outcome> {
        map(inner.handle(event))
    }

    private func map(_ step: ExchangeStep<Inner.Result>) -> ExchangeStep<Outcome> {
        switch step {
        case .send(let request, let delay): .send(request, after: delay)
        case .finish(let result): .finish(outcome(result))
        }
    }
}
