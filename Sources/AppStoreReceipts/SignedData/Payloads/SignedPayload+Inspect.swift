extension SignedPayload {
    /// The `payload` object `receipt-recon inspect` prints for this payload; `nested` is used by
    /// notifications only (see `SignedNotification.inspectObject(nested:)`).
    package func inspectObject(nested: (String) -> InspectJSON) -> InspectJSON {
        switch self {
        case .transaction(let transaction): transaction.inspectObject
        case .renewalInfo(let renewalInfo): renewalInfo.inspectObject
        case .notification(let notification): notification.inspectObject(nested: nested)
        case .appTransaction(let appTransaction): appTransaction.inspectObject
        }
    }
}
