import AppStoreReceipts

/// The fresher evidence wins (issue 35, point 3; CONTRACT §9 "Signed rows"): a signed row shows its
/// transaction as it was at its `signedDate`; an answer of Apple's in this run shows it as of `asOf`,
/// which is later. Where both show one transaction, the answer says whether it stands, for the truth
/// (`truth`, which takes answers first) and for the row flags alike: a refund a stale signed row still
/// carries after Apple reversed it is neither acted on nor flagged.
extension ExpectationDeriver {
    /// Every transaction Apple's answers of this run show for the user's rows (believed or not for
    /// access: a misrouted answer is Apple's word too), as of `asOf`.
    static func answeredViews(_ rows: [Outcome]) -> [String: WorldTransaction.View] {
        var views: [String: WorldTransaction.View] = [:]
        for outcome in rows {
            switch outcome {
            case .valid(let answer), .misrouted(let answer):
                for view in answer.transactions { views[view.transaction.transactionID] = view }
            case .validSigned, .misroutedSigned, .invalid, .unverified:
                continue
            }
        }
        return views
    }

    /// The transactions a row shows, each as the freshest report of it says: a signed row's view
    /// replaced by Apple's answer of the same transaction, when one of the user's rows has it.
    static func freshest(
        _ views: [WorldTransaction.View], of outcome: Outcome, answered: [String: WorldTransaction.View]
    ) -> [WorldTransaction.View] {
        switch outcome {
        case .validSigned, .misroutedSigned:
            return views.map { answered[$0.transaction.transactionID] ?? $0 }
        case .valid, .misrouted, .invalid, .unverified:
            return views
        }
    }
}
