/// The conversation an outer exchange holds in progress (the request of a page, of a lookup), kept in an
/// optional slot: started when the outer exchange asks, handed every event after, absent when none is
/// in progress. The outer exchange reads the steps (`SubExchange` does the same for a conversation whose
/// end is mapped to the outer's own outcome).
extension Optional where Wrapped: AppleExchange {
    /// Keeps `exchange` as the one in progress, and its first step.
    mutating func start(_ exchange: Wrapped) -> ExchangeStep<Wrapped.Result> {
        self = exchange
        return self!.start()
    }

    /// The step of the exchange in progress after `event`; nil when none is.
    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<Wrapped.Result>? {
        guard case .some = self else { return nil }
        return self!.handle(event)
    }
}
