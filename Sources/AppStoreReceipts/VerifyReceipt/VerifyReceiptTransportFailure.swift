/// A verifyReceipt request that got no HTTP response at all.
public enum VerifyReceiptTransportFailure: Hashable, Sendable, CustomStringConvertible {
    /// The per-request timeout (CONTRACT `--timeout`) expired.
    case timedOut
    /// Connection refused or reset, DNS or TLS failure...; `detail` is a short description
    /// (for example the `URLError` code), which must not contain the request body.
    case connectionFailed(detail: String)

    public var description: String {
        switch self {
        case .timedOut: "request timed out"
        case .connectionFailed(let detail): "connection failed (\(detail))"
        }
    }
}
