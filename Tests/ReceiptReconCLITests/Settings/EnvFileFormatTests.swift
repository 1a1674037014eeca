import Foundation
import TestSupport
import Testing

@testable import ReceiptReconCLI

/// The env file's format, read by Swift (`--env-file`) and by the nightly wrapper's `read_env_file`:
/// the same files, fed to both, give the same variables or the same refusal (line and problem).
@Suite struct EnvFileFormatTests {
    /// What bash's `read_env_file` (taken from the wrapper itself) makes of `text`: the variables it
    /// exports, or the line and problem it refuses.
    static func wrapperReading(_ text: String) throws -> Result<[String: String], EnvFileFormat.Refusal> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("envfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("env")
        try Data(text.utf8).write(to: file)
        // The wrapper's two functions, with `refuse` reduced to printing its message; then every
        // variable exported, NUL-separated, beside a baseline taken before reading the file.
        let script = """
            eval "$(sed -n '/^read_env_file()/,/^}/p; /^env_error()/,/^}/p' "$1")"
            refuse() { printf '%s' "$2" >&2; exit "$1"; }
            env -0 > "$3"
            read_env_file "$2"
            env -0
            """
        let result = try ChildProcess.run(
            "/bin/bash", ["-c", script, "bash", CronWrapperTests.wrapper, file.path, directory.path + "/baseline"],
            environment: ["PATH": "/usr/bin:/bin", "LC_ALL": "C"], timeout: 60)
        if result.status == 78 {
            // "env file PATH line N: PROBLEM; nothing was run"
            let message = result.stderrText
            let afterLine = try #require(message.range(of: " line ")).upperBound
            let colon = try #require(message[afterLine...].range(of: ": "))
            let line = try #require(Int(message[afterLine..<colon.lowerBound]))
            let end = message.range(of: "; nothing was run")?.lowerBound ?? message.endIndex
            return .failure(EnvFileFormat.Refusal(line: line, problem: String(message[colon.upperBound..<end])))
        }
        try #require(result.status == 0, "\(result.stderrText)")
        func variables(_ data: Data) -> [String: String] {
            var values: [String: String] = [:]
            for field in data.split(separator: 0) {
                let text = String(decoding: field, as: UTF8.self)
                guard let equals = text.firstIndex(of: "=") else { continue }
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            return values
        }
        let baseline = variables(try Data(contentsOf: directory.appendingPathComponent("baseline")))
        // What bash sets of its own (SHLVL, _) is not the file's.
        let own: Set = ["SHLVL", "_", "PWD", "OLDPWD"]
        return .success(variables(result.stdout).filter { baseline[$0.key] != $0.value && !own.contains($0.key) })
    }

    static func swiftReading(_ text: String) -> Result<[String: String], EnvFileFormat.Refusal> {
        do throws(EnvFileFormat.Refusal) {
            return .success(try EnvFileFormat.variables(text))
        } catch {
            return .failure(error)
        }
    }

    static let files: [String] = [
        // cron/env.example's shapes, and systemd's: quotes of both kinds, comments, blank lines.
        """
        # a comment
        DATABASE_URL="host=db.internal port=5432 dbname=shop user=recon_job sslmode=verify-full"
          ; another comment

        APPLE_SHARED_SECRET='s3cr$t "quoted" $(touch /tmp/x) \\n'
        APPLE_BUNDLE_IDS = "com.example.app,com.example.\\"other\\" \\$HOME \\\\ `x`"
        """,
        "UNQUOTED=host=db.internal port=5432  \t\nRECON_ENVIRONMENT=production\r\nEMPTY=\nLAST=no newline at the end",
        "TWICE=first\nTWICE='second'\n\t KEY_2\t=\t\"tab and spaces\"  \n_UNDERSCORE=ü€ with unicode\n",
        "QUOTE_THEN_SPACE='x'   \nHASH=value # not a comment\nSEMI=a;b\nDOUBLE=\"\"\nSINGLE=''\n",
        // Every refusal, at a line of its own.
        "OK=1\n\nexport DATABASE_URL=x\n", "OK=1\njust words\n", "SECRET='hunter2\n", "SECRET=\"hunter2\n",
        "SECRET='hunter2' trailing\n", "SECRET=\"hunter2\"x\n", "SECRET=hun\\ter2\n", "SECRET=\"hun\\ter2\"\n",
        "SECRET=\"hunter2\\\n", "# a comment \\\n", "1ABC=x\n", "=x\n", "A-B=x\n",
    ]

    @Test(arguments: files)
    func theWrapperAndTheBinaryReadAFileAlike(text: String) throws {
        let wrapper = try Self.wrapperReading(text)
        let swift = Self.swiftReading(text)
        switch (wrapper, swift) {
        case (.success(let bash), .success(let ours)): #expect(bash == ours)
        case (.failure(let bash), .failure(let ours)): #expect(bash == ours)
        default: Issue.record("the wrapper: \(wrapper); --env-file: \(swift)")
        }
    }

    /// The file the docs tell operators to start from, read alike, naming the documented nightly role.
    @Test func theExampleEnvFileIsReadAlikeAndNamesTheJobRole() throws {
        let text = try DeployDocuments.text("cron/env.example")
        let ours = try #require(try? Self.swiftReading(text).get())
        #expect(try Self.wrapperReading(text).get() == ours)
        let user = ours["DATABASE_URL"]?.split(separator: " ").first { $0.hasPrefix("user=") }
        #expect(user == "user=recon_job", "\(ours["DATABASE_URL"] ?? "no DATABASE_URL")")
    }

    @Test func refusalsNameTheLineAndNeverTheValue() throws {
        for line in ["SECRET='hunter2", "SECRET=\"hunter2", "SECRET='hunter2' x", "SECRET=hun\\ter2"] {
            let refusal = try #require(Self.swiftReading("A=1\n# c\n\(line)\n").refusal)
            #expect(refusal.line == 3)
            #expect(!refusal.problem.contains("hunter2"))
        }
    }

    @Test func valuesAreDataNeverShell() throws {
        let variables = try #require(
            try? Self.swiftReading("A=$(id)\nB=`id`\nC=\"${HOME}\\$\"\nD='$PATH'\n").get())
        #expect(variables == ["A": "$(id)", "B": "`id`", "C": "${HOME}$", "D": "$PATH"])
    }
}

extension Result {
    fileprivate var refusal: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
