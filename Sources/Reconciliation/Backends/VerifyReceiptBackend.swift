import AppStoreReceipts
import Synchronization

/// The `AppleBackend` over Apple's `verifyReceipt`: each row is checked on its own (locally first,
/// then with Apple through `ReceiptChecker`, which also verifies identical data once per run), one
/// row at a time, and its outcome is ruled by `ReceiptOutcomeRule`. A row holding Apple's signed
/// data (a StoreKit 2 JWS) is never sent: its signature is verified locally (`SignedDataVerifier`)
/// and it is ruled by `ReceiptOutcomeRule.classifySigned`.
///
/// One row at a time per user: a user's rows usually share one subscription, and the in-flight cap
/// is better spent on other users than on a second request for the same answer.
///
/// Threading: `verify` returns without waiting for Apple; a user's walk continues on the executor when
/// an answer arrives, and is touched by one thread at a time. Rows that need no request (cached
/// answers, local rulings) are taken in a loop, not by recursion, so a long run of them cannot
/// deepen the stack.
public final class VerifyReceiptBackend: AppleBackend {
    private let checker: ReceiptChecker
    private let context: ReceiptOutcomeContext
    private let signedData: SignedDataVerifier

    /// - Parameters:
    ///   - context: the environment this database serves and the accepted bundle ids.
    ///   - signedData: verifies rows holding signed data; it checks signatures and chains only (the
    ///     bundle id and environment are the rules' to judge, from `context`).
    public init(client: VerifyReceiptClient, context: ReceiptOutcomeContext, signedData: SignedDataVerifier) {
        checker = ReceiptChecker(client: client)
        self.context = context
        self.signedData = signedData
    }

    public func verify(
        _ user: UserWork,
        shouldStop: @escaping @Sendable () -> Bool,
        onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
        completion: @escaping @Sendable (AppleUserAnswer) -> Void
    ) {
        let walk = Walk(user: user, shouldStop: shouldStop, completion: completion)
        advance(walk, onTraffic: onTraffic, executor: executor)
    }

    /// One user's rows, the answers so far and the next row to check.
    private final class Walk: @unchecked Sendable {
        // Unchecked: a walk is handed from thread to thread with each answer, never shared.
        let user: UserWork
        let shouldStop: @Sendable () -> Bool
        let completion: @Sendable (AppleUserAnswer) -> Void
        var answers: [ReceiptAnswer] = []
        var position = 0

        init(
            user: UserWork, shouldStop: @escaping @Sendable () -> Bool,
            completion: @escaping @Sendable (AppleUserAnswer) -> Void
        ) {
            self.user = user
            self.shouldStop = shouldStop
            self.completion = completion
            answers.reserveCapacity(user.receipts.count)
        }
    }

    /// Checks rows from `walk.position` on until one waits for Apple, or all are done.
    private func advance(
        _ walk: Walk, onTraffic: @escaping @Sendable (AppleTraffic) -> Void,
        executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    ) {
        while walk.position < walk.user.receipts.count, !walk.shouldStop() {
            let row = walk.user.receipts[walk.position]
            if SignedDataVerifier.looksLikeJWS(row.data.utf8) {
                walk.position += 1
                walk.answers.append(ReceiptAnswer.signedRow(row, verifier: signedData, context: context))
                continue
            }
            let immediate = checker.check(
                row.data, shouldStop: walk.shouldStop,
                onAppleTraffic: { onTraffic(AppleTraffic($0)) }, executor: executor,
                completion: { [self] check in
                    guard record(check, of: row, in: walk) else { return }
                    advance(walk, onTraffic: onTraffic, executor: executor)
                })
            guard let immediate else { return }
            guard record(immediate, of: row, in: walk) else { return }
        }
        walk.completion(AppleUserAnswer(receipts: walk.answers))
    }

    /// Rules on one row's check. - Returns: false when the walk ended (a configuration abort).
    private func record(_ check: ReceiptCheck, of row: StoredReceipt, in walk: Walk) -> Bool {
        walk.position += 1
        do {
            if let answer = try Self.answer(check, of: row, context: context) { walk.answers.append(answer) }
            return true
        } catch {
            walk.completion(AppleUserAnswer(receipts: walk.answers, configurationAbort: error))
            return false
        }
    }

    /// The row's answer: Apple's verdict ruled by `ReceiptOutcomeRule`, or the local ruling for data
    /// never sent (empty, not base64, Xcode).
    /// - Throws: `ConfigurationAbort` when Apple answered 21004/21000.
    static func answer(_ check: ReceiptCheck, of row: StoredReceipt, context: ReceiptOutcomeContext)
        throws(ConfigurationAbort) -> ReceiptAnswer?
    {
        let classification: ReceiptClassification
        if let report = check.report {
            classification = try ReceiptOutcomeRule.classify(
                ReceiptVerification(report), local: check.local, context: context)
        } else if let ruling = ReceiptOutcomeRule.localRuling(check.local) {
            classification = ruling
        } else {
            return nil
        }
        var receipt = UserReceipt(receiptID: row.id, classification: classification, response: check.report?.response)
        if receipt.purchases.isEmpty, classification.outcome == .invalid || classification.outcome == .unverified {
            receipt.purchases = claimedPurchases(row.data)
        }
        return ReceiptAnswer(
            receipt: receipt, attempts: check.report?.requests ?? 0,
            bundleID: check.report?.response?.receipt?.bundleID ?? check.localBundleID)
    }

    /// What a receipt Apple gave no purchases for claims, decoded locally: never counted, but it names the
    /// entitlements the row was about, so a revoke says `invalid_receipt` rather than `no_purchase` (as
    /// under the App Store Server API, where the receipt is decoded to be asked about).
    static func claimedPurchases(_ data: String) -> [Purchase] {
        (try? LocalReceiptDecoder.decode(base64: data))?.claimedPurchases ?? []
    }
}

extension AppleTraffic {
    /// The traffic of one verifyReceipt verification.
    init(_ report: VerificationReport) {
        self.init(
            requests: report.requests, retries: report.retries, throttled: report.throttled, hops: report.hops,
            latencies: report.latencies,
            requestsByEndpoint: report.requests > 0 ? ["verify_receipt": report.requests] : [:])
    }
}
