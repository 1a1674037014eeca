import AppStoreReceipts

/// One user's rows under verifyReceipt, as an exchange: rows judged locally or known already are
/// answered in a loop (not by recursion, so a long run of them cannot deepen the stack), and the first
/// row that needs Apple hands its verification's requests up until it has a verdict.
struct VerifyReceiptUserWalk: AppleExchange {
    private let backend: VerifyReceiptBackend
    private let user: UserWork
    private var answers: [ReceiptAnswer] = []
    private var position = 0
    /// The row being verified with Apple, and whether an answer came for it yet.
    private var asking: (verification: VerifyReceiptVerification, question: ReceiptChecker.Question, answered: Bool)?

    init(backend: VerifyReceiptBackend, user: UserWork) {
        self.backend = backend
        self.user = user
        answers.reserveCapacity(user.receipts.count)
    }

    mutating func start() -> ExchangeStep<AppleUserAnswer> {
        advance()
    }

    mutating func handle(_ event: ExchangeEvent) -> ExchangeStep<AppleUserAnswer> {
        guard var asking else { return finish() }
        // A draining run asks no new question: a row not yet asked about is left out, and so is the rest.
        if case .stop(.beforeAsking) = event, !asking.answered {
            self.asking = nil
            return finish()
        }
        if case .answer = event { asking.answered = true }
        let step = asking.verification.handle(event)
        self.asking = asking
        return follow(step, drained: event.isDrainingStop)
    }

    /// Judges rows from `position` on until one waits for Apple, or all are done.
    private mutating func advance() -> ExchangeStep<AppleUserAnswer> {
        while position < user.receipts.count {
            let row = user.receipts[position]
            if SignedDataVerifier.looksLikeJWS(row.data.utf8) {
                position += 1
                answers.append(
                    ReceiptAnswer.signedRow(row, verifier: backend.signedData, context: backend.context))
                continue
            }
            switch backend.checker.look(row.data) {
            case .known(let check):
                if let abort = record(check, of: row) { return abort }
            case .ask(let question):
                var verification = backend.client.verification(of: row.data)
                let step = verification.start()
                asking = (verification, question, false)
                return follow(step, drained: false)
            }
        }
        return finish()
    }

    /// The walk's step for the verification's: its requests pass through; its report rules the row.
    private mutating func follow(_ step: ExchangeStep<VerificationReport>, drained: Bool) -> ExchangeStep<
        AppleUserAnswer
    > {
        switch step {
        case .send(let request, let delay):
            return .send(request, after: delay)
        case .finish(let report):
            guard let asking else { return finish() }
            self.asking = nil
            let row = user.receipts[position]
            if let abort = record(backend.checker.answered(asking.question, report: report), of: row) { return abort }
            return drained ? finish() : advance()
        }
    }

    /// Rules on one row's check and moves past it. - Returns: the walk's end when Apple says the
    /// configuration is wrong (21004/21000), else nil.
    private mutating func record(_ check: ReceiptCheck, of row: StoredReceipt) -> ExchangeStep<AppleUserAnswer>? {
        position += 1
        do {
            if let answer = try VerifyReceiptBackend.answer(check, of: row, context: backend.context) {
                answers.append(answer)
            }
            return nil
        } catch {
            return .finish(AppleUserAnswer(receipts: answers, configurationAbort: error))
        }
    }

    private func finish() -> ExchangeStep<AppleUserAnswer> {
        .finish(AppleUserAnswer(receipts: answers))
    }
}

extension ExchangeEvent {
    /// A stop that means the run takes no more work, rather than a signal cutting one wait short.
    var isDrainingStop: Bool {
        if case .stop(.beforeAsking) = self { return true }
        return false
    }
}
