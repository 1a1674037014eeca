extension UserReceipt {
    /// How this receipt's transactions stand in the user's truth ("Which transactions count").
    public func standing(sandboxPolicy: SandboxPolicy, isSandboxTester: Bool) -> ReceiptStanding {
        switch classification.outcome {
        case .valid: .counted
        case .misrouted: sandboxPolicy == .flag || isSandboxTester ? .counted : .misroutedNotCounted
        case .invalid: classification.isBundleMismatch ? .bundleMismatch : .invalidReceipt
        case .unverified:
            classification.unverified?.keepsNamedEntitlements == true ? .permanentlyUnverified : .unverified
        }
    }
}
