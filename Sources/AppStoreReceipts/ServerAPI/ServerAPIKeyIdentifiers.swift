/// The shapes App Store Connect gives an In-App Purchase key's identifiers. Checked when the job
/// starts: Apple answers a malformed one only with HTTP 401, in the middle of the night.
public enum ServerAPIKeyIdentifiers {
    /// What a key id looks like, for error messages.
    public static let keyIDShape = "exactly 10 upper-case letters and digits, the KEYID of SubscriptionKey_KEYID.p8"
    /// What an issuer id looks like, for error messages.
    public static let issuerIDShape = "a UUID (8-4-4-4-12 hexadecimal digits) from Users and Access → Integrations"

    /// Whether `text` is a key id (the JWT's `kid`): exactly 10 of `A`–`Z` and `0`–`9`.
    public static func isKeyID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 10
            && bytes.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || isDigit($0) }
    }

    /// Whether `text` is an issuer id (the JWT's `iss`): a UUID, hexadecimal digits of either case
    /// grouped 8-4-4-4-12.
    public static func isIssuerID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { group in
            group.utf8.allSatisfy {
                isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0)
            }
        }
    }

    /// The key id App Store Connect put in the name of the file it let one download,
    /// `SubscriptionKey_<KEYID>.p8`; nil for a file named otherwise (a renamed key is legal).
    /// - Parameter path: the key file's path; only its last component is read.
    public static func keyID(inFileName path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let prefix = "SubscriptionKey_"
        let suffix = ".p8"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else {
            return nil
        }
        let keyID = String(name.dropFirst(prefix.count).dropLast(suffix.count))
        return isKeyID(keyID) ? keyID : nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
