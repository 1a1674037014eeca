import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation
import Testing

@testable import ReceiptReconCLI

/// The one rule every setting is read by: a flag overrides its variable, which overrides the default; a
/// bad flag value is a usage error (64) pointing at the help, a bad variable a configuration error (78)
/// naming the variable, each with the sentence operators and the cron wrapper's log already know.
@Suite struct SettingResolverTests {
    static func resolver(_ arguments: [String], _ environment: [String: String] = [:]) throws -> SettingResolver {
        let parsed = try ParsedArguments(
            program: "receipt-recon", command: "run", arguments: arguments,
            options: SettingsTable.options(SettingsTable.all))
        return SettingResolver(parsed, environment: environment)
    }

    /// Every setting whose variable refuses some text: the flag spelling, the variable, the refusal.
    static var refusing: [any SettingDeclaration] {
        SettingsTable.all.filter {
            if case .never = $0.variable?.refusal ?? .never { return false }
            return true
        }
    }

    @Test func aFlagOverridesItsVariableWhichOverridesTheDefault() throws {
        let setting = AppleRequestSettings.httpClient
        #expect(try Self.resolver([]).value(setting) == .curl)
        #expect(try Self.resolver([], ["RECON_HTTP_CLIENT": "urlsession"]).value(setting) == .urlSession)
        #expect(
            try Self.resolver(["--http-client", "curl"], ["RECON_HTTP_CLIENT": "urlsession"]).value(setting) == .curl)
        #expect(try Self.resolver(["--http-client=urlsession"]).value(setting) == .urlSession)
        // `NAME=` in an environment file sets nothing.
        #expect(try Self.resolver([], ["RECON_HTTP_CLIENT": ""]).value(setting) == .curl)
        #expect(try Self.resolver([], ["RECON_HTTP_CLIENT": ""]).given(setting) == nil)
    }

    /// `--notifications-since` takes the contract's spelling of its default as well as an age.
    @Test(arguments: [
        ("3 days", 259_200), ("72h", 259_200), ("3d", 259_200), ("12 hours", 43_200), ("1 week", 604_800),
        ("90 minutes", 5_400),
    ])
    func aDurationReadsInWordsOrAsAnAge(_ text: String, _ seconds: Int) throws {
        #expect(
            try Self.resolver(["--notifications-since", text]).value(NotificationSettings.notificationsSince)
                == seconds)
    }

    @Test(arguments: ["3 fortnights", "three days", "3", "-3 days", "days"])
    func aDurationThatIsNotOneIsAUsageError(_ text: String) throws {
        #expect(throws: CommandError.self) {
            try Self.resolver(["--notifications-since", text]).value(NotificationSettings.notificationsSince)
        }
    }

    @Test func aGoodFlagLeavesABadVariableUnread() throws {
        #expect(
            try Self.resolver(["--max-retry-wait", "5"], ["RECON_MAX_RETRY_WAIT": "soon"]).value(
                AppleRequestSettings.maxRetryWait) == 5)
        #expect(
            try Self.resolver(["--environment", "sandbox"], ["RECON_ENVIRONMENT": "staging"]).value(
                AppleSettings.environment) == .sandbox)
    }

    @Test func aBadFlagIsAUsageErrorNamingTheFlagAndTheHelp() throws {
        for setting in Self.refusing {
            guard let option = setting.option else { continue }
            let error = try #require(throws: CommandError.self) {
                try setting.check(try Self.resolver(["--\(option.name)", "bogus"], [:]))
            }
            #expect(error.exitCode == .usage, "--\(option.name)")
            #expect(error.message.hasPrefix("--\(option.name) expects "), "\(error.message)")
            #expect(error.message.hasSuffix(", got 'bogus' (see 'receipt-recon run --help')"), "\(error.message)")
        }
    }

    @Test func aBadVariableIsAConfigurationErrorNamingTheVariable() throws {
        #expect(!Self.refusing.isEmpty)
        for setting in Self.refusing {
            let variable = try #require(setting.variable)
            let error = try #require(throws: CommandError.self) {
                try setting.check(try Self.resolver([], [variable.name: "bogus"]))
            }
            #expect(error.exitCode == .configuration, "\(variable.name)")
            #expect(
                error.message.hasPrefix("\(variable.name) must be ")
                    || error.message == "\(variable.name) is not an http:// or https:// URL: 'bogus'",
                "\(error.message)")
            #expect(error.message.hasSuffix("'bogus'"), "\(error.message)")
        }
    }

    /// The sentences as operators have met them, word for word.
    @Test(arguments: [
        (
            "RECON_MAX_ANSWER_BYTES", "5",
            "RECON_MAX_ANSWER_BYTES must be a whole number of bytes from 1024 to 1073741824, not '5'"
        ),
        (
            "RECON_DB_RECONNECT_WINDOW", "-3",
            "RECON_DB_RECONNECT_WINDOW must be a number of seconds (0 or more), not '-3'"
        ),
        (
            "RECON_PROGRESS_INTERVAL", "0",
            "RECON_PROGRESS_INTERVAL must be a number of seconds from 0.1 to 86400, not '0'"
        ),
        (
            "APPLE_VERIFY_URL_SANDBOX", "ftp://y",
            "APPLE_VERIFY_URL_SANDBOX is not an http:// or https:// URL: 'ftp://y'"
        ),
        ("RECON_BACKEND", "x", "RECON_BACKEND must be 'verify-receipt' or 'server-api', not 'x'"),
    ])
    func variableRefusalsReadAsBefore(name: String, text: String, message: String) throws {
        let setting = try #require(SettingsTable.all.first { $0.variable?.name == name })
        let error = try #require(throws: CommandError.self) { try setting.check(try Self.resolver([], [name: text])) }
        #expect(error.exitCode == .configuration)
        #expect(error.message == message)
    }

    @Test func aRepeatableFlagReplacesItsVariablesList() throws {
        let setting = AppleSettings.bundleIDs
        #expect(try Self.resolver([]).value(setting) == [])
        #expect(try Self.resolver([], ["APPLE_BUNDLE_IDS": " x, ,y "]).value(setting) == ["x", "y"])
        #expect(
            try Self.resolver(["--bundle-id", "a", "--bundle-id", "b"], ["APPLE_BUNDLE_IDS": "x"]).value(setting)
                == ["a", "b"])
    }

    @Test func aValueKnowsWhetherItCameFromTheFlagOrTheVariable() throws {
        let flag = try #require(
            try Self.resolver(["--api-key-id", "K"], ["APPLE_API_KEY_ID": "V"]).sourced(BackendSettings.keyID))
        #expect(flag.value == "K")
        #expect(flag.source.description == "--api-key-id")
        let variable = try #require(try Self.resolver([], ["APPLE_API_KEY_ID": " V\n"]).sourced(BackendSettings.keyID))
        #expect(variable.value == "V")
        #expect(variable.source.description == "APPLE_API_KEY_ID")
    }

    @Test func theSharedSecretFlagNamesAFileAndItsVariableHoldsTheSecret() throws {
        let setting = AppleSettings.sharedSecret
        #expect(
            try Self.resolver(["--shared-secret-file", "/s"], ["APPLE_SHARED_SECRET": "t"]).value(setting)
                == .file("/s"))
        #expect(try Self.resolver([], ["APPLE_SHARED_SECRET": "t"]).value(setting) == .text("t"))
    }
}
