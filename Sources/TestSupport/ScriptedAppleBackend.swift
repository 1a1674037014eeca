import Dispatch
import Reconciliation
import Synchronization

/// An Apple for tests that drive the reconciliation engine in process: it answers each user from a
/// script (the user's rows' classification and purchases, or Apple refusing the job's configuration),
/// at once or after a delay, and records which users it was asked about, in order.
///
/// This file is the only test code that knows the `AppleBackend` protocol; tests speak of users,
/// answers and the users asked.
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

    public func verify(
        _ user: UserWork,
        shouldStop: @escaping @Sendable () -> Bool,
        onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (AppleUserAnswer) -> Void
    ) {
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
        let result = AppleUserAnswer(receipts: receipts, configurationAbort: answer.configurationAbort)
        onTraffic(AppleTraffic(requests: receipts.count, requestsByEndpoint: ["verify_receipt": receipts.count]))
        guard answer.delay > .zero else { return completion(result) }
        let (seconds, attoseconds) = answer.delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            executor { completion(result) }
        }
    }
}
