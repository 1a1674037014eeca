import CommandLineOptions
import Foundation

extension AppleSettings {
    /// Each app's Apple ID (App Store Connect > App Information > Apple ID), by bundle id: what a
    /// production notification's `appAppleId` must be (CONTRACT §2, §9), as Apple's
    /// `SignedDataVerifier` is given it.
    static let appAppleIDs = Setting<[String: Int64]>(
        option: OptionSpec(
            "app-apple-id", .repeatable(placeholder: "BUNDLE_ID=APPLE_ID"),
            "an app's Apple ID (App Store Connect > App Information > Apple ID), checked against production "
                + "notifications' appAppleId; repeatable (overrides APPLE_APP_APPLE_IDS)",
            default: "none"),
        variable: SettingVariable(
            "APPLE_APP_APPLE_IDS",
            "each app's Apple ID as bundle_id=apple_id pairs, comma-separated; checked against production "
                + "notifications' appAppleId; required for server-api production nights (--app-apple-id)",
            refusal: .mustBe(
                "comma-separated bundle_id=apple_id pairs (App Store Connect > App Information > Apple ID)")),
        default: [:], documented: "none (server-api production: required)",
        parse: { parsers, text throws(OptionError) in
            try pairs(text.split(separator: ",").map(String.init), parsers)
        }
    ).readingEveryFlag { parsers, texts throws(OptionError) in try pairs(texts, parsers) }

    /// `bundle_id=apple_id` items (blank ones dropped) as a map; a bundle id named twice must name one id.
    private static func pairs(_ items: [String], _ parsers: ValueParsers) throws(OptionError) -> [String: Int64] {
        var map: [String: Int64] = [:]
        for item in items {
            let text = item.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let id = Int64(parts[1]), id > 0,
                parts[1].allSatisfy(\.isASCII), map[parts[0]].map({ $0 == id }) ?? true
            else {
                throw parsers.fail("app-apple-id", "BUNDLE_ID=APPLE_ID, the app's numeric Apple ID", text)
            }
            map[parts[0]] = id
        }
        return map
    }
}
