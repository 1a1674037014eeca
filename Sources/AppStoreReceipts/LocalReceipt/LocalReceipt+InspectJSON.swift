import Foundation

extension LocalReceipt {
    /// The JSON object `receipt-recon inspect` prints (CONTRACT §3): keys in the contract's
    /// order, dates as `YYYY-MM-DDTHH:MM:SSZ` UTC (`.SSS` only when there are milliseconds),
    /// absent values as `null`, `quantity` a number, flags booleans, ids strings. In-app entries
    /// appear in stored order. Deterministic: the same receipt always prints the same bytes.
    ///
    /// - Parameter pretty: two-space indentation, one key per line; otherwise one line.
    public func inspectJSON(pretty: Bool = true) -> String {
        inspectObject(signature: nil).rendered(pretty: pretty)
    }

    /// `inspectJSON(pretty:)` with the verdict on the receipt's signature before `in_app`
    /// (docs/signed-data.md, "App receipts"): `signature` (`verified`, `failed`, `not_applicable`),
    /// `reason` (null unless failed), `digest` (`sha1`, `sha256`), `checked_at` (the instant the
    /// certificates were checked at: the creation date) and `chain` (subject, issuer and validity of
    /// the signer, intermediate and root).
    public func inspectJSON(signature: ReceiptSignatureCheck, pretty: Bool = true) -> String {
        inspectObject(signature: signature).rendered(pretty: pretty)
    }

    private func inspectObject(signature: ReceiptSignatureCheck?) -> InspectJSON {
        var members: [InspectJSON.Member] = [
            .init("format", .string(format.rawValue)),
            .init("bundle_id", .string(bundleID)),
            .init("environment", .string(environment)),
            .init("application_version", .string(applicationVersion)),
            .init("original_application_version", .string(originalApplicationVersion)),
            .init("creation_date", .date(creationDate)),
        ]
        if let signature {
            members += [
                .init("signature", .string(signature.verdict)),
                .init("reason", .string(signature.failure)),
                .init("digest", .string(signature.digest)),
                .init("checked_at", .date(signature.checkedAt)),
                .init(
                    "chain",
                    .array(
                        signature.chain.map { certificate in
                            .object([
                                "subject": .string(certificate.subject),
                                "issuer": .string(certificate.issuer),
                                "not_before": .date(certificate.notBefore),
                                "not_after": .date(certificate.notAfter),
                            ])
                        })),
            ]
        }
        members.append(.init("in_app", .array(inApp.map(\.inspectObject))))
        return .object(members)
    }
}

extension LocalReceipt.InAppPurchase {
    fileprivate var inspectObject: InspectJSON {
        .object([
            "product_id": .string(productID),
            "transaction_id": .string(transactionID),
            "original_transaction_id": .string(originalTransactionID),
            "purchase_date": .date(purchaseDate),
            "original_purchase_date": .date(originalPurchaseDate),
            "expires_date": .date(expiresDate),
            "cancellation_date": .date(cancellationDate),
            "quantity": .integer(quantity),
            "web_order_line_item_id": .string(webOrderLineItemID),
            "is_trial_period": .boolean(isTrialPeriod),
            "is_in_intro_offer_period": .boolean(isInIntroOfferPeriod),
        ])
    }
}
