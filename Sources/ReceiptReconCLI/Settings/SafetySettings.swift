import CommandLineOptions
import Reconciliation

/// What protects paying users: the wrong environment's receipts, and the circuit breakers (CONTRACT §7).
enum SafetySettings {
    static let sandboxPolicy = Setting(
        option: OptionSpec(
            "sandbox-policy", .value(placeholder: "revoke|flag"),
            "what a receipt from the wrong environment does to entitlements", default: "revoke"),
        default: RunOptions.defaults.sandboxPolicy, record: "sandboxPolicy",
        parse: { parse, text throws(OptionError) in
            SandboxPolicy(rawValue: try parse.choice("sandbox-policy", text, SandboxPolicy.allCases.map(\.rawValue)))!
        }
    ).applied(to: \.sandboxPolicy)

    static let maxUnverifiedRatio = Setting(
        option: OptionSpec(
            "max-unverified-ratio", .value(placeholder: "X"),
            "circuit breaker: stop when unverified/processed exceeds X (after 100 receipts)", default: "0.10"),
        default: RunOptions.defaults.maxUnverifiedRatio, record: "maxUnverifiedRatio",
        parse: { parse, text throws(OptionError) in try parse.ratio("max-unverified-ratio", text) }
    ).applied(to: \.maxUnverifiedRatio)

    static let maxRevokeRatio = Setting(
        option: OptionSpec(
            "max-revoke-ratio", .value(placeholder: "X"),
            "circuit breaker: stop when revoked users/processed users exceeds X (after 100 receipts)", default: "0.20"),
        default: RunOptions.defaults.maxRevokeRatio, record: "maxRevokeRatio",
        parse: { parse, text throws(OptionError) in try parse.ratio("max-revoke-ratio", text) }
    ).applied(to: \.maxRevokeRatio)
}
