import AppStoreReceipts
import Foundation
import Synchronization
import TestSupport
import Testing

/// The JWT Apple sees (CONTRACT §9) and what a 401 does: one fresh token, then a configuration error.
@Suite struct ServerAPIAuthenticationTests {
    static let day = ServerAPITestDates.day

    /// A clock the test moves, so that a token minted "ten minutes ago" is still in the cache.
    final class TestTime: Sendable {
        let now = Mutex(Date())
        func set(_ date: Date) { now.withLock { $0 = date } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    @Test func everyTokenCarriesTheClaimsAppleRequiresAndIsReusedAcrossRequests() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "60",
            [
                .history(
                    [ScriptedTransaction(id: "60", purchased: Self.day(-40), expires: Self.day(-10))], hasMore: true,
                    revision: "r1"),
                .history([
                    ScriptedTransaction(id: "61", originalID: "60", purchased: Self.day(-10), expires: Self.day(20))
                ]),
            ])
        api.script(
            .production, .transactionHistory, id: "70",
            [.history([ScriptedTransaction(id: "70", bundleID: "com.other", purchased: Self.day(-1))])])
        let client = api.client()
        let before = Int64(Date().timeIntervalSince1970)
        _ = client.historyNow(of: "60", bundleID: "com.example")
        _ = client.statusesNow(of: "60", bundleID: "com.example")
        _ = client.historyNow(of: "70", bundleID: "com.other")
        let after = Int64(Date().timeIntervalSince1970)

        let tokens = api.received.compactMap(\.token)
        #expect(tokens.count == 4)
        for token in tokens {
            #expect(token.signatureVerifies, "signed with the API key")
            #expect(token.alg == "ES256")
            #expect(token.typ == "JWT")
            #expect(token.kid == api.keyID)
            #expect(token.iss == api.issuerID)
            #expect(token.aud == "appstoreconnect-v1")
            let iat = try #require(token.iat)
            let exp = try #require(token.exp)
            #expect(iat >= before - 1 && iat <= after + 1)
            #expect(exp > after && exp <= iat + 3600, "Apple refuses tokens living longer than an hour")
        }
        #expect(tokens.map(\.bid) == ["com.example", "com.example", "com.example", "com.other"])
        // One token per bundle id, reused by every request of its life.
        #expect(Set(tokens.prefix(3).map(\.raw)).count == 1)
        #expect(tokens[3].raw != tokens[0].raw)
    }

    @Test func aRefusedTokenIsReplacedOnceByAFreshOne() throws {
        let api = try ScriptedServerAPI()
        api.script(
            .production, .transactionHistory, id: "80",
            [.unauthorized, .history([ScriptedTransaction(id: "80", purchased: Self.day(-1))])])
        let time = TestTime()
        let tokens = ServerAPITokens(key: api.apiKey, keyID: api.keyID, issuerID: api.issuerID, now: time.read)
        let now = Date()
        // A token minted ten minutes ago is still in its cache (it is renewed five minutes before expiry).
        time.set(now.addingTimeInterval(-600))
        _ = tokens.token(bundleID: "com.example")
        time.set(now)

        let (lookup, _) = api.client(tokens: tokens).historyNow(of: "80")
        #expect(lookup.found != nil, "\(lookup)")
        let sent = api.received.compactMap(\.token)
        try #require(sent.count == 2)
        #expect(sent[0].iat == Int64(now.addingTimeInterval(-600).timeIntervalSince1970))
        #expect(sent[1].iat == Int64(now.timeIntervalSince1970), "the retry carries a token minted now")
        #expect(sent[1].raw != sent[0].raw)
        #expect(sent[1].signatureVerifies)
    }

    @Test func aSecondRefusalIsAConfigurationErrorAndNothingMoreIsAsked() throws {
        let api = try ScriptedServerAPI()
        api.scriptEverything([.unauthorized])
        let (lookup, _) = api.client().historyNow(of: "81")
        let detail = try #require(lookup.configurationDetail, "\(lookup)")
        #expect(detail.contains("401"))
        #expect(detail.contains("APPLE_API_KEY_ID"))
        #expect(detail.contains("bundle id com.example (the JWT's bid"), "the bid is a suspect too: \(detail)")
        #expect(api.received.count == 2)
        #expect(api.received.allSatisfy { $0.environment == .production }, "a 401 is no reason to hop")
    }

    @Test func theTokensDescriptionNeverShowsTheKey() throws {
        let api = try ScriptedServerAPI()
        let tokens = ServerAPITokens(key: api.apiKey, keyID: api.keyID, issuerID: api.issuerID)
        let pem = String(decoding: api.apiKey.pkcs8PEM ?? [], as: UTF8.self)
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? "unreachable"
        #expect(!"\(tokens)".contains(body))
        #expect(!String(reflecting: tokens).contains(body))
    }
}
