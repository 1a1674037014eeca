import AppStoreReceipts
import Foundation

/// What a lane does with a user: checks the user's receipts one at a time, then hands the user on.
///
/// A check that needs Apple returns without waiting; the answer resumes the user on the executor (a
/// worker), which goes on with the next receipt. When the user is done, the same thread takes the lane's
/// next user, if one is queued. Checks that need no request (cached answers, local rulings) are taken in
/// a loop, not by recursion, so a long run of them cannot deepen the stack.
///
/// Threading: `run` is called by the reader (for a lane it found idle); the rest runs on whichever thread
/// delivered the last answer. A user is touched by one thread at a time.
final class UserLane: Sendable {
    /// A user in flight: its work and the checks so far.
    final class User: @unchecked Sendable {
        let work: UserWork
        var checks: [Int64: ReceiptCheck] = [:]
        /// The next receipt to check.
        var position = 0

        init(_ work: UserWork) { self.work = work }
    }

    private let checker: ReceiptChecker
    private let shouldStop: @Sendable () -> Bool
    private let onAppleTraffic: @Sendable (VerificationReport) -> Void
    private let executor: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
    private let finish: @Sendable (User) -> Void
    private let next: @Sendable () -> UserWork?

    /// - Parameters:
    ///   - shouldStop: true once the run stops calling Apple: the user's remaining receipts are skipped.
    ///   - finish: takes a user whose receipts are all checked (or who was stopped).
    ///   - next: the lane's next user, or nil when the lane falls idle.
    init(checker: ReceiptChecker, shouldStop: @escaping @Sendable () -> Bool,
         onAppleTraffic: @escaping @Sendable (VerificationReport) -> Void,
         executor: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void,
         finish: @escaping @Sendable (User) -> Void, next: @escaping @Sendable () -> UserWork?) {
        self.checker = checker
        self.shouldStop = shouldStop
        self.onAppleTraffic = onAppleTraffic
        self.executor = executor
        self.finish = finish
        self.next = next
    }

    /// Runs `work` on a lane that was idle, until it waits for Apple or the lane falls idle.
    func run(_ work: UserWork) {
        drive(User(work))
    }

    private func drive(_ user: User) {
        var current: User? = user
        while let user = current { current = advance(user) }
    }

    /// Checks `user`'s receipts from `position` on: nil when one waits for Apple, else (all checked) the
    /// lane's next user.
    private func advance(_ user: User) -> User? {
        while user.position < user.work.receipts.count, !shouldStop() {
            let receipt = user.work.receipts[user.position]
            let immediate = checker.check(receipt.data, shouldStop: shouldStop, onAppleTraffic: onAppleTraffic,
                                          executor: executor) { [self] check in
                user.checks[receipt.id] = check
                user.position += 1
                drive(user)
            }
            guard let immediate else { return nil }
            user.checks[receipt.id] = immediate
            user.position += 1
        }
        finish(user)
        return next().map(User.init)
    }
}
