/// The most bytes of one answer's body a transport keeps (`--max-answer-bytes`). Past it the body is
/// abandoned as it arrives and the exchange fails `answerTooLarge`, a transient failure, so the bodies
/// kept stay under the limit times the requests in flight, however large or slow the answers are.
///
/// Both checks are needed: a `Content-Length` above the limit is refused before any byte is read, and
/// a chunked body (no length up front) is counted as it comes.
public struct AnswerSizeLimit: Hashable, Sendable, CustomStringConvertible {
    public let bytes: Int

    /// Limits below one byte are raised to one.
    public init(bytes: Int) {
        self.bytes = max(1, bytes)
    }

    /// 8 MiB, the job's default; `--max-answer-bytes` (VerificationOptions) says how it was derived.
    public static let standard = AnswerSizeLimit(bytes: 8 << 20)

    /// Whether a body announced as `contentLength` bytes may be read at all.
    public func admits(contentLength: Int64) -> Bool {
        contentLength <= Int64(bytes)
    }

    /// Whether `count` more bytes still fit after `received`.
    public func admits(_ count: Int, after received: Int) -> Bool {
        count <= bytes - received
    }

    /// How an exchange whose answer passed the limit ends.
    public var failure: VerifyReceiptTransportFailure { .answerTooLarge(limit: bytes) }

    public var description: String { VerifyReceiptTransportFailure.bytes(bytes) }
}
