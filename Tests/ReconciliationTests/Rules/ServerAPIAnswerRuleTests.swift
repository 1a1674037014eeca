import Foundation
import Testing

@testable import AppStoreReceipts
@testable import Reconciliation

/// What the App Store Server API's answers prove (CONTRACT §9, "What proves a purchase absent"), rule by
/// rule: a lookup's end, a not-found id once every history is in, a row from its ids.
@Suite struct ServerAPIAnswerRuleTests {
    typealias Ruling = ServerAPIAnswerRule.Ruling

    @Test(
        arguments: [
            // (Apple's end of the history lookup, asked with the default app's bid, what it decides)
            (.configuration(detail: "401"), true, .abort("401")),
            (
                .configuration(detail: "401"), false,
                .row(.unverified(.permanent, "the App Store Server API refused bundle id com.other: 401"))
            ),
            (.notFound(detail: "4040010", errorCode: 4_040_010), true, .id(.notFound("4040010", code: 4_040_010))),
            (
                .gone(code: 4_040_001, detail: "gone"), true,
                .id(
                    .unverified(
                        .permanent,
                        "Apple no longer finds the Apple Account (errorCode 4040001) of transaction 42 (gone)",
                        code: 4_040_001))
            ),
            (
                .gone(code: 4_040_003, detail: "gone"), true,
                .id(
                    .unverified(
                        .permanent, "Apple no longer finds the app (errorCode 4040003) of transaction 42 (gone)",
                        code: 4_040_003))
            ),
            (
                .gone(code: 4_040_019, detail: "gone"), true,
                .id(
                    .unverified(
                        .permanent,
                        "Apple no longer finds the app transaction (errorCode 4040019) of transaction 42 (gone)",
                        code: 4_040_019))
            ),
            (
                .invalidID(detail: "4000006", errorCode: 4_000_006), true,
                .id(.invalid("Apple refuses transaction id 42 (4000006)", code: 4_000_006))
            ),
            (.unverified(detail: "HTTP 503"), true, .row(.unverified(.transient, "HTTP 503"))),
            (.found(ServerAPIHistory(transactions: []), environment: .production), true, nil),
        ] as [(ServerAPILookup<ServerAPIHistory>, Bool, Ruling?)])
    func aHistoryLookupsEnd(_ end: ServerAPILookup<ServerAPIHistory>, isDefault: Bool, expected: Ruling?) {
        let bundleID = isDefault ? "com.app" : "com.other"
        #expect(ServerAPIAnswerRule.history(end, id: "42", bundleID: bundleID, isDefaultBundle: isDefault) == expected)
    }

    @Test(
        arguments: [
            // (Apple's end of the statuses lookup, asked with the default app's bid, what it decides)
            (.configuration(detail: "401"), true, .abort("401")),
            (.configuration(detail: "401"), false, .row(.unverified(.permanent, "subscription statuses: 401"))),
            // Without the status a grace period cannot be told from a lapse: every end is transient.
            (
                .notFound(detail: "nf", errorCode: 4_040_010), true,
                .history(.unverified(.transient, "subscription statuses: nf"))
            ),
            (.gone(code: 4_040_001, detail: "g"), true, .history(.unverified(.transient, "subscription statuses: g"))),
            (
                .invalidID(detail: "i", errorCode: nil), true,
                .history(.unverified(.transient, "subscription statuses: i"))
            ),
            (.unverified(detail: "u"), false, .history(.unverified(.transient, "subscription statuses: u"))),
            (.found(ServerAPIStatuses(subscriptions: []), environment: .sandbox), true, nil),
        ] as [(ServerAPILookup<ServerAPIStatuses>, Bool, Ruling?)])
    func aStatusesLookupsEnd(_ end: ServerAPILookup<ServerAPIStatuses>, isDefault: Bool, expected: Ruling?) {
        #expect(ServerAPIAnswerRule.statuses(end, isDefaultBundle: isDefault) == expected)
    }

