import Foundation
import Synchronization

/// The ES256 JWTs the App Store Server API requires (research/server-api.md §3): header `alg` ES256,
/// `kid` the key id, `typ` JWT; claims `iss` (issuer id), `iat`, `exp`, `aud` `appstoreconnect-v1` and
/// `bid`, the bundle id of the data being checked.
///
/// A token lives 20 minutes (Apple refuses more than 60) and is reused until 5 minutes before it
/// expires: signing one per request would add a noticeable share to every user's verification
/// (docs/benchmarks.md). After
/// a 401 the caller asks for a fresh one (`token(bundleID:fresh:)`).
///
/// The key never leaves this type: tokens are written into request headers only, and descriptions
/// of it show nothing.
public final class ServerAPITokens: Sendable, CustomStringConvertible {
    private let key: ES256Key
    private let keyID: String
    private let issuerID: String
    private let lifetime: TimeInterval
    private let renewBefore: TimeInterval
    private let now: @Sendable () -> Date
    private let cache = Mutex<[String: (token: String, expires: Date)]>([:])

    package init(
        key: ES256Key, keyID: String, issuerID: String, lifetime: TimeInterval = 20 * 60,
        renewBefore: TimeInterval = 5 * 60, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.lifetime = lifetime
        self.renewBefore = renewBefore
        self.now = now
    }

    /// Reads an App Store Connect In-App Purchase key (`.p8`, PKCS#8 P-256).
    /// - Throws: a one-line account naming the file and the way out; never the key's bytes. An
    ///   encrypted key is refused at once: OpenSSL is never allowed to prompt for its passphrase.
    public static func load(keyFile path: String, keyID: String, issuerID: String) throws(ServerAPIKeyError)
        -> ServerAPITokens
    {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw ServerAPIKeyError("cannot read the API key file '\(path)': check that it exists and is readable")
        }
        let key: ES256Key
        do {
            key = try ES256Key.readPrivateKey(pem: Array(contents))
        } catch {
            switch error {
            case .encrypted:
                throw ServerAPIKeyError(
                    "the API key file '\(path)' is encrypted (passphrase-protected), and an unattended job cannot "
                        + "ask for a passphrase: use the .p8 exactly as App Store Connect issued it "
                        + "(SubscriptionKey_KEYID.p8), or decrypt it once with 'openssl pkey -in \(path) -out "
                        + "KEY.p8' and chmod 600 KEY.p8")
            case .notP256:
                throw ServerAPIKeyError(
                    "the API key file '\(path)' is not a PKCS#8 P-256 private key (App Store Connect's In-App "
                        + "Purchase key, SubscriptionKey_KEYID.p8)")
            }
        }
        guard !keyID.isEmpty, !issuerID.isEmpty else {
            throw ServerAPIKeyError("APPLE_API_KEY_ID and APPLE_API_ISSUER_ID are required with an API key")
        }
        return ServerAPITokens(key: key, keyID: keyID, issuerID: issuerID)
    }

    /// A token for `bundleID`: the cached one while it has more than `renewBefore` left, else a new one.
    /// - Parameter fresh: mint a new one whatever the cache holds (after a 401).
    public func token(bundleID: String, fresh: Bool = false) -> String {
        let instant = now()
        if !fresh, let cached = cache.withLock({ $0[bundleID] }),
            cached.expires.timeIntervalSince(instant) > renewBefore
        {
            return cached.token
        }
        let issued = Int64(instant.timeIntervalSince1970)
        let expires = issued + Int64(lifetime)
        let header = "{\"alg\":\"ES256\",\"kid\":\(Self.quoted(keyID)),\"typ\":\"JWT\"}"
        let claims =
            "{\"iss\":\(Self.quoted(issuerID)),\"iat\":\(issued),\"exp\":\(expires),"
            + "\"aud\":\"appstoreconnect-v1\",\"bid\":\(Self.quoted(bundleID))}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let token = input + "." + Base64URL.encode(key.sign(Array(input.utf8)) ?? [])
        cache.withLock { $0[bundleID] = (token, Date(timeIntervalSince1970: TimeInterval(expires))) }
        return token
    }

    public var description: String { "ServerAPITokens(kid: \(keyID), key: <redacted>)" }

    /// A JSON string literal (ids and bundle ids are plain, but a quote must never break the token).
    private static func quoted(_ text: String) -> String { JSONString.literal(text, style: .hexOnly) }
}

/// An API key that cannot be used: exit 78 before anything else.
public struct ServerAPIKeyError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
