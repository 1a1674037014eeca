import AppStoreReceipts

extension Configuration {
    /// Refuses a night that would read production notifications without each app's Apple ID: Apple's
    /// `SignedDataVerifier` cannot be made for production without it, and no notification could be
    /// believed (CONTRACT §2 `APPLE_APP_APPLE_IDS`). A night without notifications (`--no-notifications`,
    /// verifyReceipt, the sandbox) and `verify-user` read none and need none.
    /// - Throws: a configuration error (78) naming the setting, the apps without an id, and where the id is.
    func requireAppAppleIDs(readsNotifications: Bool) throws(CommandError) {
        guard readsNotifications, serverAPI.backend == .serverAPI, environment == .production else { return }
        let missing = bundleIDs.filter { appAppleIDs[$0] == nil }
        guard !missing.isEmpty else { return }
        throw .configuration(
            "a production server-api night checks Apple's notifications against each app's Apple ID: set "
                + "APPLE_APP_APPLE_IDS (or --app-apple-id BUNDLE_ID=APPLE_ID) for \(missing.joined(separator: ", ")); "
                + "the Apple ID is in App Store Connect > App Information > Apple ID (or run with --no-notifications)")
    }
}
