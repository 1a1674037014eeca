/// A verifyReceipt request that got no usable HTTP response.
public enum VerifyReceiptTransportFailure: Hashable, Sendable, CustomStringConvertible {
    /// The per-request timeout (CONTRACT `--timeout`) expired.
    case timedOut
    /// Connection refused or reset, DNS or TLS failure...; `detail` is a short description
    /// (for example the `URLError` code), which must not contain the request body.
    case connectionFailed(detail: String)
    /// The answer's body passed `limit` bytes (`--max-answer-bytes`) and was abandoned unread: a
    /// transient failure like a reset connection, since no verdict can come from an answer not kept.
    case answerTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .timedOut: "request timed out"
        case .connectionFailed(let detail): "connection failed (\(detail))"
        case .answerTooLarge(let limit): "answer larger than \(Self.bytes(limit)) (--max-answer-bytes)"
        }
    }

    /// `8 MiB`, `512 KiB`, `1000 bytes`: the unit in which `count` is whole.
    static func bytes(_ count: Int) -> String {
        if count >= 1 << 20, count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10, count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }
}
