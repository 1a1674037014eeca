import Foundation
import Postgres
import TestSupport
import Testing

/// The App Store Server API key and the settings around it, checked when `run` starts, through the built
/// binary: what used to hang on a passphrase prompt, pass silently, or surface as a 401 at night.
@Suite struct KeyConfigurationTests {
    static let bundle = ["APPLE_BUNDLE_IDS": "com.example"]

    /// Runs `run` with stdin at end of file and a deadline, so a prompt would fail the test rather than hang it.
    static func run(_ environment: [String: String], _ extra: [String] = []) throws -> ReceiptReconBinary.Result {
        try ReceiptReconBinary.run(
            ["run", "--older-than", "0"] + extra, environment: environment, stdin: Data(), timeout: 60)
    }

    static func openssl(_ arguments: [String]) throws {
        let result = try ChildProcess.run("/usr/bin/openssl", arguments, stdin: Data(), timeout: 60)
        try #require(result.status == 0, "openssl \(arguments): \(result.stderrText)")
    }

    /// `api`'s key re-written encrypted: PKCS#8 with a passphrase (App Store Connect never hands one out,
    /// but a colleague's "protected" copy does), or the legacy OpenSSL form with `Proc-Type: 4,ENCRYPTED`.
    static func encryptedKey(_ api: ScriptedServerAPI, legacy: Bool) throws -> String {
        let path = api.directory.appendingPathComponent(legacy ? "legacy-encrypted.pem" : "encrypted.p8").path
        if legacy {
            try openssl(["ec", "-in", api.keyFile, "-aes256", "-passout", "pass:correct horse", "-out", path])
        } else {
            try openssl([
                "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", api.keyFile, "-passout", "pass:correct horse",
                "-out", path,
            ])
        }
        try #require(String(contentsOfFile: path, encoding: .utf8).contains("ENCRYPTED"))
        chmod(path, 0o600)
        return path
    }

    @Test(arguments: [false, true])
    func anEncryptedKeyIs78AtOnceWithOneLineNeverAPrompt(legacy: Bool) throws {
        let api = try ScriptedServerAPI()
        let encrypted = try Self.encryptedKey(api, legacy: legacy)
        var environment = api.environment.merging(Self.bundle) { $1 }
        environment["APPLE_API_KEY_FILE"] = encrypted
        let result = try Self.run(environment)
        #expect(result.status == 78, "\(result.output)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("encrypted") && result.stderr.contains(encrypted), "\(result.stderr)")
        #expect(!result.stderr.localizedCaseInsensitiveContains("enter pem pass phrase"))
        #expect(api.received.isEmpty)
    }

