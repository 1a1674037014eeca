/// Why the payload segment of a JWS could not be read as Apple's signed data. The description is
/// one short line that never quotes the payload: it ends up in `inspect`'s output and in logs.
public enum SignedPayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not UTF-8 JSON; the offset of the first byte that is wrong.
    case notJSON(offset: Int)
    /// Valid JSON, but not an object (`[]`, `"text"`, `1e999`).
    case notAnObject

    public var description: String {
        switch self {
        case .notJSON(let offset): "signed data payload is not JSON (byte \(offset))"
        case .notAnObject: "signed data payload is JSON but not an object"
        }
    }
}
