/// Why the payload segment of a JWS could not be read as Apple's signed data. The description is
/// one short line that never quotes the payload: it ends up in `inspect`'s output and in logs.
public enum SignedPayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not UTF-8 JSON; the offset of the first byte that is wrong.
    case notJSON(offset: Int)
    /// Valid JSON, but not an object (`[]`, `"text"`, `1e999`).
    case notAnObject
    /// An object of the payload names a member twice (RFC 7515 §4).
    case duplicateKey
    /// The instant the data speaks for (`signedDate`; an app transaction without one:
    /// `receiptCreationDate`) is present but not a finite JSON number.
    case signedDateNotANumber(field: String)

    public var description: String {
        switch self {
        case .notJSON(let offset): "signed data payload is not JSON (byte \(offset))"
        case .notAnObject: "signed data payload is JSON but not an object"
        case .duplicateKey: "signed data payload names a member twice"
        case .signedDateNotANumber(let field): "signed data payload \(field) is not a number"
        }
    }
}
