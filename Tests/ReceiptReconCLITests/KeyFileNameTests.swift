import Foundation
import TestSupport
import Testing

/// The key id against the name App Store Connect gives the key file (`SubscriptionKey_<KEYID>.p8`),
/// through the built binary: a mismatch is a warning naming both before any request, never an error (a
/// renamed file is legal); a file named otherwise says nothing.
@Suite struct KeyFileNameTests {
    /// `api`'s key copied under `name`, readable by its owner only.
    static func keyFile(_ api: ScriptedServerAPI, named name: String) throws -> String {
        let path = api.directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: api.keyFile, toPath: path)
        chmod(path, 0o600)
        return path
    }

    static func run(_ database: TestDatabase, _ api: ScriptedServerAPI, keyFile: String) throws
        -> ReceiptReconBinary.Result
    {
        var environment = api.environment.merging([
            "DATABASE_URL": database.conninfo, "APPLE_BUNDLE_IDS": "com.example",
        ]) { $1 }
        environment["APPLE_API_KEY_FILE"] = keyFile
        return try ReceiptReconBinary.run(
            [
                "run", "--backend", "server-api", "--older-than", "0", "--as-of", ServerAPIRunTests.asOf,
                "--max-attempts", "2",
            ],
            environment: environment)
    }

    /// The key of a colleague's download under the key id of another key: Apple refuses every token, and
    /// the warning came first, naming both ids.
    @Test func aKeyIDOtherThanTheFileNamesIsAWarningBeforeAnyRequest() throws {
        let api = try ServerAPIRunTests.server()
        api.scriptEverything([.unauthorized])
        try TestDatabase.with { database in
            _ = try ServerAPIRunTests.seedRefund(database, api)
            let file = try Self.keyFile(api, named: "SubscriptionKey_ABCDE12345.p8")
            let result = try Self.run(database, api, keyFile: file)
            #expect(result.status == 78, "\(result.output)")
            let lines = result.stderr.split(separator: "\n")
            let warning = try #require(
                lines.firstIndex { $0.contains("event=config.api_key_id_differs_from_file") }, "\(result.stderr)")
            #expect(lines[warning].contains("level=warning"))
            #expect(lines[warning].contains("key_id=\(api.keyID)") && lines[warning].contains("file_key_id=ABCDE12345"))
            #expect(lines[warning].contains("APPLE_API_KEY_ID is \(api.keyID)"), "\(lines[warning])")
            let refusal = try #require(lines.firstIndex { $0.contains("HTTP 401") }, "\(result.stderr)")
            #expect(warning < refusal, "the warning comes before Apple's answer")
            #expect(lines.filter { $0.contains("api_key_id_differs") }.count == 1, "said once")
        }
    }

    /// A key id that matches the file's name, and a file named otherwise, give no warning; a renamed file
    /// of the right key gives the warning and a normal night (a warning is never an error). The database
    /// is empty: the night only reads Apple's (empty) notification history with the key.
    @Test(arguments: [
        ("SubscriptionKey_KEY1234567.p8", false), ("recon-apple.p8", false), ("SubscriptionKey.p8", false),
        ("SubscriptionKey_OLDKEY0001.p8", true),
    ])
    func aMatchingOrUnpatternedFileNameIsNoWarning(name: String, warned: Bool) throws {
        let api = try ServerAPIRunTests.server()
        try TestDatabase.with { database in
            let result = try Self.run(database, api, keyFile: try Self.keyFile(api, named: name))
            #expect(result.status == 0, "\(result.output)")
            #expect(result.stderr.contains("event=config.api_key_id_differs_from_file") == warned, "\(result.stderr)")
            #expect(result.stderr.contains("level=warning") == warned, "\(result.stderr)")
        }
    }
}
