/// A canonical text of a unit — every user, row, account, transaction, renewal and receipt byte — so
/// that "the same parameters give the same world" can be checked by comparing text or a digest.
extension WorldUnit {
    public var canonicalText: String {
        var lines: [String] = ["unit \(index) asOf \(asOfMs)"]
        for user in users {
            lines.append("user \(user.id) \(user.scenario.rawValue) tester=\(user.isSandboxTester)")
            for row in user.receipts { lines.append("  receipt slot=\(row.slot) created=\(row.createdMs)") }
            for row in user.entitlements {
                lines.append(
                    "  entitlement \(row.entitlement) active=\(row.active) expires=\(row.expiresMs.map(String.init) ?? "-") "
                        + "product=\(row.productID ?? "-") original=\(row.originalTransactionID ?? "-") source=\(row.source) "
                        + "updated=\(row.updatedMs)")
            }
        }
        for account in accounts {
            lines.append(
                "account \(account.slot) \(account.environment) \(account.bundleID) item=\(account.appItemID) "
                    + "download=\(account.downloadID.map(String.init) ?? "-") version=\(account.applicationVersion)/"
                    + "\(account.originalApplicationVersion) downloaded=\(account.appDownloadMs) standing=\(account.standing)"
                    + (account.idsTheServerAPILoses.isEmpty
                        ? "" : " server-api-loses=\(account.idsTheServerAPILoses.sorted())")
                    + (account.answeredAfterAsOfMs == 0 ? "" : " answered-after=\(account.answeredAfterAsOfMs)")
            )
            for transaction in account.transactions {
                lines.append("  transaction \(transaction)")
            }
            for renewal in account.renewals { lines.append("  renewal \(renewal)") }
        }
        for slot in receipts.indices {
            // A JWS's signature is randomized and made with the seeding's chain: its payload is the world's.
            let data: String
            if case .signedTransaction = receipts[slot] {
                data = String(decoding: signedTransactionPayload(slot), as: UTF8.self)
            } else {
                data = receiptData(slot)
            }
            lines.append("receipt \(slot) \(receipts[slot]) \(data)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension SimulatedWorld {
    /// FNV-1a (64-bit) of the canonical text of every unit: a fingerprint of the whole world.
    public var digest: UInt64 {
        var hash = FNV1a.offsetBasis
        forEachUnit { unit in hash = FNV1a.hash(unit.canonicalText.utf8, continuing: hash) }
        return hash
    }
}
