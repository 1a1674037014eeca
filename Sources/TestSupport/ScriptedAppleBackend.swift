import AppStoreReceipts
import Foundation
import Reconciliation
import Synchronization

/// An Apple for tests that drive the reconciliation engine in process: it answers each user from a
/// script (the user's rows' classification and purchases, or Apple refusing the job's configuration),
/// at once or after a delay, and records which users it was asked about, in order.
///
/// This file is the only test code that knows the `AppleBackend` protocol; tests speak of users,
/// answers and the users asked, and give the engine `driver` beside it.
public final class ScriptedAppleBackend: AppleBackend {
    /// What Apple says about every row of one user.
    public struct Answer: Sendable {
        public var classification: ReceiptClassification
        public var purchases: [Purchase]
        public var configurationAbort: ConfigurationAbort?
        /// How long Apple takes to answer; zero answers before the engine's call returns.
        public var delay: Duration

        public init(
            _ classification: ReceiptClassification, purchases: [Purchase] = [],
            configurationAbort: ConfigurationAbort? = nil, delay: Duration = .zero
        ) {
            self.classification = classification
            self.purchases = purchases
            self.configurationAbort = configurationAbort
            self.delay = delay
        }
    }

    private let script: @Sendable (_ userID: String) -> Answer
    private let onAsked: @Sendable (_ userID: String, _ askedSoFar: Int) -> Void
    private let asked = Mutex<[String]>([])

    /// - Parameters:
    ///   - script: the answer for a user.
    ///   - onAsked: called as each user is asked about, before the answer (a test stops or faults the
    ///     run there, at a point counted in users rather than in time).
    public init(
        script: @escaping @Sendable (_ userID: String) -> Answer,
        onAsked: @escaping @Sendable (_ userID: String, _ askedSoFar: Int) -> Void = { _, _ in }
    ) {
        self.script = script
        self.onAsked = onAsked
    }

    /// The users asked about so far, in the order they were asked.
    public var askedUsers: [String] { asked.withLock { $0 } }

    /// The driver the engine is given beside this backend: an answer's delay is waited out on it, as
    /// a retry's would be, and its transport answers at once without a network.
    public let driver = ExchangeDriver(transport: InstantTransport(), rate: 1_000_000, maxInFlight: 1024)

    public func exchange(for user: UserWork) -> any AppleExchange<AppleUserAnswer> {
        let count = asked.withLock { asked in
            asked.append(user.userID)
            return asked.count
        }
        onAsked(user.userID, count)
        let answer = script(user.userID)
        let receipts = user.receipts.map {
            ReceiptAnswer(
                receipt: UserReceipt(
                    receiptID: $0.id, classification: answer.classification, purchases: answer.purchases),
                attempts: 1, bundleID: nil)
        }
        return ScriptedExchange(
            answer: AppleUserAnswer(receipts: receipts, configurationAbort: answer.configurationAbort),
            delay: answer.delay)
    }

    /// One user's scripted answer: at once, or after one request sent `delay` later.
    private struct ScriptedExchange: AppleExchange {
        let answer: AppleUserAnswer
        let delay: Duration

        func start() -> ExchangeStep<AppleUserAnswer> {
            guard delay > .zero else { return .finish(answer) }
            let request = HTTPClientRequest(
                method: .get, url: URL(string: "http://apple.invalid/scripted")!, headers: [:], timeout: .seconds(1))
            return .send(AppleRequest(request, endpoint: .verifyReceipt, purpose: .ask), after: delay)
        }

        func handle(_ event: ExchangeEvent) -> ExchangeStep<AppleUserAnswer> { .finish(answer) }
    }

    /// Answers every request at once, on the caller's thread.
    private struct InstantTransport: HTTPTransport {
        func send(
            _ request: HTTPClientRequest, notBefore: Duration, on clock: any ThrottleClock,
            completion: @escaping HTTPCompletion
        ) {
            completion(.response(HTTPReply(statusCode: 200, headers: [:], body: Data())))
        }

        func cancelWaiting() {}
    }
}