    @Test func aKeyReadableByOthersIsAWarningNamingTheModeAndTheFix() throws {
        let api = try ScriptedServerAPI()
        try TestDatabase.with { database in
            var environment = api.environment.merging(Self.bundle) { $1 }
            environment["DATABASE_URL"] = database.conninfo
            chmod(api.keyFile, 0o644)
            let open = try Self.run(environment)
            #expect(open.status == 0, "\(open.output)")
            let warning = try #require(
                open.stderr.split(separator: "\n").first { $0.contains("level=warning") && $0.contains("mode=") },
                "\(open.stderr)")
            #expect(warning.contains("mode=0644") && warning.contains("chmod 600 \(api.keyFile)"), "\(warning)")

            chmod(api.keyFile, 0o600)
            let closed = try Self.run(environment)
            #expect(closed.status == 0, "\(closed.output)")
            #expect(!closed.stderr.contains("mode="), "\(closed.stderr)")
        }
    }

    @Test(
        arguments: [
            ("APPLE_API_KEY_ID", "ABC123DEF", "key id"),  // nine characters
            ("APPLE_API_KEY_ID", "abc123defg", "key id"),  // lower case
            ("APPLE_API_KEY_ID", "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg", "key id"),  // a key pasted in
            ("APPLE_API_ISSUER_ID", "57246542-96fe-1a63-e053-0824d011072", "issuer id"),
            ("APPLE_API_ISSUER_ID", "ABC123DEFG", "issuer id"),
        ])
    func malformedIdsAre78NamingWhichAndWhatWasExpected(variable: String, value: String, what: String) throws {
        let api = try ScriptedServerAPI()
        var environment = api.environment.merging(Self.bundle) { $1 }
        environment[variable] = value
        let result = try Self.run(environment)
        #expect(result.status == 78, "\(result.output)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(variable) && result.stderr.contains(what), "\(result.stderr)")
        #expect(
            result.stderr.contains(what == "key id" ? "10 upper-case letters and digits" : "UUID"), "\(result.stderr)")
        #expect(!result.stderr.contains(value), "the value is never echoed: \(result.stderr)")
        #expect(api.received.isEmpty)
    }

    /// A flag names itself in the error, not the variable it overrides.
    @Test func aMalformedIdGivenAsAFlagIsNamedAsTheFlag() throws {
        let api = try ScriptedServerAPI()
        let result = try Self.run(api.environment.merging(Self.bundle) { $1 }, ["--api-key-id", "short"])
        #expect(result.status == 78, "\(result.output)")
        #expect(result.stderr.contains("--api-key-id"), "\(result.stderr)")
    }

    /// Any of the three without the others selects the Server API and is 78 naming what is missing: never a
    /// quiet night on verifyReceipt.
    @Test(
        arguments: [
            (["APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"], [String](), ["APPLE_API_KEY_FILE"]),
            (["APPLE_API_KEY_FILE"], [], ["APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"]),
            (["APPLE_API_KEY_FILE", "APPLE_API_KEY_ID"], [], ["APPLE_API_ISSUER_ID"]),
            (["APPLE_API_ISSUER_ID"], [], ["APPLE_API_KEY_FILE", "APPLE_API_KEY_ID"]),
            ([], ["--api-key-id"], ["APPLE_API_KEY_FILE", "APPLE_API_ISSUER_ID"]),
            (["APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"], ["--backend"], ["APPLE_API_KEY_FILE"]),
        ] as [([String], [String], [String])])
    func halfAKeyConfigurationIs78NamingWhatIsMissing(variables: [String], flags: [String], missing: [String]) throws {
        let api = try ScriptedServerAPI()
        var environment = api.environment.merging(Self.bundle) { $1 }
        let key = ["APPLE_API_KEY_FILE", "APPLE_API_KEY_ID", "APPLE_API_ISSUER_ID"]
        for name in key where !variables.contains(name) { environment[name] = nil }
        // A flag's value is the real one, so only its absence can be wrong.
        let values = ["--api-key-id": api.keyID, "--backend": "server-api"]
        let result = try Self.run(environment, flags.flatMap { [$0, values[$0] ?? ""] })
        #expect(result.status == 78, "\(result.output)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        for name in missing { #expect(result.stderr.contains(name), "\(name) not named: \(result.stderr)") }
        for name in key where !missing.contains(name) {
            #expect(!result.stderr.contains("\(name) (or"), "\(name) is not missing: \(result.stderr)")
        }
        #expect(api.received.isEmpty)
    }

    /// The first event of a run says how it checks: backend, environment and bundle ids (or that there is no
    /// bundle check, which is also a warning).
    @Test func runStartedNamesBackendEnvironmentAndBundleCheck() throws {
        let api = try ScriptedServerAPI()
        let apple = try ScriptedAppleServer()
        try TestDatabase.with { database in
            let serverAPI = try Self.run(
                api.environment.merging([
                    "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example,com.two",
                    "APPLE_APP_APPLE_IDS": "com.example=1234,com.two=5678",
                ]) { $1 })
            #expect(serverAPI.status == 0, "\(serverAPI.output)")
            let started = try #require(
                serverAPI.stderr.split(separator: "\n").first { $0.contains("event=run.started") })
            #expect(started.contains("backend=server-api"), "\(started)")
            #expect(started.contains("environment=production"), "\(started)")
            #expect(started.contains("bundle_check=com.example,com.two"), "\(started)")
            #expect(!serverAPI.stderr.contains("level=warning"), "\(serverAPI.stderr)")

            let verifyReceipt = try Self.run(
                apple.environment.merging(["DATABASE_URL": database.conninfo, "RECON_ENVIRONMENT": "sandbox"]) { $1 })
            #expect(verifyReceipt.status == 0, "\(verifyReceipt.output)")
            let lines = verifyReceipt.stderr.split(separator: "\n")
            let plain = try #require(lines.first { $0.contains("event=run.started") })
            #expect(plain.contains("backend=verify-receipt"), "\(plain)")
            #expect(plain.contains("environment=sandbox"), "\(plain)")
            #expect(plain.contains("bundle_check=\"no bundle check\""), "\(plain)")
            let warning = try #require(lines.first { $0.contains("level=warning") }, "\(verifyReceipt.stderr)")
            #expect(warning.contains("APPLE_BUNDLE_IDS"), "\(warning)")
        }
    }
}