    static let notFound = IDResolution.notFound("errorCode 4040010 in Production", code: 4_040_010)

    @Test(
        arguments: [
            // (held by a history, answered before, Apple signed the row, what the id proves)
            (2, true, true, .found(2)),
            (
                nil, true, true,
                .unverified(
                    .permanent,
                    "transaction 42 is not found by the App Store Server API now (errorCode 4040010 in Production), but "
                        + "Apple answered for it in an earlier run", code: 4_040_010)
            ),
            (
                nil, false, true,
                .unverified(
                    .permanent,
                    "transaction 42 is not found by the App Store Server API in either environment (errorCode 4040010 in "
                        + "Production), but Apple signed the row naming it (its JWS)", code: 4_040_010)
            ),
            (
                nil, false, false,
                .notFound(
                    "transaction 42 is unknown to the App Store Server API in both environments (errorCode 4040010 in "
                        + "Production)", code: 4_040_010)
            ),
        ] as [(Int?, Bool, Bool, IDResolution)])
    func aNotFoundIdOnceEveryHistoryIsIn(held: Int?, answeredBefore: Bool, signed: Bool, expected: IDResolution) {
        #expect(
            ServerAPIAnswerRule.settled(
                Self.notFound, id: "42", heldBy: held, answeredBefore: answeredBefore,
                appleSignature: signed ? "its JWS" : nil) == expected)
    }

    @Test(arguments: [
        IDResolution.found(1), .invalid("bad", code: 4_000_006), .unverified(.transient, "503"),
        .unverified(.permanent, "gone", code: 4_040_001),
    ])
    func onlyNotFoundChangesOnceTheHistoriesAreIn(_ resolution: IDResolution) {
        #expect(
            ServerAPIAnswerRule.settled(resolution, id: "42", heldBy: 0, answeredBefore: true, appleSignature: "x")
                == resolution)
    }

    static let invalid = ReceiptClassification(
        outcome: .invalid, outcomeFlag: .invalidReceipt, detail: "absent", errorCode: 4_040_010)

    @Test(
        arguments: [
            // (name, the row's ids, its signature failed, its verdict)
            ("every id found", [.found(1), .found(0), .found(1)], false, .histories([0, 1])),
            ("no id", [], false, .histories([])),
            (
                "an absent id proves it altered",
                [.found(0), .unverified(.transient, "503"), .notFound("absent", code: 4_040_010)],
                false, .classified(invalid)
            ),
            (
                "a refused id too", [.invalid("refused", code: nil), .notFound("absent", code: 4_040_010)], false,
                .classified(ReceiptClassification(outcome: .invalid, outcomeFlag: .invalidReceipt, detail: "refused"))
            ),
            (
                "transient before permanent",
                [.unverified(.permanent, "gone"), .unverified(.transient, "503", code: 1)],
                false, .classified(.unverified(.transient, detail: "503", errorCode: 1))
            ),
            (
                "permanent", [.found(0), .unverified(.permanent, "gone", code: 4_040_001)], false,
                .classified(.unverified(.permanent, detail: "gone", errorCode: 4_040_001))
            ),
            (
                "permanent, its signature failed", [.unverified(.permanent, "gone")], true,
                .classified(.unverified(.untrusted, detail: "gone; the row's own signature did not verify"))
            ),
            (
                "transient, its signature failed", [.unverified(.transient, "503")], true,
                .classified(.unverified(.transient, detail: "503"))
            ),
            ("found, its signature failed", [.found(0)], true, .histories([0])),
        ] as [(String, [IDResolution], Bool, ServerAPIAnswerRule.RowVerdict)])
    func aRowFromItsIds(
        _ name: String, resolutions: [IDResolution], signatureFailed: Bool, expected: ServerAPIAnswerRule.RowVerdict
    ) {
        #expect(ServerAPIAnswerRule.row(resolutions, signatureFailed: signatureFailed) == expected)
    }
}
