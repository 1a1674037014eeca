import AppStoreReceipts
import Foundation
import TestSupport
import Testing

/// What proves a purchase absent (CONTRACT §9), as the client tells it apart against a scripted App
/// Store Server API: `notFound` only when every environment asked answered 4040010 / 4040005 or a
/// history without the id; `gone` when one said the account, app or app transaction is no longer
/// found; `invalidID` for an id Apple refuses or that is not decimal digits (then without a request);
/// and a page walk that restarts once when Apple no longer takes its `revision`.
@Suite struct ServerAPIAbsenceTests {
    static let day = ServerAPITestDates.day

    static func history(_ ids: String...) -> ScriptedServerAPI.Answer {
        .history(ids.map { ScriptedTransaction(id: $0, purchased: Self.day(-1)) })
    }

    // MARK: - 4040001 / 4040003 / 4040019: hop, then gone

    @Test(arguments: [4_040_001, 4_040_003, 4_040_019])
    func goneInProductionButFoundInSandboxIsFoundInSandbox(_ code: Int) throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "100", [.error(code, status: 404)])
        api.script(.sandbox, .transactionHistory, id: "100", [Self.history("100")])
        let (lookup, traffic) = api.client().historyNow(of: "100")
        let found = try #require(lookup.found, "\(lookup)")
        #expect(found.environment == .sandbox)
        #expect(found.value.transactions.map(\.transactionID) == ["100"])
        #expect(api.received.map(\.environment) == [.production, .sandbox])
        #expect(traffic.hops == 1)
        #expect(traffic.requests == 2)
    }

    @Test func goneInBothEnvironmentsIsGoneNeverNotFound() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "101", [.error(4_040_001, status: 404)])
        api.script(.sandbox, .transactionHistory, id: "101", [.error(4_040_001, status: 404)])
        let (lookup, traffic) = api.client().historyNow(of: "101")
        let gone = try #require(lookup.gone, "\(lookup)")
        #expect(gone.code == 4_040_001)
        #expect(gone.detail.contains("4040001 in production") && gone.detail.contains("4040001 in sandbox"))
        #expect(api.received.map(\.environment) == [.production, .sandbox])
        #expect(traffic.hops == 1)
    }

    /// One environment not finding the id and the other no longer finding the account is not proof:
    /// `gone`, with the code that said so.
    @Test func notInProductionAndAppGoneInSandboxIsGone() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "102", [.error(4_040_010, status: 404)])
        api.script(.sandbox, .transactionHistory, id: "102", [.error(4_040_003, status: 404)])
        let (lookup, _) = api.client().historyNow(of: "102")
        #expect(lookup.gone?.code == 4_040_003, "\(lookup)")
        #expect(api.received.count == 2)
    }

    @Test func goneInProductionAndNotInSandboxIsGone() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "103", [.error(4_040_019, status: 404)])
        let (lookup, _) = api.client().historyNow(of: "103")  // sandbox: unscripted, 4040010
        #expect(lookup.gone?.code == 4_040_019, "\(lookup)")
        #expect(api.received.map(\.environment) == [.production, .sandbox])
    }

    @Test func withoutHoppingGoneIsGoneAfterOneRequest() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "104", [.error(4_040_001, status: 404)])
        let (lookup, traffic) = api.client().historyNow(of: "104", mayHop: false)
        #expect(lookup.gone?.code == 4_040_001, "\(lookup)")
        #expect(api.received.count == 1)
        #expect(traffic.hops == 0)
    }

    @Test func notFoundInBothEnvironmentsNamesEachAnswer() throws {
        let api = try ScriptedServerAPI()
        api.script(.sandbox, .transactionHistory, id: "105", [.error(4_040_005, status: 404)])
        let (lookup, _) = api.client().historyNow(of: "105")
        let detail = try #require(lookup.notFoundDetail, "\(lookup)")
        #expect(detail.contains("4040010 in production") && detail.contains("4040005 in sandbox"), "\(detail)")
    }

    // MARK: - 4000006 / 4000008 and ids that are not digits

    @Test(arguments: [4_000_006, 4_000_008])
    func anIdAppleRefusesIsInvalidAfterOneRequest(_ code: Int) throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "106", [.error(code, status: 400)])
        let (lookup, traffic) = api.client().historyNow(of: "106")
        let detail = try #require(lookup.invalidIDDetail, "\(lookup)")
        #expect(detail.contains("\(code)"))
        #expect(api.received.count == 1, "no retry, no hop")
        #expect(traffic.requests == 1)
    }

    /// Checked before asking: an id Apple cannot have issued is never sent (nor named in the detail).
    @Test(arguments: [
        "12ab", "", " 12", "12 ", "-12", "1.5", "１２", "12\n", "../12", String(repeating: "9x", count: 500),
    ])
    func anIdThatIsNotDecimalDigitsIsInvalidWithoutARequest(_ id: String) throws {
        let api = try ScriptedServerAPI()
        let client = api.client()
        let (history, historyTraffic) = client.historyNow(of: id)
        let detail = try #require(history.invalidIDDetail, "\(history)")
        #expect(id.isEmpty || !detail.contains(id))
        let (statuses, statusesTraffic) = client.statusesNow(of: id)
        #expect(statuses.invalidIDDetail != nil, "\(statuses)")
        #expect(api.received.isEmpty)
        #expect(historyTraffic.requests == 0 && statusesTraffic.requests == 0)
        #expect(!ServerAPIClient.isWellFormedID(id))
    }

    @Test func decimalIdsAreWellFormed() {
        #expect(ServerAPIClient.isWellFormedID("0"))
        #expect(ServerAPIClient.isWellFormedID("2000000123456789"))
    }

    // MARK: - The id must be in the history

    @Test func aHistoryWithoutTheIdIsNotHereAndHops() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "110", [Self.history("111", "112")])
        api.script(.sandbox, .transactionHistory, id: "110", [Self.history("113")])
        let (lookup, traffic) = api.client().historyNow(of: "110")
        let detail = try #require(lookup.notFoundDetail, "\(lookup)")
        #expect(detail.contains("production history") && detail.contains("sandbox history"), "\(detail)")
        #expect(api.received.map(\.environment) == [.production, .sandbox])
        #expect(traffic.hops == 1)
    }

    @Test func aHistoryWithoutTheIdInProductionAndWithItInSandboxIsFoundInSandbox() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "114", [Self.history("115")])
        api.script(.sandbox, .transactionHistory, id: "114", [Self.history("114")])
        let (lookup, _) = api.client().historyNow(of: "114")
        let found = try #require(lookup.found, "\(lookup)")
        #expect(found.environment == .sandbox)
        #expect(found.value.transactions.map(\.transactionID) == ["114"], "nothing of production's history kept")
    }

    @Test func withoutHoppingAHistoryWithoutTheIdIsNotFound() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "116", [Self.history("117")])
        let (lookup, _) = api.client().historyNow(of: "116", mayHop: false)
        #expect(lookup.isNotFound, "\(lookup)")
        #expect(api.received.count == 1)
    }

    /// The id may be an `originalTransactionId` of the history, and on any page.
    @Test func theIdIsFoundAsAnOriginalTransactionIdOnALaterPage() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "120",
            [
                .history([ScriptedTransaction(id: "130", purchased: Self.day(-9))], hasMore: true, revision: "r1"),
                .history([ScriptedTransaction(id: "121", originalID: "120", purchased: Self.day(-1))]),
            ])
        let (lookup, traffic) = api.client().historyNow(of: "120")
        #expect(lookup.found?.environment == .production, "\(lookup)")
        #expect(lookup.found?.value.transactions.map(\.transactionID) == ["130", "121"])
        #expect(traffic.hops == 0)
    }

    // MARK: - 4000005 / 4000014 / 4000017: the walk starts over once

    @Test(arguments: [4_000_005, 4_000_014, 4_000_017])
    func aRevisionAppleNoLongerTakesRestartsTheWalkOnce(_ code: Int) throws {
        let api = try ScriptedServerAPI()
        let first = ScriptedServerAPI.Answer.history(
            [ScriptedTransaction(id: "140", purchased: Self.day(-40))], hasMore: true, revision: "r1")
        let second = ScriptedServerAPI.Answer.history(
            [ScriptedTransaction(id: "141", originalID: "140", purchased: Self.day(-10))])
        api.script(.production, .transactionHistory, id: "140", [first, .error(code, status: 400), first, second])
        let (lookup, traffic) = api.client().historyNow(of: "140")
        let found = try #require(lookup.found, "\(lookup)")
        #expect(found.value.transactions.map(\.transactionID) == ["140", "141"], "the first page is not kept twice")
        #expect(api.received.map { $0.queryValue("revision") } == [nil, "r1", nil, "r1"])
        #expect(traffic.requests == 4)
        #expect(traffic.hops == 0)
    }

    @Test func aSecondPaginationErrorLeavesTheIdUnverified() throws {
        let api = try ScriptedServerAPI()
        let first = ScriptedServerAPI.Answer.history(
            [ScriptedTransaction(id: "150", purchased: Self.day(-40))], hasMore: true, revision: "r1")
        api.script(
            .production, .transactionHistory, id: "150",
            [first, .error(4_000_005, status: 400), first, .error(4_000_017, status: 400), Self.history("150")])
        let (lookup, traffic) = api.client().historyNow(of: "150")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("4000017") && detail.contains("restarted"), "\(detail)")
        #expect(traffic.requests == 4)
        #expect(api.received.allSatisfy { $0.environment == .production }, "a pagination error is no reason to hop")
    }

    // MARK: - Signed data in answers must name its environment

    @Test func aHistoryTransactionWithoutEnvironmentIsUnverified() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "160",
            [.history([ScriptedTransaction(id: "160", purchased: Self.day(-1), omitsEnvironment: true)])])
        let (lookup, _) = api.client().historyNow(of: "160")
        let detail = try #require(lookup.unverifiedDetail, "\(lookup)")
        #expect(detail.contains("names no environment"), "\(detail)")
        #expect(api.received.count == 1, "a verdict-less answer is no reason to hop")
    }

    @Test func statusesWhoseSignedDataNamesNoEnvironmentAreUnverified() throws {
        let api = try ScriptedServerAPI()
        let transaction = ScriptedTransaction(id: "161", purchased: Self.day(-31), expires: Self.day(-1))
        api.script(
            .production, .subscriptionStatuses, id: "161",
            [.statuses([ServerAPIScriptStatus(status: 4, transaction: transaction, renewalOmitsEnvironment: true)])])
        var omitted = transaction
        omitted.omitsEnvironment = true
        api.script(
            .production, .subscriptionStatuses, id: "162",
            [.statuses([ServerAPIScriptStatus(status: 1, transaction: omitted)])])
        let client = api.client()
        for id in ["161", "162"] {
            let (lookup, _) = client.statusesNow(of: id)
            let detail = try #require(lookup.unverifiedDetail, "\(id): \(lookup)")
            #expect(detail.contains("names no environment"), "\(detail)")
        }
    }

    @Test func theRenewalInfosSignedDateIsReadAsScripted() throws {
        let api = try ScriptedServerAPI()
        let signed = Self.day(-2)
        let subscription = try api.onlySubscription(
            ServerAPIScriptStatus(
                status: 1, transaction: ScriptedTransaction(id: "163", purchased: Self.day(-3), signed: Self.day(-3)),
                renewalSigned: signed))
        let renewalSigned = try #require(subscription.renewalInfo?.signedDate)
        #expect(abs(renewalSigned.timeIntervalSince(signed)) < 0.01)
    }

    // MARK: - Statuses: no hop, but the same vocabulary

    @Test func statusesNotHereAreNotFoundOrGone() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .subscriptionStatuses, id: "170", [.error(4_040_001, status: 404)])
        api.script(.production, .subscriptionStatuses, id: "171", [.error(4_000_006, status: 400)])
        let client = api.client()
        #expect(client.statusesNow(of: "170").lookup.gone?.code == 4_040_001)
        #expect(client.statusesNow(of: "171").lookup.invalidIDDetail != nil)
        #expect(client.statusesNow(of: "172").lookup.isNotFound)
        #expect(api.received.allSatisfy { $0.environment == .production })
        #expect(api.received.count == 3)
    }

    @Test func fourHundredOneTwiceAndInvalidAppIdentifierAreConfiguration() throws {
        let api = try ScriptedServerAPI()
        api.script(.production, .transactionHistory, id: "180", [.unauthorized])
        api.script(.production, .transactionHistory, id: "181", [.error(4_000_002, status: 400)])
        let client = api.client()
        #expect(client.historyNow(of: "180").lookup.configurationDetail != nil)
        #expect(api.received.count == 2, "one fresh token, then no more")
        #expect(client.historyNow(of: "181").lookup.configurationDetail?.contains("4000002") == true)
        #expect(api.received.count == 3)
    }
}
