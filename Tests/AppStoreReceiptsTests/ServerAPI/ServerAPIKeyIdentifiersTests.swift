import AppStoreReceipts
import Testing

/// The shapes of an In-App Purchase key's ids, as App Store Connect shows them: what `run` checks at
/// start instead of learning of a typo from a 401 at night.
@Suite struct ServerAPIKeyIdentifiersTests {
    @Test(
        arguments: [
            ("ABC123DEFG", true), ("2X9R4HXF34", true), ("0000000000", true),
            ("ABC123DEF", false), ("ABC123DEFGH", false), ("abc123defg", false), ("ABC123DEF-", false),
            ("ABC 23DEFG", false), ("ÀBC123DEFG", false), ("", false),
        ])
    func keyIDs(text: String, accepted: Bool) {
        #expect(ServerAPIKeyIdentifiers.isKeyID(text) == accepted)
    }

    @Test(
        arguments: [
            ("57246542-96fe-1a63-e053-0824d011072a", true), ("57246542-96FE-1A63-E053-0824D011072A", true),
            ("57246542-96fe-1a63-e053-0824d011072", false), ("57246542-96fe-1a63-e053-0824d011072aa", false),
            ("5724654296fe1a63e0530824d011072a", false), ("57246542-96fe-1a63-e053_0824d011072a", false),
            ("g7246542-96fe-1a63-e053-0824d011072a", false), ("{57246542-96fe-1a63-e053-0824d011072a}", false),
            ("ABC123DEFG", false), ("", false),
        ])
    func issuerIDs(text: String, accepted: Bool) {
        #expect(ServerAPIKeyIdentifiers.isIssuerID(text) == accepted)
    }

    /// The key id in the name App Store Connect gives the download; any other name says nothing.
    @Test(
        arguments: [
            ("/etc/receipt-recon/SubscriptionKey_2X9R4HXF34.p8", "2X9R4HXF34"),
            ("SubscriptionKey_ABC123DEFG.p8", "ABC123DEFG"),
            ("/keys/SubscriptionKey_abc123defg.p8", nil),  // not a key id's shape
            ("/keys/SubscriptionKey_ABC123DEFG (1).p8", nil),  // a browser's second copy
            ("/keys/SubscriptionKey_ABC123DEFG.p8.bak", nil),
            ("/keys/AuthKey_ABC123DEFG.p8", nil),  // an App Store Connect API key's name, another kind
            ("/keys/SubscriptionKey_.p8", nil),
            ("/keys/api-key.p8", nil), ("/var/run/secrets/recon/SubscriptionKey.p8", nil),
            ("/SubscriptionKey_ABC123DEFG.p8/key.p8", nil),  // the directory's name is not the file's
        ] as [(String, String?)])
    func keyIDInTheFileName(path: String, keyID: String?) {
        #expect(ServerAPIKeyIdentifiers.keyID(inFileName: path) == keyID)
    }
}
