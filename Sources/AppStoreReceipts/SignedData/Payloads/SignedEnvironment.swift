/// The `environment` (or an app transaction's `receiptType`) of Apple's signed data, as Apple
/// spells it. A struct over the raw value rather than an enum, so that a value Apple adds
/// tomorrow is kept and shown instead of making the payload unreadable.
public struct SignedEnvironment: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The App Store environment of the same name.
    public init(_ environment: AppStoreEnvironment) {
        self.init(rawValue: environment.appleValue)
    }

    public static let production = SignedEnvironment(rawValue: "Production")
    public static let sandbox = SignedEnvironment(rawValue: "Sandbox")
    /// StoreKit testing in Xcode: signed by Xcode's local certificate, never by Apple.
    public static let xcode = SignedEnvironment(rawValue: "Xcode")
    /// Apple's libraries' own test data: not signed by Apple either.
    public static let localTesting = SignedEnvironment(rawValue: "LocalTesting")

    /// The App Store environment for `Production` and `Sandbox` (exact spelling: this value is
    /// compared with the configured environment after the signature check); nil for Xcode,
    /// LocalTesting and anything unknown, which no production path accepts (CONTRACT §9).
    public var appStoreEnvironment: AppStoreEnvironment? {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        default: nil
        }
    }

    public var description: String { rawValue }
}
