import Foundation

/// One conversation with Apple as a value: a verifyReceipt verification with its hop and retries, a
/// Server API request with its token refresh and retries, a history walk, a statuses lookup, one
/// user's rows. It is told what happened (an answer, a stop) and says what to do next: send this
/// request after this delay, or finish with this result. It never sends, sleeps or counts traffic
/// itself: `ExchangeDriver` does that for every kind alike, so retries, waits, stops and the run's
/// figures follow one set of rules.
///
/// Conversations nest: a user's walk holds the history walk it is in, which holds the request it is
/// on, and hands each event down and each step up.
public protocol AppleExchange<Result>: Sendable {
    associatedtype Result: Sendable

    /// The first step: a request, or a result at once (nothing to ask, or everything known already).
    mutating func start() -> ExchangeStep<Result>

    /// The next step after `event`. After a `.stop` the exchange finishes what it can without Apple;
    /// should it ask another question all the same, the driver stops that one the same way.
    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<Result>
}

/// What an exchange wants next.
public enum ExchangeStep<Result: Sendable>: Sendable {
    /// Send `request` once `delay` has passed (a backoff or `Retry-After`; zero for at once).
    case send(AppleRequest, after: Duration)
    case finish(Result)
}

/// What happened to the request an exchange last asked for.
public enum ExchangeEvent: Sendable {
    /// The request was sent and this came back.
    case answer(ExchangeAnswer)
    /// The run stops calling Apple before the request was sent: the exchange finishes with what it has.
    case stop(StopPoint)
}

/// One answer with what the exchange may read of the moment: `Retry-After` dates count from `now`.
public struct ExchangeAnswer: Sendable {
    public var result: HTTPExchangeResult
    /// The wall clock when the answer came.
    public var now: Date

    public init(_ result: HTTPExchangeResult, now: Date) {
        self.result = result
        self.now = now
    }
}

/// Where a stop caught an exchange, for the detail its result records.
public enum StopPoint: Sendable, Equatable {
    /// The run is draining (a breaker, a stop): no new question and no retry is sent.
    case beforeAsking
    /// A signal came before a retry was begun: the retry is not made.
    case beforeRetrying
    /// A signal: the request was waiting for an in-flight slot or its token, and is not sent.
    case beforeSending
    /// A signal cut the wait before a retry short.
    case duringBackoff
}
