import AppStoreReceipts
import Foundation

/// Checks the bearer token of a Server API request as Apple does (research/server-api.md §3): an ES256
/// JWT signed with the API key, header `kid` = key id, claims `iss` = issuer id, `aud` =
/// `appstoreconnect-v1`, `exp` not passed and at most 60 minutes after `iat` (after now without `iat`,
/// which Apple's Python library omits), and a `bid`. Any failure is HTTP 401 with no body; the reason
/// is only for tests and never reaches the client.
struct ServerAPIToken: Sendable, Hashable {
    /// The `bid` claim: the app the caller asks about.
    var bundleID: String

    static let audience = "appstoreconnect-v1"
    static let maximumLifetime: Int64 = 3600

    /// Why a token was refused.
    struct Refusal: Error, Hashable {
        var reason: String
    }

    /// The token of `authorization` (`Bearer <JWT>`) checked against `key` at `now` (wall clock, seconds).
    static func check(authorization: String?, key: ServerAPIKey, now: Int64) -> Result<ServerAPIToken, Refusal> {
        guard let authorization, authorization.hasPrefix("Bearer ") else {
            return .failure(.init(reason: "no bearer token"))
        }
        let token = Array(authorization.utf8.dropFirst("Bearer ".utf8.count))
        let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = decode(parts[0]), let claimBytes = decode(parts[1]),
            let signature = decode(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any]
        else { return .failure(.init(reason: "not a compact JWT")) }
        guard header["alg"] as? String == "ES256" else { return .failure(.init(reason: "alg is not ES256")) }
        guard header["kid"] as? String == key.keyID else { return .failure(.init(reason: "unknown kid")) }
        let signingInput = Array(token[0..<(parts[0].count + 1 + parts[1].count)])
        let verified = signingInput.withUnsafeBytes { key.key.verify(signature: signature, of: $0) }
        guard verified else { return .failure(.init(reason: "bad signature")) }
        guard claims["iss"] as? String == key.issuerID else { return .failure(.init(reason: "wrong iss")) }
        let audience = claims["aud"]
        guard audience as? String == Self.audience || (audience as? [String])?.contains(Self.audience) == true else {
            return .failure(.init(reason: "wrong aud"))
        }
        guard let expires = integer(claims["exp"]) else { return .failure(.init(reason: "no exp")) }
        guard expires > now else { return .failure(.init(reason: "expired")) }
        let issued = integer(claims["iat"])
        if claims["iat"] != nil, issued == nil { return .failure(.init(reason: "iat is not a number")) }
        guard expires - (issued ?? now) <= maximumLifetime else {
            return .failure(.init(reason: "exp more than 60 minutes after iat"))
        }
        guard let bundleID = claims["bid"] as? String, !bundleID.isEmpty else {
            return .failure(.init(reason: "no bid"))
        }
        return .success(ServerAPIToken(bundleID: bundleID))
    }

    /// A JSON number that is a whole number of seconds.
    private static func integer(_ value: Any?) -> Int64? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int64(double)
    }

    /// Base64url without padding.
    private static func decode(_ segment: ArraySlice<UInt8>) -> [UInt8]? {
        let text = String(decoding: segment, as: UTF8.self)
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        return WorldUnit.bytes(base64URL: text)
    }
}
