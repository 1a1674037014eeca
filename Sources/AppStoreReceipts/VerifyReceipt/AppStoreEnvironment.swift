/// One of Apple's two App Store environments, and so one of the two verifyReceipt endpoints.
///
/// See Apple's [environment](https://developer.apple.com/documentation/appstorereceipts/environment)
/// and [verifyReceipt](https://developer.apple.com/documentation/appstorereceipts/verifyreceipt).
public enum AppStoreEnvironment: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `https://buy.itunes.apple.com/verifyReceipt`; real purchases.
    case production
    /// `https://sandbox.itunes.apple.com/verifyReceipt`; TestFlight, App Review and developer purchases.
    case sandbox

    /// Reads Apple's spelling (`"Production"`, `"Sandbox"`), ignoring case; nil for anything else.
    public init?(appleValue: String) {
        switch appleValue.lowercased() {
        case "production": self = .production
        case "sandbox": self = .sandbox
        default: return nil
        }
    }

    /// Apple's spelling: `Production` or `Sandbox`.
    public var appleValue: String {
        switch self {
        case .production: "Production"
        case .sandbox: "Sandbox"
        }
    }

    /// The other environment: where a 21007 / 21008 answer sends the request.
    public var other: AppStoreEnvironment {
        switch self {
        case .production: .sandbox
        case .sandbox: .production
        }
    }

    /// `production` or `sandbox`, the spelling of CONTRACT's `RECON_ENVIRONMENT` and database columns.
    public var description: String { rawValue }
}
