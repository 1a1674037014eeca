import CommandLineOptions

/// The options of `inspect`: the job's Apple settings, each checking the signed data only.
enum InspectSettings {
    static let bundleIDs = AppleSettings.bundleIDs.helped(
        OptionSpec(
            "bundle-id", .repeatable(placeholder: "ID"),
            "signed data must carry one of these bundle ids (overrides APPLE_BUNDLE_IDS)", default: "no check"))

    static let environment = AppleSettings.environment.helped(
        OptionSpec(
            "environment", .value(placeholder: "production|sandbox"),
            "signed data must be for this environment (overrides RECON_ENVIRONMENT)", default: "no check"))

    /// In the order the help lists them.
    static let all: [any SettingDeclaration] = [AppleSettings.rootCertificates, bundleIDs, environment]
}
