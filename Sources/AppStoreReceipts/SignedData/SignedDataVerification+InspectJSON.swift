import Foundation

extension SignedDataVerification {
    /// The object `receipt-recon inspect` prints for signed data (CONTRACT §3): `format`,
    /// `verification` (`valid` or `invalid`), `reason` (null when valid), `checked_at`, `chain` (leaf,
    /// intermediate, root when verified; else the `x5c` certificates that decode) and `payload` under
    /// Apple's own names, a notification's nested signed data replaced by the same object for it.
    package var inspectObject: InspectJSON {
        let nestedByText: [String: SignedDataVerification]
        if case .notification(let notification) = payload {
            let texts = notification.nestedSignedData.map(\.jws)
            nestedByText = Dictionary(
                zip(texts, nested.map(\.verification)), uniquingKeysWith: { first, _ in first })
        } else {
            nestedByText = [:]
        }
        return .object([
            "format": .string(payload?.format.rawValue),
            "verification": .string(isValid ? "valid" : "invalid"),
            "reason": .string(failure.map { "\($0)" }),
            "checked_at": .date(checkedAt),
            "chain": .array(
                chain.map { certificate in
                    .object([
                        "subject": .string(certificate.subject),
                        "not_before": .date(certificate.notBefore),
                        "not_after": .date(certificate.notAfter),
                    ])
                }),
            "payload": payload.map { payload in
                payload.inspectObject { text in nestedByText[text]?.inspectObject ?? .null }
            } ?? .null,
        ])
    }
}
