import AppStoreReceipts
import CommandLineOptions
import Foundation
import Reconciliation
import Testing

@testable import ReceiptReconCLI

/// The help texts come from the settings' declarations: every declared flag with its help line and
/// default, every declared variable with its meaning, and the defaults they state are the values used.
@Suite struct SettingsHelpTests {
    static func optionLine(_ option: OptionSpec) -> String {
        option.help + (option.defaultText.map { " (default: \($0))" } ?? "")
    }

    @Test func runHelpListsEveryDeclaredOptionAndVariable() {
        let help = RunCommand.spec.helpText
        let declared = SettingsTable.verification + SettingsTable.runOnly + SettingsTable.database + SettingsTable.apple
        for option in SettingsTable.options(declared) {
            #expect(help.contains("  \(option.usageText)"), "run --help lacks \(option.usageText)")
            #expect(help.contains(Self.optionLine(option)), "run --help lacks the help of \(option.usageText)")
        }
        for variable in SettingsTable.variables.compactMap(\.variable) {
            #expect(help.contains("  \(variable.name)"), "run --help lacks \(variable.name)")
            #expect(help.contains(variable.meaning), "run --help lacks the meaning of \(variable.name)")
        }
    }

    @Test func verifyUserHelpListsTheSharedOptionsButNotTheNightlyOnes() {
        let help = VerifyUserCommand.spec.helpText
        for option in SettingsTable.options(SettingsTable.verification + SettingsTable.apple) {
            #expect(help.contains("  \(option.usageText)"), "verify-user --help lacks \(option.usageText)")
        }
        for option in SettingsTable.options(SettingsTable.runOnly) {
            #expect(!help.contains("  \(option.usageText)"), "verify-user --help lists \(option.usageText)")
        }
        #expect(!help.contains(OutputSettings.progressInterval.variable!.name))
    }

    @Test(arguments: [MigrateCommand.spec, ReportCommand.spec, ExportCommand.spec, SimulatorSeedCommand.spec])
    func commandsThatOpenTheDatabaseDescribeItAsDeclared(spec: CommandSpec) throws {
        let option = try #require(DatabaseSettings.url.option)
        let variable = try #require(DatabaseSettings.url.variable)
        #expect(spec.helpText.contains("  \(option.usageText)"))
        #expect(spec.helpText.contains(Self.optionLine(option)))
        #expect(spec.helpText.contains(variable.meaning))
    }

    @Test func everyVariableNamesItsFlag() {
        for setting in SettingsTable.all {
            guard let variable = setting.variable, let option = setting.option else { continue }
            #expect(
                variable.meaning.contains("--\(option.name)"), "\(variable.name)'s help does not name --\(option.name)")
        }
    }

    @Test func everySettingIsListedOnceInTheHelpTables() {
        let names = SettingsTable.options(SettingsTable.all).map(\.name)
        #expect(Set(names).count == names.count)
        let variables = SettingsTable.variables.compactMap(\.variable?.name)
        #expect(Set(variables).count == variables.count)
        #expect(Set(variables) == Set(SettingsTable.all.compactMap(\.variable?.name)))
    }

    /// The default a help or README states, read back by the setting's own parser, is its default value.
    static func statedDefaultsAgree<Value: Equatable>(_ setting: Setting<Value>) throws -> [String] {
        let parsers = ValueParsers(invocation: "receipt-recon run")
        let stated = [setting.option?.defaultText, setting.documentedDefault].compactMap { $0 }
            .map { $0.replacingOccurrences(of: "`", with: "") }
        var problems: [String] = []
        if stated.isEmpty { problems.append("no stated default") }
        for text in stated {
            do {
                let value = try setting.readVariable(parsers, text)
                if value != setting.defaultValue { problems.append("'\(text)' is not the default") }
            } catch {
                problems.append("'\(text)' does not read: \(error)")
            }
        }
        return problems
    }

    @Test func statedDefaultsAreTheDefaults() throws {
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.concurrency) == [])
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.timeout) == [])
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.maxAttempts) == [])
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.httpClient) == [])
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.maxAnswerBytes) == [])
        #expect(try Self.statedDefaultsAgree(AppleRequestSettings.maxRetryWait) == [])
        #expect(try Self.statedDefaultsAgree(DatabaseSettings.reconnectWindow) == [])
        #expect(try Self.statedDefaultsAgree(SafetySettings.sandboxPolicy) == [])
        #expect(try Self.statedDefaultsAgree(SafetySettings.maxUnverifiedRatio) == [])
        #expect(try Self.statedDefaultsAgree(SafetySettings.maxRevokeRatio) == [])
        #expect(try Self.statedDefaultsAgree(RunScopeSettings.olderThan) == [])
        #expect(try Self.statedDefaultsAgree(OutputSettings.progressInterval) == [])
        #expect(try Self.statedDefaultsAgree(AppleSettings.environment) == [])
        for url in [
            AppleSettings.productionURL, AppleSettings.sandboxURL, BackendSettings.productionURL,
            BackendSettings.sandboxURL,
        ] {
            #expect(url.option?.defaultText == url.defaultValue.absoluteString)
        }
    }
}
