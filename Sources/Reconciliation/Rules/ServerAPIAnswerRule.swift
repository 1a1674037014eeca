import AppStoreReceipts

/// What the App Store Server API's answers prove about a stored row (CONTRACT §9, "What proves a purchase
/// absent"), each reading made once, from typed answers, for `ServerAPIUserWalk` to apply:
///
/// - a lookup's end: an id Apple no longer finds the account, app or app transaction of, a permanent
///   `unverified`; an id it refuses the format of, `invalid`; not found, decided once every history is in
///   (`settled`); anything transient, a transient `unverified` for the whole row; a key refused for the
///   default app, the run's configuration (exit 78), for another app, a permanent `unverified` for the row;
/// - a not-found id, once the user's histories are in: found if one holds it, a permanent `unverified` if
///   Apple answered for it before or signed the row naming it, else absent (`invalid`);
/// - a row from its ids: `invalid` if any id proves it altered, else `unverified` (transient before
///   permanent; `untrusted` for a row whose own signature failed), else its histories' answer.
enum ServerAPIAnswerRule {
    /// Which ids a lookup's end decides, and what.
    enum Ruling: Hashable, Sendable {
        /// The key is refused for the default app: not an outcome of any row; the run aborts.
        case abort(String)
        /// The id asked about.
        case id(IDResolution)
        /// Every id of the row not resolved yet: a row whose lookup ended without a verdict is without
        /// one whatever its other ids say (unless one proves it altered, which a verdict-less answer
        /// cannot), so they are not asked about.
        case row(IDResolution)
        /// Every id of the history just found not resolved yet.
        case history(IDResolution)
    }

    /// A row's answer from its ids.
    enum RowVerdict: Hashable, Sendable {
        /// Every id is in these histories (by position, ascending, each once).
        case histories([Int])
        /// The row's outcome without a history: its own claims are what it names.
        case classified(ReceiptClassification)
    }

    /// What a history lookup's end decides; nil when it found the history.
    /// - Parameters:
    ///   - bundleID: the bid asked with; `isDefaultBundle`: whether it is the default app's.
    static func history(
        _ end: ServerAPILookup<ServerAPIHistory>, id: String, bundleID: String, isDefaultBundle: Bool
    ) -> Ruling? {
        switch end {
        case .found: return nil
        case .configuration(let detail):
            guard !isDefaultBundle else { return .abort(detail) }
            // The key is refused for this row's app only: the run goes on for everyone else.
            return .row(.unverified(.permanent, "the App Store Server API refused bundle id \(bundleID): \(detail)"))
        case .notFound(let detail, let code):
            return .id(.notFound(detail, code: code))
        case .gone(let code, let detail):
            return .id(
                .unverified(
                    .permanent, "Apple no longer finds the \(goneSubject(code)) of transaction \(id) (\(detail))",
                    code: code))
        case .invalidID(let detail, let code):
            return .id(.invalid("Apple refuses transaction id \(id) (\(detail))", code: code))
        case .unverified(let detail):
            return .row(.unverified(.transient, detail))
        }
    }

    /// What a statuses lookup's end decides; nil when it found the statuses.
    static func statuses(_ end: ServerAPILookup<ServerAPIStatuses>, isDefaultBundle: Bool) -> Ruling? {
        switch end {
        case .found: return nil
        case .configuration(let detail):
            guard !isDefaultBundle else { return .abort(detail) }
            return .row(.unverified(.permanent, "subscription statuses: \(detail)"))
        case .notFound(let detail, _), .gone(_, let detail), .invalidID(let detail, _), .unverified(let detail):
            // Without the status a grace period cannot be told from a lapse: no verdict.
            return .history(.unverified(.transient, "subscription statuses: \(detail)"))
        }
    }

    static func goneSubject(_ code: Int) -> String {
        switch code {
        case 4_040_001: "Apple Account (errorCode 4040001)"
        case 4_040_003: "app (errorCode 4040003)"
        default: "app transaction (errorCode \(code))"
        }
    }

    /// What an id's resolution proves once every history of the user is in. Only "not found" changes:
    /// found if a history holds it (asked about first, answered by a later row's history), an Apple
    /// hiccup if Apple answered for it before or signed the row naming it (CONTRACT §9: Apple's signature
    /// proves the purchase existed; Apple says 4040010 can happen, rarely, for ids that returned data
    /// before), else absent.
    /// - Parameters:
    ///   - heldBy: the first fetched history holding `id`, if any.
    ///   - answeredBefore: whether Apple answered for `id` in an earlier run.
    ///   - appleSignature: what carries Apple's verified signature over the row, if anything does.
    static func settled(
        _ resolution: IDResolution, id: String, heldBy history: Int?, answeredBefore: Bool, appleSignature: String?
    ) -> IDResolution {
        guard case .notFound(let detail, let code) = resolution else { return resolution }
        if let history { return .found(history) }
        if answeredBefore {
            return .unverified(
                .permanent,
                "transaction \(id) is not found by the App Store Server API now (\(detail)), but Apple answered "
                    + "for it in an earlier run", code: code)
        }
        if let appleSignature {
            return .unverified(
                .permanent,
                "transaction \(id) is not found by the App Store Server API in either environment (\(detail)), but "
                    + "Apple signed the row naming it (\(appleSignature))", code: code)
        }
        return .notFound(
            "transaction \(id) is unknown to the App Store Server API in both environments (\(detail))", code: code)
    }

    /// A row's verdict from its ids' settled resolutions: `invalid` if any id proves it altered, else
    /// `unverified` (transient before permanent; a permanent one of a row whose signature failed is
    /// `untrusted`) if any id has no verdict, else the histories that hold its ids. The first id of each
    /// kind gives the detail.
    static func row(_ resolutions: [IDResolution], signatureFailed: Bool) -> RowVerdict {
        var invalid: (detail: String, code: Int?)?
        var transient: (detail: String, code: Int?)?
        var permanent: (detail: String, code: Int?)?
        var used: [Int] = []
        for resolution in resolutions {
            switch resolution {
            case .notFound(let detail, let code), .invalid(let detail, let code): invalid = invalid ?? (detail, code)
            case .unverified(.transient, let detail, let code): transient = transient ?? (detail, code)
            // Apple's permanent answers; whether the row keeps what it names is the row's signature's to say.
            case .unverified(.permanent, let detail, let code), .unverified(.untrusted, let detail, let code):
                permanent = permanent ?? (detail, code)
            case .found(let index): if !used.contains(index) { used.append(index) }
            }
        }
        if let invalid {
            return .classified(
                ReceiptClassification(
                    outcome: .invalid, outcomeFlag: .invalidReceipt, detail: invalid.detail, errorCode: invalid.code))
        }
        if let transient {
            return .classified(.unverified(.transient, detail: transient.detail, errorCode: transient.code))
        }
        if let permanent, signatureFailed {
            // Apple gives no verdict and the row's own claims are nobody's word: they keep nothing (CONTRACT §5).
            return .classified(
                .unverified(
                    .untrusted, detail: permanent.detail + "; the row's own signature did not verify",
                    errorCode: permanent.code))
        }
        if let permanent {
            return .classified(.unverified(.permanent, detail: permanent.detail, errorCode: permanent.code))
        }
        return .histories(used.sorted())
    }
}
